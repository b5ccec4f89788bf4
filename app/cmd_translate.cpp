// nmt translate: text in, translations out (stdin/stdout or files).
#include <fcntl.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "auto_source.h"
#include "commands.h"
#include "model_choice.h"
#include "core/error.h"
#include "io/input_file.h"
#include "model/model_catalog.h"
#include "core/onednn_context.h"
#include "io/output_file.h"
#include "stream_files.h"
#include "decode/precision.h"
#include "decode/translation_stream.h"
#include "formats/document_format.h"
#include "formats/model_segment_translator.h"
#include "formats/routed_segment_translator.h"

namespace nmt::app {

namespace {

struct TranslateCommand {
    ModelChoice model;
    std::string input, output, alignments, svg_directory, format = "text";
    std::string precision = "auto";
    std::string glossary;                       // --glossary FILE
    std::vector<std::string> do_not_translate;  // --do-not-translate REGEX, each
    int threads = 0;
    bool quiet = false, list_models = false, no_split = false, no_shortlist = false, overwrite = false;
    bool format_given = false, overwrite_translated = false;
    bool keep_target_language = false, verbose = false;
    bool length_penalty_given = false;  // else the model's tuned one (Model::decoding), if it has one
    StreamOptions stream;
};

// Opening an output truncates it: none may be an input (or another output).
std::vector<NamedFile> output_files(const TranslateCommand& o) {
    std::vector<NamedFile> outputs = {standard_or_file("-o", o.output, STDOUT_FILENO, "stdout")};
    if (!o.alignments.empty())
        outputs.push_back(standard_or_file("--alignments", o.alignments, STDOUT_FILENO, "stdout"));
    return outputs;
}

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

// Beam search turns factor * source length into an int: NaN, or a factor large
// enough to overflow it, would silently cap every translation at one piece,
// and a NaN penalty leaves hypotheses unordered.
void check_search_options(const SearchOptions& s) {
    if (!(s.max_length_factor >= 0 && s.max_length_factor <= 1000))
        throw Error("--max-length-factor must be from 0 to 1000, not " + number(s.max_length_factor));
    if (!std::isfinite(s.length_penalty))
        throw Error("--length-penalty must be a finite number, not " + number(s.length_penalty));
}

// Settings whose search cannot fit in this machine's memory are refused with
// the figure, before they grow for minutes and end in the OOM killer. Each
// batch translated at once needs that much: when several would not fit, the
// batches run one at a time.
// `widened_by_n_best`: the beam is --n-best's, which the message then names.
void check_search_memory(const ModelConfig& config, TranslateOptions& translate, bool widened_by_n_best) {
    const SearchOptions& search = translate.search;
    const double bound = static_cast<double>(search_memory_bound(config, search, translate.batch_size));
    const double physical = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGE_SIZE));
    if (physical <= 0) return;
    if (bound > 0.75 * physical) {
        char message[256];
        std::snprintf(message, sizeof message,
                      "%s %d with --batch-size %d may need up to %.1f GB for the search, and this machine has "
                      "%.1f GB: lower one of them",
                      widened_by_n_best ? "--n-best" : "--beam-size", search.beam_size, translate.batch_size,
                      bound / 1e9, physical / 1e9);
        throw Error(message);
    }
    const int at_once = translate.parallel_batches > 0 ? translate.parallel_batches : omp_get_max_threads();
    if (at_once * bound > 0.75 * physical) translate.parallel_batches = 1;
}

// The inputs an output must not be: `inputs` and --glossary's file.
std::vector<NamedFile> with_glossary(const TranslateCommand& o, std::vector<NamedFile> inputs) {
    if (!o.glossary.empty()) inputs.push_back({"--glossary", o.glossary});
    return inputs;
}

