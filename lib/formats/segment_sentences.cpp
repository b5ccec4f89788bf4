#include "formats/segment_sentences.h"

#include <algorithm>

#include "align/alignment_stream.h"
#include "decode/alignment_output.h"
#include "decode/sentence_translation.h"
#include "io/text_input.h"

namespace nmt {

namespace {

// Bytes of the space at text[i], 0 when there is none there.
// The model's words (SentencePiece's, "</s>" left out) as indices of the
// text's words: one to one when they are as many, else each model word to
// the text word at the middle of its share of the letters.
std::vector<int> word_map(const std::vector<std::string>& pieces, const std::vector<ByteSpan>& text) {
    std::vector<size_t> lengths;
    for (const auto& word : group_words(pieces))
        if (!word.end) lengths.push_back(std::max<size_t>(1, word.text.size()));
    std::vector<int> map(lengths.size(), 0);
    if (text.empty()) return {};
    if (lengths.size() == text.size()) {
        for (size_t k = 0; k < map.size(); ++k) map[k] = static_cast<int>(k);
        return map;
    }
    double model_total = 0, text_total = 0;
    for (size_t length : lengths) model_total += double(length);
    for (const auto& word : text) text_total += double(word.end - word.begin);
    double before = 0;
    size_t j = 0;
    double text_before = 0;
    for (size_t k = 0; k < lengths.size(); ++k) {
        const double middle = (before + lengths[k] / 2.0) / model_total * text_total;
        before += double(lengths[k]);
        while (j + 1 < text.size() && text_before + double(text[j].end - text[j].begin) <= middle) {
            text_before += double(text[j].end - text[j].begin);
            ++j;
        }
        map[k] = static_cast<int>(j);
    }
    return map;
}

// Where the sentences of a segment lie in it: the whole segment when it is
// one sentence (as nmt translate gives a one-sentence line whole), the rest
// of a long paragraph with its last sentence as line_sentences does.
std::vector<SentenceSpan> sentence_spans(const std::string& segment, bool split) {
    std::vector<SentenceSpan> spans = split ? split_sentences(segment) : std::vector<SentenceSpan>{};
    if (spans.size() <= 1) return {SentenceSpan{0, segment.size(), ""}};
    if (spans.size() > kMaxSentencesPerLine) {
        spans[kMaxSentencesPerLine - 1].end = spans.back().end;
        spans.resize(kMaxSentencesPerLine);
    }
    return spans;
}

// One sentence's translation appended to its segment's, words and links included.
void append_sentence(const std::string& segment_text, const SentenceSpan& span, bool first,
                     const TranslationResult& r, SegmentTranslation& segment) {
    if (!first) segment.text += span.before;
    const size_t target_offset = segment.text.size();
    const int source_base = static_cast<int>(segment.source_words.size());
    const int target_base = static_cast<int>(segment.target_words.size());
    const auto source_words = text_words(segment_text.substr(span.begin, span.end - span.begin));
    for (const auto& w : source_words) segment.source_words.push_back({span.begin + w.begin, span.begin + w.end});
    if (r.hypotheses.empty()) return;
    const Hypothesis& h = r.hypotheses.front();
    segment.text += h.translation;
    const auto target_words = text_words(h.translation);
    for (const auto& w : target_words) segment.target_words.push_back({target_offset + w.begin, target_offset + w.end});
    const std::vector<int> source_map = word_map(r.source_pieces, source_words);
    const std::vector<int> target_map = word_map(h.target_pieces, target_words);
    for (const auto& [s, t] : attention_links(r)) {
        if (s < 0 || t < 0 || size_t(s) >= source_map.size() || size_t(t) >= target_map.size()) continue;
        segment.links.emplace_back(source_base + source_map[s], target_base + target_map[t]);
    }
}

}  // namespace

SegmentSentences cut_segments(const std::vector<std::string>& segments, bool split) {
    SegmentSentences out;
    out.spans.resize(segments.size());
    for (size_t i = 0; i < segments.size(); ++i) {
        out.spans[i] = sentence_spans(segments[i], split);
        for (const auto& span : out.spans[i]) {
            out.texts.push_back(clean_line(segments[i].substr(span.begin, span.end - span.begin), 0, nullptr));
            out.segment_of.push_back(i);
        }
    }
    return out;
}

std::vector<SegmentTranslation> join_segments(const std::vector<std::string>& segments,
                                              const SegmentSentences& sentences,
                                              const std::vector<TranslationResult>& results) {
    std::vector<SegmentTranslation> out(segments.size());
    size_t next = 0;
    for (size_t i = 0; i < segments.size(); ++i) {
        SegmentTranslation& segment = out[i];
        for (size_t k = 0; k < sentences.spans[i].size(); ++k)
            append_sentence(segments[i], sentences.spans[i][k], k == 0, results.at(next++), segment);
        std::sort(segment.links.begin(), segment.links.end());
        segment.links.erase(std::unique(segment.links.begin(), segment.links.end()), segment.links.end());
    }
    return out;
}

std::string segment_warning(const std::string& warning, const std::vector<size_t>& segment_of) {
    const std::string prefix = "line ";
    if (warning.compare(0, prefix.size(), prefix) != 0) return warning;
    size_t end = prefix.size(), n = 0;
    while (end < warning.size() && end < prefix.size() + 18 && warning[end] >= '0' && warning[end] <= '9')
        n = n * 10 + static_cast<size_t>(warning[end++] - '0');
    if (end == prefix.size() || end >= warning.size() || warning[end] != ':' || n < 1 || n > segment_of.size())
        return warning;
    return "segment " + std::to_string(segment_of[n - 1] + 1) + warning.substr(end);
}

}  // namespace nmt
