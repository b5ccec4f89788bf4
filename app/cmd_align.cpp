// nmt align: word alignments of given sentence pairs (a text and its human
// translation), from where the model looks when made to produce the
// translation; with --reverse-model, from both directions, symmetrised.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "decode/alignment_output.h"
#include "align/alignment_stream.h"
#include "commands.h"
#include "model_choice.h"
#include "core/error.h"
#include "io/input_file.h"
#include "core/onednn_context.h"
#include "io/output_file.h"
#include "align/statistical_aligner.h"
#include "stream_files.h"

namespace nmt::app {

namespace {

struct AlignCommand {
    ModelChoice model;
    std::string reverse_model, input, target, output, format = "pharaoh", symmetrize = "grow-diag-final-and";
    std::string svg_directory;
    int threads = 0, batch_size = 32;
    float threshold = 0;
    bool quiet = false, statistical = false, shifted = false, tokenized = false, overwrite = false;
    bool symmetrize_given = false;
};

int open_or_stdin(const std::string& path) { return path.empty() || path == "-" ? STDIN_FILENO : open_input(path); }

// The pairs' inputs, -i (stdin by default) and -r when given: checked against
// -o and the other inputs (models), opened, and closed when done.
struct PairFiles {
    PairFiles(const AlignCommand& o, std::vector<NamedFile> other_inputs) {
        other_inputs.push_back(standard_or_file("-i", o.input, STDIN_FILENO, "stdin"));
        if (!o.target.empty()) other_inputs.push_back(standard_or_file("-r", o.target, STDIN_FILENO, "stdin"));
        const NamedFile output = standard_or_file("-o", o.output, STDOUT_FILENO, "stdout");
        refuse_shared_files({output}, other_inputs);
        if (!o.overwrite) refuse_existing_outputs({output});
        if ((o.input.empty() || o.input == "-") && o.target == "-") throw Error("-i and -r cannot both be stdin");
        source_name = o.input.empty() || o.input == "-" ? "stdin" : o.input;
        target_name = o.target == "-" ? "stdin" : o.target;
        source_fd = open_or_stdin(o.input);
        target_fd = o.target.empty() ? -1 : open_or_stdin(o.target);
    }
    ~PairFiles() {
        for (int fd : {source_fd, target_fd})
            if (fd > STDIN_FILENO) ::close(fd);
    }
    PairFiles(const PairFiles&) = delete;
    PairFiles& operator=(const PairFiles&) = delete;

    int source_fd = -1, target_fd = -1;  // target -1: "source ||| target" lines
    std::string source_name, target_name;
};

// A line past a megabyte is cut there, as nmt translate cuts it.
const LineLimit kLineLimit{size_t(1) << 20, LineLimit::Longer::Truncate};

// Warnings name the pairs' file ("line 7: ..." of -i, or of -i and -r read in step).
std::function<void(const std::string&)> stderr_warnings(bool quiet, const PairFiles& files) {
    if (quiet) return {};
    const std::string where = files.target_fd < 0 ? files.source_name : files.source_name + " and " + files.target_name;
    return [where](const std::string& warning) {
        std::fprintf(stderr, "nmt: warning: %s: %s\n", where.c_str(), warning.c_str());
    };
}

// --statistical: no model; both directions trained on the pairs themselves,
// reading them once per EM iteration (stdin or a pipe is first kept in a
// temporary file), so memory holds the tables and not the corpus.
void run_statistical(const AlignCommand& o) {
    if (!o.model.model.empty() || !o.reverse_model.empty())
        throw Error("--statistical aligns without a model: drop -m and --reverse-model");
    if (o.format != "pharaoh") throw Error("--statistical writes Pharaoh links only (--format jsonl needs a model)");
    if (!o.svg_directory.empty()) throw Error("--alignment-svg draws a model's attention: --statistical has none");
    PairFiles files(o, {});
    // Read once per pass: a pipe is kept in a temporary file first.
    const int sources = seekable_input(files.source_fd, files.source_name);
    const int targets = files.target_fd < 0 ? -1 : seekable_input(files.target_fd, files.target_name);
    FilePairPasses pairs(sources, files.source_name, targets, files.target_name, kLineLimit,
                         stderr_warnings(o.quiet, files));
    const auto start = std::chrono::steady_clock::now();
    auto progress = [&](bool backward, const AlignerProgress& p) {
        if (o.quiet) return;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr,
                     "statistical aligner, %s: EM iteration %d of %d: log-likelihood %.4f per word, diagonal "
                     "tension %.2f (%lld pairs, %.0f s)\n",
                     backward ? "target to source" : "source to target", p.iteration, p.iterations,
                     p.target_words > 0 ? p.log_likelihood / static_cast<double>(p.target_words) : 0.0, p.tension,
                     static_cast<long long>(p.pairs), seconds);
    };
    const auto output = open_output(o.output);
    align_statistically(
        pairs, parse_symmetrization(o.symmetrize),
        [&](const Links& links) {
            if (std::fprintf(output->file(), "%s\n", pharaoh(links).c_str()) < 0) throw_write_error(output->name(), errno);
        },
        {}, progress);
    output->commit();
    for (auto [copy, original] : {std::pair{sources, files.source_fd}, std::pair{targets, files.target_fd}})
        if (copy != original) ::close(copy);  // a temporary copy of a pipe
}

void run(const AlignCommand& o) {
    if (o.symmetrize_given && !o.statistical && o.reverse_model.empty())
        throw Error("--symmetrize combines two directions' links: give --reverse-model MODEL or --statistical");
    if (o.statistical) return run_statistical(o);
    set_threads(o.threads);
    const std::string model_path = o.model.path();
    std::vector<NamedFile> models = {{"-m", model_path}};
    if (!o.reverse_model.empty()) models.push_back({"--reverse-model", o.reverse_model});
    PairFiles files(o, models);

    const Model model = load_model(model_path);
    o.model.check_languages(model.config, model_path);
    std::optional<Model> reverse;
    if (!o.reverse_model.empty()) {
        reverse.emplace(load_model(o.reverse_model));
        const ModelConfig &a = model.config, &b = reverse->config;
        const bool known = !a.source_language.empty() && !a.target_language.empty() && !b.source_language.empty() &&
                           !b.target_language.empty();
        if (known && (b.source_language != a.target_language || b.target_language != a.source_language))
            throw Error(o.reverse_model + ": translates " + reverse->config.source_language + "->" +
                        reverse->config.target_language + ", but --reverse-model must translate the other way from " +
                        model_path + " (" + model.config.source_language + "->" + model.config.target_language + ")");
    }
    Translator forward(model);
    std::optional<Translator> backward;
    if (reverse) backward.emplace(*reverse);

    AlignStreamOptions options;
    options.translate.batch_size = o.batch_size;
    // The JSON's normalized score ranks as nmt translate would rank this
    // translation: with the length penalty the model was tuned for.
    options.translate.search = with_model_defaults(options.translate.search, model);
    options.format = o.format == "jsonl" ? AlignFormat::JsonLines : AlignFormat::Pharaoh;
    options.symmetrization = parse_symmetrization(o.symmetrize);
    options.extraction.threshold = o.threshold;
    options.extraction.shifted = o.shifted;
    options.warn = stderr_warnings(o.quiet, files);
    options.tokenized = o.tokenized;
    options.svg_directory = o.svg_directory;
    if (!o.svg_directory.empty()) {  // refused before any output, not at the first picture
        std::error_code error;
        std::filesystem::create_directories(o.svg_directory, error);
        if (error) throw Error("--alignment-svg " + o.svg_directory + ": cannot create directory: " + error.message());
    }

    LineReader sources(files.source_fd, files.source_name, kLineLimit);
    std::optional<LineReader> targets;
    if (files.target_fd >= 0) targets.emplace(files.target_fd, files.target_name, kLineLimit);
    PairReader pairs(sources, targets ? &*targets : nullptr, files.source_name, files.target_name);
    const auto output = open_output(o.output);
    align_stream(forward, backward ? &*backward : nullptr, pairs, output->file(), options);
    output->commit();
}

}  // namespace

