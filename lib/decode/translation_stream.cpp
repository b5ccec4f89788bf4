#include "decode/translation_stream.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>

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

// `route`: the line's, with --from auto (its language goes into the JSON).
void write_result(std::FILE* out, OutputFormat format, int64_t index, const TranslationResult& r,
                  const std::string& source, const LanguageRoute* route) {
    switch (format) {
        case OutputFormat::Text:
            write_line(out, r.hypotheses.empty() ? "" : r.hypotheses[0].translation);
            break;
        case OutputFormat::NBest:
            if (r.hypotheses.empty()) write_line(out, nbest_line(index, Hypothesis{}));
            for (const auto& h : r.hypotheses) write_line(out, nbest_line(index, h));
            break;
        case OutputFormat::JsonLines: {
            nlohmann::json object = alignment_json(index, r, source);
            if (route) {
                object["source_language"] = route->language.empty() ? nlohmann::json() : nlohmann::json(route->language);
                object["passed_through"] = route->model == nullptr;
            }
            write_line(out, object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
            break;
        }
    }
}

void write_svg(const std::string& directory, int64_t index, const TranslationResult& r) {
    if (r.hypotheses.empty()) return;
    const auto& h = r.hypotheses[0];
    const WordAttention words = word_attention(r.source_pieces, h.target_pieces, h.attention);
    write_alignment_svg_file(directory, index + 1, word_texts(words.source), word_texts(words.target), words.weights,
                             "line " + std::to_string(index + 1) + ": " + h.translation);
}

// A line written as it came: the translation is the line itself, with no
// pieces (no model saw it).
TranslationResult passed_through(const std::string& line) {
    TranslationResult r;
    r.hypotheses.emplace_back();
    r.hypotheses[0].translation = line;
    return r;
}

// One result per line: the lines of each model translated together (one
// batch per model), the others passed through; results in input order.
std::vector<TranslationResult> translate_routed(const std::vector<LanguageRoute>& routes,
                                                const std::vector<std::string>& lines,
                                                const std::vector<LineSentences>& sentences, int64_t first,
                                                bool with_attention, std::vector<std::string>* warnings) {
    std::vector<TranslationResult> results(lines.size());
    std::vector<bool> done(lines.size(), false);
    for (size_t i = 0; i < lines.size(); ++i) {
        if (done[i]) continue;
        const RoutedModel* model = routes[i].model;
        if (!model) {
            results[i] = passed_through(lines[i]);
            done[i] = true;
            continue;
        }
        std::vector<size_t> group;
        std::vector<LineSentences> group_sentences;
        std::vector<int64_t> numbers;
        for (size_t j = i; j < lines.size(); ++j)
            if (!done[j] && routes[j].model == model) {
                group.push_back(j);
                group_sentences.push_back(sentences[j]);
                numbers.push_back(first + static_cast<int64_t>(j));
            }
        const auto translations =
            translate_lines(*model->translator, group_sentences, model->options, warnings, numbers);
        for (size_t k = 0; k < group.size(); ++k) {
            results[group[k]] =
                merge_translation_results(translations[k].sentences, translations[k].separators, with_attention);
            done[group[k]] = true;
        }
    }
    return results;
}

using RouteLine = std::function<LanguageRoute(const std::string& line)>;

// The loop both translate_streams share. `routed`: routes come from language
// detection (warnings, on_route and the JSON fields apply).
StreamStats run_stream(const RouteLine& route_line, bool routed, LineReader& input, std::FILE* output,
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
    std::vector<LanguageRoute> routes;
    std::string line;
    bool more = true;
    while (more) {
        lines.clear();
        sentences.clear();
        warnings.clear();
        routes.clear();
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
            routes.push_back(route_line(lines.back()));
            if (routed && !routes.back().note.empty())
                warnings.push_back("line " + std::to_string(number) + ": " + routes.back().note);
            if (routed && options.on_route) options.on_route(number, routes.back());
        }
        if (lines.empty()) break;
        const auto results = translate_routed(routes, lines, sentences, first, with_attention, &warnings);
        for (size_t i = 0; i < results.size(); ++i) {
            const int64_t index = first - 1 + i;
            const TranslationResult& result = results[i];
            const LanguageRoute* route = routed ? &routes[i] : nullptr;
            write_result(output, options.format, index, result, lines[i], route);
            if (options.alignments)
                write_result(options.alignments, OutputFormat::JsonLines, index, result, lines[i], route);
            if (!options.svg_directory.empty() && routes[i].model) write_svg(options.svg_directory, index, result);
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

}  // namespace

StreamStats translate_stream(Translator& translator, LineReader& input, std::FILE* output,
                             const StreamOptions& options) {
    RoutedModel model{&translator, options.translate, ""};
    LanguageRoute every_line;
    every_line.model = &model;
    return run_stream([&](const std::string&) { return every_line; }, false, input, output, options);
}

StreamStats translate_stream(LanguageRouter& router, LineReader& input, std::FILE* output,
                             const StreamOptions& options) {
    return run_stream([&](const std::string& line) { return router.route(line); }, true, input, output, options);
}

}  // namespace nmt
