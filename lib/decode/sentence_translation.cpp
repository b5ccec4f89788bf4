#include "decode/sentence_translation.h"

#include <algorithm>
#include <stdexcept>

#include "decode/sentence_split.h"

namespace nmt {

LineSentences line_sentences(const std::string& line, bool split) {
    if (split) {
        std::vector<SentenceSpan> spans = split_sentences(line);
        if (spans.size() > 1) {
            if (spans.size() > kMaxSentencesPerLine) {
                spans[kMaxSentencesPerLine - 1].end = spans.back().end;
                spans.resize(kMaxSentencesPerLine);
            }
            LineSentences out;
            for (size_t k = 0; k < spans.size(); ++k) {
                out.sentences.push_back(line.substr(spans[k].begin, spans[k].end - spans[k].begin));
                if (k > 0) out.separators.push_back(spans[k].before);
            }
            return out;
        }
    }
    // A line that is one sentence goes to the translator exactly as without
    // splitting, so splitting changes nothing for it.
    return {{line}, {}};
}

namespace {

// Translator::translate numbers its warnings "line N: ..." by position in the
// list it was given (here: sentence N, counting from 1); users need the number
// of the input line the sentence came from.
std::string renumber(const std::string& warning, const std::vector<int64_t>& line_numbers) {
    const std::string prefix = "line ";
    if (warning.compare(0, prefix.size(), prefix) != 0) return warning;
    size_t end = prefix.size();
    uint64_t n = 0;
    while (end < warning.size() && end < prefix.size() + 18 && warning[end] >= '0' && warning[end] <= '9')
        n = n * 10 + static_cast<uint64_t>(warning[end++] - '0');
    if (end == prefix.size() || end >= warning.size() || warning[end] != ':' || n < 1 || n > line_numbers.size())
        return warning;
    return prefix + std::to_string(line_numbers[n - 1]) + warning.substr(end);
}

}  // namespace

std::vector<LineTranslation> translate_lines(Translator& translator, const std::vector<LineSentences>& lines,
                                             const TranslateOptions& options, std::vector<std::string>* warnings,
                                             int64_t first_line) {
    std::vector<int64_t> numbers(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) numbers[i] = first_line + static_cast<int64_t>(i);
    return translate_lines(translator, lines, options, warnings, numbers);
}

std::vector<LineTranslation> translate_lines(Translator& translator, const std::vector<LineSentences>& lines,
                                             const TranslateOptions& options, std::vector<std::string>* warnings,
                                             const std::vector<int64_t>& numbers) {
    std::vector<std::string> texts;
    std::vector<int64_t> line_numbers;  // of each sentence
    for (size_t i = 0; i < lines.size(); ++i) {
        for (const auto& sentence : lines[i].sentences) {
            texts.push_back(sentence);
            line_numbers.push_back(numbers.at(i));
        }
    }
    std::vector<std::string> sentence_warnings;
    std::vector<TranslationResult> results =
        translator.translate(texts, options, warnings ? &sentence_warnings : nullptr, 1);
    if (warnings)
        for (const auto& w : sentence_warnings) warnings->push_back(renumber(w, line_numbers));
    std::vector<LineTranslation> out(lines.size());
    size_t next = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        out[i].separators = lines[i].separators;
        for (size_t k = 0; k < lines[i].sentences.size(); ++k) out[i].sentences.push_back(std::move(results[next++]));
    }
    return out;
}

namespace {

bool has_translation(const TranslationResult& r) { return !r.hypotheses.empty() && !r.source_pieces.empty(); }

// How many of a list's pieces the merged list keeps: all for the last
// sentence, all but a final "</s>" for the others.
size_t kept(const std::vector<std::string>& pieces, bool last) {
    return pieces.size() - (!last && !pieces.empty() && pieces.back() == kEndToken ? 1 : 0);
}

// The same for source pieces, which keep at least one column to fold the
// dropped "</s>" into.
size_t kept_source(const std::vector<std::string>& pieces, bool last) {
    return std::max<size_t>(std::min<size_t>(1, pieces.size()), kept(pieces, last));
}

// Whether r's best hypothesis has attention to merge: a run that kept none
// has an empty matrix; one that does not fit the pieces is a bug.
bool has_attention(const TranslationResult& r) {
    const Hypothesis& h = r.hypotheses[0];
    if (h.attention.empty() && !h.target_pieces.empty()) return false;
    bool fits = h.attention.size() == h.target_pieces.size();
    for (const auto& row : h.attention) fits = fits && row.size() == r.source_pieces.size();
    if (!fits)
        throw std::invalid_argument("merge_translation_results: an attention matrix does not match its " +
                                    std::to_string(h.target_pieces.size()) + " target and " +
                                    std::to_string(r.source_pieces.size()) + " source pieces");
    return true;
}

}  // namespace

TranslationResult merge_translation_results(const std::vector<TranslationResult>& sentences,
                                            const std::vector<std::string>& separators, bool with_attention) {
    if (sentences.empty() || separators.size() + 1 != sentences.size())
        throw std::invalid_argument("merge_translation_results: " + std::to_string(sentences.size()) +
                                    " sentences with " + std::to_string(separators.size()) +
                                    " separators (one fewer than sentences, at least one sentence)");
    if (sentences.size() == 1) return sentences[0];

    size_t last = sentences.size();  // the last sentence with a translation keeps its "</s>"
    for (size_t k = 0; k < sentences.size(); ++k)
        if (has_translation(sentences[k])) last = k;

    TranslationResult out;
    Hypothesis merged;
    bool attention = with_attention && last < sentences.size();
    std::vector<size_t> source_offset(sentences.size(), 0);
    for (size_t k = 0; k < sentences.size(); ++k) {
        if (k > 0) merged.translation += separators[k - 1];
        if (!has_translation(sentences[k])) continue;
        const TranslationResult& r = sentences[k];
        const Hypothesis& h = r.hypotheses[0];
        source_offset[k] = out.source_pieces.size();
        out.source_pieces.insert(out.source_pieces.end(), r.source_pieces.begin(),
                                 r.source_pieces.begin() + kept_source(r.source_pieces, k == last));
        merged.target_pieces.insert(merged.target_pieces.end(), h.target_pieces.begin(),
                                    h.target_pieces.begin() + kept(h.target_pieces, k == last));
        merged.target_ids.insert(merged.target_ids.end(), h.target_ids.begin(), h.target_ids.end());
        merged.translation += h.translation;
        merged.score += h.score;
        merged.normalized_score += h.normalized_score;
        if (attention) attention = has_attention(r);
    }

    if (attention) {
        for (size_t k = 0; k <= last; ++k) {
            if (!has_translation(sentences[k])) continue;
            const TranslationResult& r = sentences[k];
            const Hypothesis& h = r.hypotheses[0];
            const size_t columns = kept_source(r.source_pieces, k == last);
            for (size_t t = 0; t < kept(h.target_pieces, k == last); ++t) {
                std::vector<float> row(out.source_pieces.size(), 0.0f);
                // A dropped "</s>" column (j == columns) folds into the last kept piece.
                for (size_t j = 0; j < h.attention[t].size(); ++j)
                    row[source_offset[k] + std::min(j, columns - 1)] += h.attention[t][j];
                merged.attention.push_back(std::move(row));
            }
        }
    }
    out.hypotheses.push_back(std::move(merged));
    return out;
}

}  // namespace nmt