// --do-not-translate's expressions, compiled, and --glossary's file, read:
// before the model loads, so that a mistake in either is reported at once.
void prepare_terms(TranslateCommand& o) {
    TranslateOptions& translate = o.stream.translate;
    for (const std::string& expression : o.do_not_translate) {
        std::regex pattern;
        try {
            pattern = std::regex(expression, std::regex::ECMAScript | std::regex::optimize);
        } catch (const std::regex_error& e) {
            throw Error("--do-not-translate '" + expression + "': not a valid ECMAScript regular expression: " +
                        e.what());
        }
        // Empty matches would be spans of nothing, everywhere.
        if (std::regex_match(std::string(), pattern))
            throw Error("--do-not-translate '" + expression + "' matches the empty text: it must match at least one character");
        translate.placeholders.keep_verbatim.push_back(std::move(pattern));
    }
    if (!o.glossary.empty()) translate.glossary = std::make_shared<const Glossary>(Glossary::load(o.glossary));
}

// The document format to read the input as: --format's when it names one
// (text and jsonl name none), else the one -i's extension chooses.
const DocumentFormat* document_format(const TranslateCommand& o) {
    if (o.format_given) return find_document_format(o.format);
    if (!o.input.empty() && o.input != "-") return document_format_for_file(o.input);
    return nullptr;
}

// A document is read whole (its segments translate in one call), so it is
// bounded: past kMaxDocumentBytes it is refused rather than read.
std::string read_document(int fd, const std::string& name) {
    std::string text;
    char buffer[1 << 16];
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw Error(name + ": cannot read: " + std::strerror(errno));
        if (n == 0) return text;
        if (text.size() + static_cast<size_t>(n) > kMaxDocumentBytes)
            throw Error(name + ": larger than " + std::to_string(kMaxDocumentBytes >> 20) +
                        " MB; a document is translated whole, so split it (or use --format text for lines)");
        text.append(buffer, static_cast<size_t>(n));
    }
}

void warn_line(const std::string& w) { std::fprintf(stderr, "nmt: warning: %s\n", w.c_str()); }

// The whole document read, translated, and only then written: a refused
// input leaves no output behind. `segments_for` gives the translator of the
// document's segments (the model's, or --from auto's router).
void translate_document(const DocumentFormat& format, TranslateCommand& o,
                        const std::function<std::unique_ptr<SegmentTranslator>(const std::string& name)>& segments_for,
                        const std::string& source_language, const std::string& target_language) {
    if (o.stream.translate.search.n_best > 1 || !o.alignments.empty() || !o.svg_directory.empty())
        throw Error("--n-best, --alignments and --alignment-svg are for lines, not --format " + format.name);
    const std::function<void(const std::string&)> warn = o.quiet ? std::function<void(const std::string&)>() : warn_line;
    const bool from_stdin = o.input.empty() || o.input == "-";
    const std::string name = from_stdin ? "stdin" : o.input;
    const int fd = from_stdin ? STDIN_FILENO : open_input(o.input);
    const std::string text = read_document(fd, name);
    if (fd != STDIN_FILENO) ::close(fd);
    const auto output = open_output(o.output);  // before translating: an unwritable -o fails at once
    const auto segments = segments_for(name);
    DocumentOptions options;
    options.source_language = source_language;
    options.target_language = target_language;
    options.overwrite_translated = o.overwrite_translated;
    options.warn = warn;
    const std::string translated = format.translate(text, name, *segments, options);
    if (std::fwrite(translated.data(), 1, translated.size(), output->file()) != translated.size())
        throw_write_error(output->name(), errno);
    output->commit();
    exit_without_teardown();
}

// The search settings of one loaded model: its tuned length penalty unless
// one was given, a beam wide enough for --n-best, and the memory checks.
TranslateOptions prepared_options(const TranslateCommand& o, const Model& model) {
    TranslateOptions translate = o.stream.translate;
    SearchOptions& search = translate.search;
    if (!o.length_penalty_given) search = with_model_defaults(search, model);
    // An n-best list of N needs a beam of at least N: widened before the
    // memory check, which must see the beam that will really be searched.
    const bool widened_by_n_best = search.n_best > search.beam_size;
    if (widened_by_n_best) search.beam_size = search.n_best;
    check_search_options(search);
    check_search_memory(model.config, translate, widened_by_n_best);
    translate.use_shortlist = !o.no_shortlist;
    return translate;
}

