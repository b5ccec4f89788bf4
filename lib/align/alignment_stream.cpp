#include "align/alignment_stream.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include <unistd.h>

#include "decode/alignment_output.h"
#include "decode/alignment_svg.h"
#include "core/error.h"
#include "decode/source_encoding.h"

namespace nmt {

PairReader::PairReader(LineReader& sources, LineReader* targets, std::string sources_name, std::string targets_name)
    : sources_(sources), targets_(targets), sources_name_(std::move(sources_name)),
      targets_name_(std::move(targets_name)) {}

bool PairReader::next(std::string& source, std::string& target, std::vector<std::string>* warnings) {
    std::string raw_source, raw_target;
    const bool have_source = sources_.next_line(raw_source);
    if (targets_) {
        const bool have_target = targets_->next_line(raw_target);
        if (have_source != have_target)
            throw Error((have_source ? targets_name_ : sources_name_) + " ends at line " +
                        std::to_string(line_number_) + ", before " + (have_source ? sources_name_ : targets_name_) +
                        ": the two sides must have as many lines");
    }
    if (!have_source) return false;
    ++line_number_;
    if (!targets_) {
        const size_t bar = raw_source.find("|||");
        if (bar != std::string::npos) {
            raw_target = raw_source.substr(bar + 3);
            raw_source.resize(bar);
        } else if (warnings) {
            warnings->push_back("line " + std::to_string(line_number_) + ": no ' ||| ' between source and target");
        }
    }
    source = clean_line(std::move(raw_source), line_number_, warnings);
    target = clean_line(std::move(raw_target), line_number_, warnings);
    // fast_align's format puts a space on each side of the bars.
    for (std::string* side : {&source, &target}) {
        const size_t first = side->find_first_not_of(" \t"), last = side->find_last_not_of(" \t");
        *side = first == std::string::npos ? std::string() : side->substr(first, last - first + 1);
    }
    return true;
}

FilePairPasses::FilePairPasses(int sources_fd, std::string sources_name, int targets_fd, std::string targets_name,
                               LineLimit limit, std::function<void(const std::string&)> warn)
    : sources_fd_(sources_fd), targets_fd_(targets_fd), sources_name_(std::move(sources_name)),
      targets_name_(std::move(targets_name)), limit_(limit), warn_(std::move(warn)) {}

void FilePairPasses::rewind() {
    pairs_.reset();
    for (int fd : {sources_fd_, targets_fd_})
        if (fd >= 0 && ::lseek(fd, 0, SEEK_SET) < 0)
            throw Error((fd == sources_fd_ ? sources_name_ : targets_name_) +
                        ": cannot read it again from the start: " + std::strerror(errno));
    sources_ = std::make_unique<LineReader>(sources_fd_, sources_name_, limit_);
    targets_.reset();
    if (targets_fd_ >= 0) targets_ = std::make_unique<LineReader>(targets_fd_, targets_name_, limit_);
    pairs_ = std::make_unique<PairReader>(*sources_, targets_.get(), sources_name_, targets_name_);
    ++passes_;
}

bool FilePairPasses::next(std::string& source, std::string& target) {
    if (!pairs_) rewind();
    std::vector<std::string> warnings;
    const bool more = pairs_->next(source, target, passes_ == 1 && warn_ ? &warnings : nullptr);
    for (const auto& warning : warnings) warn_(warning);
    return more;
}

Links attention_links(const TranslationResult& aligned, const LinkExtraction& extraction, const PairWords* words_given) {
    if (aligned.hypotheses.empty()) return {};
    const Hypothesis& h = aligned.hypotheses.front();
    std::vector<std::vector<float>> rows = h.attention;
    if (extraction.shifted && rows.size() > 1) {
        rows.erase(rows.begin());    // piece t reads the row of step t + 1 ...
        rows.push_back(rows.back());  // ... and "</s>", which links nothing, keeps its own
    }
    const WordAttention words = words_given ? merge_attention(words_given->source, words_given->target, rows)
                                            : word_attention(aligned.source_pieces, h.target_pieces, rows);
    if (extraction.threshold <= 0) return hard_alignment(words);
    Links links;
    for (size_t t = 0; t < words.weights.size(); ++t) {
        if (words.target[t].end) continue;
        for (size_t s = 0; s < words.source.size(); ++s)
            if (!words.source[s].end && words.weights[t][s] >= extraction.threshold)
                links.emplace_back(static_cast<int>(s), static_cast<int>(t));
    }
    std::sort(links.begin(), links.end());
    return links;
}

namespace {

int64_t real_words(const std::vector<WordSpan>& words) {
    int64_t n = 0;
    for (const auto& w : words) n += w.end ? 0 : 1;
    return n;
}

// The backward model's links turned round, when both models cut the pair into
// the same words; else nothing (and a warning).
std::optional<Links> backward_links(const TranslationResult& forward, const TranslationResult& backward,
                                    int64_t line, const AlignStreamOptions& options) {
    if (forward.hypotheses.empty() || backward.hypotheses.empty()) return Links{};
    const auto source_words = group_words(forward.source_pieces);
    const auto target_words = group_words(forward.hypotheses.front().target_pieces);
    const auto backward_source = group_words(backward.source_pieces);
    const auto backward_target = group_words(backward.hypotheses.front().target_pieces);
    if (real_words(source_words) != real_words(backward_target) ||
        real_words(target_words) != real_words(backward_source)) {
        if (options.warn)
            options.warn("line " + std::to_string(line) +
                         ": the two models cut the pair into different words; the forward alignment alone is given");
        return std::nullopt;
    }
    Links links;
    for (const auto& [s, t] : attention_links(backward, options.extraction)) links.emplace_back(t, s);
    return links;
}

void write_checked_line(std::FILE* out, const std::string& line) {
    if (std::fwrite(line.data(), 1, line.size(), out) != line.size() || std::fputc('\n', out) == EOF)
        throw Error(std::string("cannot write the alignments: ") + std::strerror(errno));
}

// --tokenized: each side's tokens encoded one by one, so that the pieces of
// every token are known (words[i]), then aligned as encoded.
std::vector<TranslationResult> align_tokens(Translator& translator, const std::vector<std::string>& sources,
                                            const std::vector<std::string>& targets, const TranslateOptions& options,
                                            std::vector<std::string>& warnings, int64_t first_line,
                                            std::vector<PairWords>& words) {
    const Model& model = translator.model();
    const int source_limit = model.config.max_source_pieces, target_limit = 2 * source_limit;
    std::vector<std::vector<int>> source_ids(sources.size()), target_ids(sources.size());
    words.assign(sources.size(), PairWords{});
    for (size_t i = 0; i < sources.size(); ++i) {
        const std::string line = "line " + std::to_string(first_line + static_cast<int64_t>(i));
        const auto source_tokens = split_tokens(sources[i]), target_tokens = split_tokens(targets[i]);
        std::vector<int> source_counts, target_counts;
        SourceIds source = encode_tokens(model.source_vocab, source_limit, source_tokens, source_counts);
        SourceIds target = encode_tokens(model.target_vocab, target_limit, target_tokens, target_counts);
        if (source.cropped)
            warnings.push_back(line + ": longer than the model's limit of " + std::to_string(source_limit) +
                               " pieces (end of sentence included); the tokens past it are not aligned");
        if (target.cropped)
            warnings.push_back(line + ": translation longer than " + std::to_string(target_limit) +
                               " pieces; the tokens past it are not aligned");
        if (!target.ids.empty()) target.ids.pop_back();  // force_decode adds the EOS itself
        const int source_pieces = source.ids.empty() ? 0 : static_cast<int>(source.ids.size()) - 1;
        words[i].source = token_words(source_tokens, source_counts, source_pieces);
        words[i].target = token_words(target_tokens, target_counts, static_cast<int>(target.ids.size()));
        source_ids[i] = std::move(source.ids);
        target_ids[i] = std::move(target.ids);
    }
    auto results = translator.align_ids(source_ids, target_ids, options);
    for (size_t i = 0; i < sources.size(); ++i)
        if (!results[i].hypotheses.empty()) results[i].hypotheses.front().translation = targets[i];
    return results;
}

}  // namespace

int64_t align_stream(Translator& forward, Translator* backward, PairReader& pairs, std::FILE* out,
                     const AlignStreamOptions& options) {
    int64_t done = 0;
    for (bool more = true; more;) {
        std::vector<std::string> sources, targets, warnings;
        const int64_t first_line = pairs.line_number() + 1;
        std::string source, target;
        // A chunk ends early when no more input is waiting, so that a pair
        // piped in alone is answered at once.
        while (sources.size() < options.chunk_pairs && (more = pairs.next(source, target, &warnings))) {
            sources.push_back(std::move(source));
            targets.push_back(std::move(target));
            if (!pairs.more_available_without_blocking()) break;
        }
        if (sources.empty()) break;
        std::vector<TranslationResult> aligned, reversed;
        std::vector<PairWords> words, reversed_words;  // --tokenized only
        if (options.tokenized) {
            aligned = align_tokens(forward, sources, targets, options.translate, warnings, first_line, words);
            if (backward)
                reversed = align_tokens(*backward, targets, sources, options.translate, warnings, first_line,
                                        reversed_words);
        } else {
            aligned = forward.align(sources, targets, options.translate, &warnings, first_line);
            if (backward) reversed = backward->align(targets, sources, options.translate, &warnings, first_line);
        }
        for (const auto& warning : warnings)
            if (options.warn) options.warn(warning);
        for (size_t i = 0; i < sources.size(); ++i) {
            const int64_t line = first_line + static_cast<int64_t>(i);
            const PairWords* pair_words = options.tokenized ? &words[i] : nullptr;
            Links links = attention_links(aligned[i], options.extraction, pair_words);
            if (backward) {
                std::optional<Links> other;
                if (options.tokenized) {
                    other.emplace();
                    for (const auto& [t, s] : attention_links(reversed[i], options.extraction, &reversed_words[i]))
                        other->emplace_back(s, t);
                } else {
                    other = backward_links(aligned[i], reversed[i], line, options);
                }
                if (other) links = symmetrize(links, *other, options.symmetrization);
            }
            const bool has_attention = !aligned[i].hypotheses.empty();
            const Hypothesis* best = has_attention ? &aligned[i].hypotheses.front() : nullptr;
            // The word attention shown (the JSON's word fields, the SVG), merged once for both.
            std::optional<WordAttention> shown;
            const auto shown_attention = [&]() -> const WordAttention& {
                if (!shown)
                    shown = pair_words ? merge_attention(pair_words->source, pair_words->target, best->attention)
                                       : word_attention(aligned[i].source_pieces, best->target_pieces, best->attention);
                return *shown;
            };
            if (options.format == AlignFormat::Pharaoh) {
                write_checked_line(out, pharaoh(links));
            } else {
                nlohmann::json json = alignment_json(done + static_cast<int64_t>(i), aligned[i], sources[i]);
                if (pair_words && best) set_word_fields(json, shown_attention());
                json["alignment"] = pharaoh(links);
                write_checked_line(out, json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
            }
            if (!options.svg_directory.empty() && best) {
                const WordAttention& attention = shown_attention();
                write_alignment_svg_file(options.svg_directory, line, word_texts(attention.source),
                                         word_texts(attention.target), attention.weights,
                                         "line " + std::to_string(line) + ": " + targets[i]);
            }
        }
        done += static_cast<int64_t>(sources.size());
        if (std::fflush(out) != 0) throw Error(std::string("cannot write the alignments: ") + std::strerror(errno));
    }
    return done;
}

}  // namespace nmt