void add_align_command(CLI::App& app) {
    auto o = std::make_shared<AlignCommand>();
    auto* c = app.add_subcommand(
        "align", "Word alignments of sentence pairs: where the model looks when made to produce the given translation");
    add_model_choice(c, o->model, "Model translating source to target (default: the installed one for --from/--to)");
    c->add_option("-i,--input", o->input,
                  "Source sentences, one per line; without -r, lines 'source ||| target' (default: stdin)");
    c->add_option("-r,--target", o->target, "Their translations, line by line");
    c->add_option("-o,--output", o->output,
                  "Output file (default: stdout), written beside its name and put in place when all is aligned");
    c->add_flag("--overwrite", o->overwrite, "Replace an existing -o file");
    c->add_option("--reverse-model", o->reverse_model,
                  "A model translating target to source: align both ways and symmetrise");
    c->add_flag("--statistical", o->statistical,
                "No model: fast_align's IBM Model 2 with a diagonal prior, trained by EM on the pairs themselves in "
                "both directions and symmetrised (words: whitespace-separated tokens)");
    auto* symmetrize = c->add_option("--symmetrize", o->symmetrize,
                  "How both directions' links are combined (with --reverse-model or --statistical)")
        ->check(CLI::IsMember({"intersect", "union", "grow-diag", "grow-diag-final", "grow-diag-final-and"}))
        ->capture_default_str();
    c->add_option("--align-threshold", o->threshold,
                  "0: each target word to the source word it attends to most; above 0: every source word whose "
                  "attention reaches this weight (several links or none)")
        ->check(CLI::Range(0.0f, 1.0f))
        ->capture_default_str();
    c->add_flag("--shifted", o->shifted,
                "Read each target piece's links from the next step's attention (Chen et al. 2020)");
    c->add_flag("--tokenized", o->tokenized,
                "Both sides are space-separated tokens: links are over exactly those tokens (each encoded on its "
                "own), as gold files and other tools count them; --statistical always reads tokens so");
    c->add_option("--alignment-svg", o->svg_directory,
                  "Also write one word-attention heatmap SVG per pair into this directory (000001.svg, ...)");
    c->add_option("--format", o->format,
                  "pharaoh: 'i-j' links over words, source first; jsonl: nmt translate's JSON object for the given "
                  "translation (score, pieces, attention, alignment)")
        ->check(CLI::IsMember({"pharaoh", "jsonl"}))
        ->capture_default_str();
    c->add_option("--batch-size,--mini-batch", o->batch_size, "Pairs decoded together")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    c->add_option("--threads,--cpu-threads", o->threads, "CPU threads (default: OMP_NUM_THREADS or all cores)");
    c->add_flag("-q,--quiet", o->quiet, "No warnings on stderr");
    c->callback([o, symmetrize] {
        o->symmetrize_given = symmetrize->count() > 0;
        run(*o);
    });
}

}  // namespace nmt::app