// Lines in, one line out per line: `translate` runs the stream over the
// reader and output this opens.
void translate_lines_of(TranslateCommand& o,
                        const std::function<StreamStats(LineReader&, std::FILE*, const StreamOptions&)>& translate) {
    const int fd = o.input.empty() || o.input == "-" ? STDIN_FILENO : open_input(o.input);
    // A line past a megabyte (thousands of sentences) is cut there, so that
    // `nmt translate -i /dev/zero` cannot eat memory; the rest is skipped.
    LineReader reader(fd, o.input.empty() ? "stdin" : o.input,
                      LineLimit{size_t(1) << 20, LineLimit::Longer::Truncate});
    // Every output opened before anything is written: one that cannot be
    // opened leaves the others as they were.
    const auto output = open_output(o.output);
    const auto alignments = o.alignments.empty() ? nullptr : open_output(o.alignments);

    StreamOptions& s = o.stream;
    s.format = o.format == "jsonl" ? OutputFormat::JsonLines
               : s.translate.search.n_best > 1 ? OutputFormat::NBest
                                              : OutputFormat::Text;
    s.alignments = alignments ? alignments->file() : nullptr;
    s.svg_directory = o.svg_directory;
    s.split_sentences = !o.no_split;
    s.translate.use_shortlist = !o.no_shortlist;
    if (!o.quiet) s.warn = warn_line;
    const bool progress = !o.quiet && fd != STDIN_FILENO && ::isatty(STDERR_FILENO);  // files, on a terminal
    if (progress)
        s.progress = [](const StreamStats& so_far) {
            std::fprintf(stderr, "\r%lld lines, %.1f lines/s", static_cast<long long>(so_far.lines),
                         so_far.lines / so_far.seconds);
        };
    const StreamStats stats = translate(reader, output->file(), s);
    if (fd != STDIN_FILENO) ::close(fd);
    output->commit();
    if (alignments) alignments->commit();
    if (progress)
        std::fprintf(stderr, "\ntranslated %lld lines in %.2f s (%.1f lines/s, %.0f target tokens/s)\n",
                     static_cast<long long>(stats.lines), stats.seconds, stats.lines / stats.seconds,
                     stats.target_tokens / stats.seconds);
    exit_without_teardown();
}

// "fr -> fr-en", "en, passed through": what -v says of a route.
std::string route_report(const LanguageRoute& route) {
    if (route.language.empty())
        return route.note.empty() ? "nothing to detect, passed through" : "no known language, passed through";
    return route.language + (route.model ? " -> " + route.model->name : ", passed through");
}

// --from auto: each line (each document) goes to the installed model of the
// language it is detected in.
void run_detecting(TranslateCommand& o, Precision precision) {
    if (!o.model.model.empty())
        throw Error("--from auto chooses among the installed models; it cannot be used with -m (give --from instead)");
    const auto models = installed_models();
    const std::string target = o.model.to.empty() ? auto_target_language(models, o.model.domain) : o.model.to;
    const bool any_into_target = std::any_of(models.begin(), models.end(), [&](const InstalledModel& m) {
        return m.target_language == target && m.domain == o.model.domain;
    });
    if (!any_into_target)
        throw Error("--from auto --to " + target + ": no installed model translates into " + target +
                    (o.model.domain.empty() ? "" : " in domain " + o.model.domain) + " (see --list-models)");
    refuse_shared_files(output_files(o), with_glossary(o, {standard_or_file("-i", o.input, STDIN_FILENO, "stdin")}));
    if (!o.overwrite) refuse_existing_outputs(output_files(o));
    const bool verbose = o.verbose;
    LazyModels lazy(
        models, target, o.model.domain, precision == Precision::Int8,
        [&o](const Model& model, const std::string&) { return prepared_options(o, model); },
        [verbose](const std::string& name, const std::string& path) {
            if (verbose) std::fprintf(stderr, "nmt: loaded %s (%s)\n", name.c_str(), path.c_str());
        });
    LanguageRouter router(model_languages(models, o.model.domain, target), target,
                          [&lazy](const std::string& source) { return lazy.model_for(source); },
                          o.keep_target_language);
    if (const DocumentFormat* format = document_format(o)) {
        const auto segments_for = [&](const std::string& name) -> std::unique_ptr<SegmentTranslator> {
            auto routed = std::make_unique<RoutedSegmentTranslator>(router, !o.no_split);
            if (!o.quiet) routed->warn = warn_line;
            routed->on_route = [&o, name](const LanguageRoute& route) {
                if (o.verbose) std::fprintf(stderr, "nmt: %s: %s\n", name.c_str(), route_report(route).c_str());
                if (!o.quiet && !route.note.empty()) warn_line(name + ": " + route.note);
            };
            return routed;
        };
        translate_document(*format, o, segments_for, "", target);
    }
    if (o.verbose)
        o.stream.on_route = [](int64_t line, const LanguageRoute& route) {
            std::fprintf(stderr, "nmt: line %lld: %s\n", static_cast<long long>(line), route_report(route).c_str());
        };
    translate_lines_of(o, [&router](LineReader& reader, std::FILE* output, const StreamOptions& s) {
        return translate_stream(router, reader, output, s);
    });
}

