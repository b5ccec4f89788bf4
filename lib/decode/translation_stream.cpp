#include "decode/translation_stream.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "decode/alignment_output.h"
#include "decode/alignment_svg.h"
#include "core/error.h"
#include "decode/sentence_translation.h"

namespace nmt {

namespace {

// A full disk or a closed file must stop the run with an error: fwrite and
// fflush report it only through their return values, and a translation
// silently missing from the output is worse than no output.
void flush(std::FILE* out, const char* what) {
    if (std::fflush(out) != 0 || std::ferror(out))
        throw Error(std::string("cannot write the ") + what + ": " + std::strerror(errno));
}

void write_line(std::FILE* out, const std::string& line) {
    std::fwrite(line.data(), 1, line.size(), out);
    std::fputc('\n', out);
}

void write_result(std::FILE* out, OutputFormat format, int64_t index, const TranslationResult& r,
                  const std::string& source) {
    switch (format) {
        case OutputFormat::Text:
            write_line(out, r.hypotheses.empty() ? "" : r.hypotheses[0].translation);
            break;
        case OutputFormat::NBest:
            if (r.hypotheses.empty()) write_line(out, nbest_line(index, Hypothesis{}));
            for (const auto& h : r.hypotheses) write_line(out, nbest_line(index, h));
            break;
        case OutputFormat::JsonLines:
            write_line(out, alignment_json(index, r, source).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
            break;
    }
}

void write_svg(const std::string& directory, int64_t index, const TranslationResult& r) {
    if (r.hypotheses.empty()) return;
    const auto& h = r.hypotheses[0];
    const WordAttention words = word_attention(r.source_pieces, h.target_pieces, h.attention);
    write_alignment_svg_file(directory, index + 1, word_texts(words.source), word_texts(words.target), words.weights,
                             "line " + std::to_string(index + 1) + ": " + h.translation);
}

}  // namespace

StreamStats translate_stream(Translator& translator, LineReader& input, std::FILE* output,
                             const StreamOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    if (!options.svg_directory.empty()) {
        std::error_code error;
        std::filesystem::create_directories(options.svg_directory, error);
        if (error) throw Error(options.svg_directory + ": cannot create directory: " + error.message());
    }
    const bool split = options.split_sentences && options.translate.search.n_best <= 1;
    // Merged attention is block-diagonal, quadratic in a line's length: built
    // only for the outputs that show it.
    const bool with_attention =
        options.format == OutputFormat::JsonLines || options.alignments || !options.svg_directory.empty();
    StreamStats stats;
    std::vector<std::string> lines, warnings;
    std::vector<LineSentences> sentences;
    std::string line;
    bool more = true;
    while (more) {
        lines.clear();
        sentences.clear();
        warnings.clear();
        size_t chunk_sentences = 0, chunk_bytes = 0;
        const int64_t first = stats.lines + 1;
        // Take one line (waiting if need be), then only what is already there.
        // Sentences bound the chunk too: a few paragraphs are as much work as
        // hundreds of lines; and bytes, so that memory stays bounded.
        while (static_cast<int>(lines.size()) < options.max_chunk_lines &&
               chunk_sentences < static_cast<size_t>(options.max_chunk_lines) &&
               chunk_bytes < options.max_chunk_bytes) {
            if (!lines.empty() && !input.more_available_without_blocking()) break;
            if (!input.next_line(line)) {
                more = false;
                break;
            }
            const int64_t number = first + static_cast<int64_t>(lines.size());
            if (input.last_line_truncated())
                warnings.push_back("line " + std::to_string(number) + ": longer than " +
                                   std::to_string(input.limit().max_bytes) +
                                   " bytes; only the first are translated, the rest is skipped");
            chunk_bytes += line.size();
            lines.push_back(clean_line(std::move(line), number, &warnings));
            sentences.push_back(line_sentences(lines.back(), split));
            chunk_sentences += sentences.back().sentences.size();
        }
        if (lines.empty()) break;
        const auto translations = translate_lines(translator, sentences, options.translate, &warnings, first);
        for (size_t i = 0; i < translations.size(); ++i) {
            const int64_t index = first - 1 + i;
            const TranslationResult result =
                merge_translation_results(translations[i].sentences, translations[i].separators, with_attention);
            write_result(output, options.format, index, result, lines[i]);
            if (options.alignments) write_result(options.alignments, OutputFormat::JsonLines, index, result, lines[i]);
            if (!options.svg_directory.empty()) write_svg(options.svg_directory, index, result);
            if (!result.hypotheses.empty()) stats.target_tokens += result.hypotheses[0].target_pieces.size();
        }
        flush(output, "translations");
        if (options.alignments) flush(options.alignments, "alignments");
        if (options.warn)
            for (const auto& w : warnings) options.warn(w);
        stats.lines += lines.size();
        stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (options.progress) options.progress(stats);
    }
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return stats;
}

}  // namespace nmt