void run(TranslateCommand& o) {
    if (o.list_models) {
        const auto models = installed_models();
        if (models.empty()) std::printf("no models installed (searched $NMT_MODELS and models/ directories)\n");
        for (const auto& m : models) std::printf("%s\t%s\n", m.name().c_str(), m.path.c_str());
        return;
    }
    if (o.keep_target_language && o.model.from != "auto")
        throw Error("--keep-target-language is for --from auto (a fixed --from translates every line)");
    set_threads(o.threads);
    const Precision precision = parse_precision(o.precision);
    // fp32's gemm kernels compile on another thread while the model loads;
    // a model loaded for int8 compiles int8's itself, as it loads.
    const auto gemm_kernels = precision == Precision::Int8 ? std::future<void>() : prepare_fp32_gemm_kernels();
    prepare_terms(o);
    if (o.model.from == "auto") return run_detecting(o, precision);
    const std::string model_path = o.model.path();
    refuse_shared_files(output_files(o), with_glossary(o, {standard_or_file("-i", o.input, STDIN_FILENO, "stdin"),
                                                           {"-m", model_path}}));
    if (!o.overwrite) refuse_existing_outputs(output_files(o));
    Model model = load_model(model_path, precision == Precision::Int8);  // quantised as it loads
    o.model.check_languages(model.config, model_path);
    o.stream.translate = prepared_options(o, model);
    Translator translator(model);
    if (const DocumentFormat* format = document_format(o)) {
        const ModelConfig& config = model.config;
        const auto segments_for = [&](const std::string&) -> std::unique_ptr<SegmentTranslator> {
            auto segments = std::make_unique<ModelSegmentTranslator>(translator, o.stream.translate, !o.no_split);
            if (!o.quiet) segments->warn = warn_line;
            return segments;
        };
        translate_document(*format, o, segments_for, o.model.from.empty() ? config.source_language : o.model.from,
                           o.model.to.empty() ? config.target_language : o.model.to);
    }
    translate_lines_of(o, [&translator](LineReader& reader, std::FILE* output, const StreamOptions& s) {
        return translate_stream(translator, reader, output, s);
    });
}

}  // namespace

void add_translate_command(CLI::App& app) {
    auto o = std::make_shared<TranslateCommand>();
    auto* c = app.add_subcommand("translate", "Translate text: one output line per input line, in order");
    auto& search = o->stream.translate.search;
    add_model_choice(c, o->model, "Model file (default: the installed model for --from/--to, else en->fr)");
    c->add_option("--domain", o->model.domain,
                  "Pick the installed model of a domain (e.g. captions: SRC-TGT.captions.nmt) instead of the general one");
    c->add_flag("--list-models", o->list_models, "List the installed models and exit");
    c->add_option("-i,--input", o->input, "Input file (default: stdin)");
    c->add_option("-o,--output", o->output,
                  "Output file (default: stdout), written beside its name and put in place when all is translated");
    c->add_flag("--overwrite", o->overwrite, "Replace an existing -o or --alignments file");
    c->add_option("-b,--beam-size", search.beam_size, "Beam size (1 = greedy)")->check(CLI::Range(1, 1000))->capture_default_str();
    c->add_option("--n-best", search.n_best,
                  "Print the N best hypotheses per line in Moses format: id ||| hypothesis ||| F0= score ||| normalized")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    auto* penalty = c->add_option("--length-penalty,--normalize", search.length_penalty,
                                  "alpha of GNMT's length penalty: rank by score / ((5 + length) / 6)^alpha "
                                  "(default: the model's tuned value, else 0.6)");
    c->add_option("--max-length-factor", search.max_length_factor,
                  "Stop hypotheses at factor * source pieces + 5 target pieces")
        ->capture_default_str();
    c->add_option("--batch-size,--mini-batch", o->stream.translate.batch_size, "Sentences decoded together")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    c->add_option("--precision", o->precision,
                  "Arithmetic of the encoder's and decoder's products: fp32, int8 (8-bit integer products, faster "
                  "on CPUs with AVX2 or better, within a few tenths of BLEU), or auto: int8 where the CPU has AVX2, "
                  "else fp32")
        ->check(CLI::IsMember({"auto", "fp32", "int8"}))
        ->capture_default_str();
    c->add_flag("--no-shortlist", o->no_shortlist,
                "Score the whole target vocabulary at each step, even where the model has a lexical shortlist");
    c->add_option("--threads,--cpu-threads", o->threads, "CPU threads (default: OMP_NUM_THREADS or all cores)");
    c->add_option("--parallel-batches", o->stream.translate.parallel_batches,
                  "When several batches are waiting (a file), translate up to this many at once, each on one "
                  "thread (0: one per thread; 1: one batch at a time on all threads). The same batches, so the same "
                  "translations as --threads 1")
        ->check(CLI::Range(0, 256))
        ->capture_default_str();
    std::vector<std::string> formats = {"text", "jsonl"};
    std::string format_help =
        "text: translations, one line per line; jsonl: one JSON object per line with alignments";
    for (const auto& format : document_formats()) {
        formats.push_back(format.name);
        format_help += "; " + format.name + ": " + format.description;
    }
    format_help += ". Default: the format -i's extension names (";
    for (const auto& format : document_formats())
        for (const auto& extension : format.extensions) format_help += extension + " ";
    format_help.back() = ')';
    format_help += ", else text";
    auto* format = c->add_option("--format", o->format, format_help)->check(CLI::IsMember(formats))->capture_default_str();
    c->add_flag("--overwrite-translated", o->overwrite_translated,
                "--format po: translate messages that already have a translation too (default: keep them)");
    c->add_option("--alignments", o->alignments,
                  "Also write JSON Lines with tokens, scores and attention matrices (pieces and words) to this file");
    c->add_option("--alignment-svg", o->svg_directory, "Also write one attention heatmap SVG per line into this directory");
    c->add_flag("--no-split", o->no_split,
                "Translate each line whole. By default a line of several sentences is translated sentence by "
                "sentence and rejoined with its original spacing (never with --n-best above 1)");
    c->add_flag("!--no-placeholder-repair", o->stream.translate.repair_placeholders,
                "Print the model's own text even where it lost or garbled a placeholder or tag of the source "
                "(%s, {name}, <b>, URLs), instead of restoring them");
    c->add_flag("--keep-target-language", o->keep_target_language,
                "--from auto: pass a line (document) already in the --to language through unchanged without a "
                "warning");
    c->add_flag("-v,--verbose", o->verbose,
                "--from auto: report on stderr the language detected for each line (document) and the model chosen");
    c->add_option("--glossary", o->glossary,
                  "TSV file of terms, one a line: source<TAB>target[<TAB>case-sensitive]; each source term found "
                  "(whole words, any case unless the line says case-sensitive) comes out as its target term, put in "
                  "place of the words the model aligned to it");
    c->add_option("--do-not-translate", o->do_not_translate,
                  "Regular expression (ECMAScript syntax) for spans of the input to keep verbatim: names, product "
                  "names, identifiers; each comes out as written, in place of the words the model aligned to it. "
                  "Repeat for several")
        ->take_all()
        ->allow_extra_args(false);
    c->add_flag("-q,--quiet", o->quiet, "No warnings or progress on stderr");
    c->callback([o, penalty, format] {
        o->length_penalty_given = penalty->count() > 0;
        o->format_given = format->count() > 0;
        run(*o);
    });
}

}  // namespace nmt::app
