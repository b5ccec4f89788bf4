// nmt bench: decoding speed of a model on a file, for several beam and batch
// sizes in one run, so figures are comparable with each other.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "decode/sentence_split.h"
#include "train/corpus.h"
#include "core/error.h"
#include "io/input_file.h"
#include "core/onednn_context.h"
#include "train/training_step.h"
#include "decode/precision.h"
#include "eval/bleu.h"
#include "decode/translator.h"

namespace nmt::app {

namespace {

struct BenchOptions {
    std::string model, input, target;  // target: training mode (source = input)
    std::string reference;             // decoding mode: BLEU of each setting's translations
    int64_t batch_tokens = 2000, steps = 20;
    std::vector<int> beams = {1, 5}, batches = {1, 32};
    std::vector<int> parallel = {0};  // batches translated at once (TranslateOptions::parallel_batches)
    std::vector<std::string> precisions = {"fp32", "int8"};
    int threads = 2, lines = 0, repeat = 1;
    bool json = false;
};

// Training speed (train/training_step.h).
void run_training(const BenchOptions& o) {
    Model model = load_model(o.model);
    const Corpus corpus = read_corpus(o.input, o.target, model.source_vocab, model.target_vocab, CorpusOptions{});
    if (corpus.pairs.empty()) throw Error(o.input + " / " + o.target + ": no training pairs to measure");
    const TrainingSpeed speed = measure_training_speed(model, corpus, o.batch_tokens, o.steps);
    if (o.json)
        std::cout << nlohmann::json{{"mode", "train"},         {"threads", o.threads},
                                    {"steps", speed.steps},     {"target_tokens", speed.target_tokens},
                                    {"seconds", speed.seconds}, {"target_tokens_per_s", speed.tokens_per_second()}}
                         .dump()
                  << std::endl;
    else
        std::cout << "model " << o.model << ", " << o.threads << " threads, " << speed.steps << " steps of about "
                  << o.batch_tokens << " target tokens: " << static_cast<int64_t>(speed.tokens_per_second())
                  << " target tokens/s\n";
}

// The best translation of each line.
std::vector<std::vector<int>> best_ids(const std::vector<TranslationResult>& results) {
    std::vector<std::vector<int>> ids;
    for (const auto& r : results) ids.push_back(r.hypotheses.empty() ? std::vector<int>{} : r.hypotheses[0].target_ids);
    return ids;
}

// How many of the pieces the full search chose (`full`: per line) the
// shortlist offers for that line alone: the pieces a shortlist can cost.
std::string shortlist_coverage(const Model& model, const std::vector<std::string>& lines,
                               const std::vector<std::vector<int>>& full) {
    int64_t chosen = 0, missing = 0, lines_missing = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        std::vector<int> source = model.source_vocab.encode(lines[i]);
        source.push_back(model.source_vocab.eos_id());
        const std::vector<int> candidates = model.shortlist.candidates({source}, {model.target_vocab.eos_id()});
        int64_t outside = 0;
        for (int id : full[i]) outside += !std::binary_search(candidates.begin(), candidates.end(), id);
        chosen += static_cast<int64_t>(full[i].size());
        missing += outside;
        lines_missing += outside > 0;
    }
    char text[256];
    std::snprintf(text, sizeof text,
                  "shortlist coverage: %lld of the %lld pieces the full search chose are candidates (%.2f%%); "
                  "%lld of %zu lines chose a piece outside their shortlist",
                  static_cast<long long>(chosen - missing), static_cast<long long>(chosen),
                  chosen ? 100.0 * (chosen - missing) / chosen : 100.0, static_cast<long long>(lines_missing),
                  lines.size());
    return text;
}

// One setting's measurement: the fastest of o.repeat runs over the lines.
struct BenchRow {
    std::string precision;
    bool shortlist = false;
    int beam = 0, batch = 0, at_once = 0;  // at_once: batches translated at once
    double seconds = 0;
    int64_t sentences = 0, target_tokens = 0;
    double bleu = -1;  // -1: no reference
};

BenchRow time_setting(Translator& translator, const std::vector<std::string>& lines,
                      const std::vector<std::string>& references, const TranslateOptions& options,
                      std::vector<TranslationResult>& results, int repeat) {
    BenchRow row;
    row.seconds = 1e30;
    row.sentences = static_cast<int64_t>(lines.size());
    translator.translate({lines.front()}, options);  // warm-up: primitive creation, page faults
    for (int r = 0; r < repeat; ++r) {
        const auto start = std::chrono::steady_clock::now();
        results = translator.translate(lines, options);
        row.seconds = std::min(row.seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    for (const auto& res : results)
        if (!res.hypotheses.empty()) row.target_tokens += res.hypotheses[0].target_pieces.size();
    if (!references.empty()) {
        std::vector<std::string> hypotheses;
        for (const auto& res : results) hypotheses.push_back(res.hypotheses.empty() ? "" : res.hypotheses[0].translation);
        row.bleu = corpus_bleu(hypotheses, {references}, BleuOptions{}).score;
    }
    return row;
}

void print_row(const BenchRow& r, const BenchOptions& o) {
    const double sentences_per_s = r.sentences / r.seconds, tokens_per_s = r.target_tokens / r.seconds;
    if (o.json) {
        nlohmann::json row{{"precision", r.precision}, {"shortlist", r.shortlist},
                           {"beam", r.beam},           {"batch", r.batch},
                           {"parallel_batches", r.at_once}, {"threads", o.threads},
                           {"sentences", r.sentences}, {"seconds", r.seconds},
                           {"sentences_per_s", sentences_per_s}, {"target_tokens_per_s", tokens_per_s}};
        if (r.bleu >= 0) row["bleu"] = r.bleu;
        std::cout << row.dump() << std::endl;
        return;
    }
    const std::string setting = r.precision + (r.shortlist ? "+shortlist" : "");
    char text[160];
    std::snprintf(text, sizeof text, "%-14s  %4d  %5d  %7d  %11.1f  %15.0f  %11.2f", setting.c_str(), r.beam, r.batch,
                  r.at_once, sentences_per_s, tokens_per_s, 1000.0 * r.seconds / r.sentences);
    std::cout << text;
    if (r.bleu >= 0) {
        std::snprintf(text, sizeof text, "  %5.2f", r.bleu);
        std::cout << text;
    }
    std::cout << std::endl;
}

// One row per beam size, batch size and number of batches at once, for a
// translator of one precision; the best translations of the last setting's
// run come back.
std::vector<TranslationResult> measure(Translator& translator, const std::vector<std::string>& lines,
                                       const std::vector<std::string>& references, const std::string& precision,
                                       bool shortlist, const BenchOptions& o) {
    std::vector<TranslationResult> results;
    for (int beam : o.beams)
        for (int batch : o.batches)
            for (int parallel : o.parallel) {
                TranslateOptions options;
                options.search = with_model_defaults(options.search, translator.model());  // as nmt translate does
                options.search.beam_size = beam;
                options.batch_size = batch;
                options.use_shortlist = shortlist;
                options.parallel_batches = parallel;
                BenchRow row = time_setting(translator, lines, references, options, results, o.repeat);
                row.precision = precision;
                row.shortlist = shortlist;
                row.beam = beam;
                row.batch = batch;
                // What the translator does: that many, or one per thread (fewer when there are fewer batches).
                const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
                const int batches = static_cast<int>((lines.size() + batch - 1) / batch);
                row.at_once = std::min(parallel > 0 ? parallel : threads, batches);
                print_row(row, o);
            }
    return results;
}

void run(const BenchOptions& o) {
    set_threads(o.threads);
    if (!o.target.empty()) return run_training(o);
    Model model = load_model(o.model);
    const auto lines = read_clean_lines(o.input, std::max(o.lines, 0));
    if (lines.empty()) throw Error(o.input + ": no lines to translate");
    // Empty lines translate to nothing in no time: a file of them would report
    // millions of sentences a second.
    if (std::all_of(lines.begin(), lines.end(), [](const std::string& line) { return split_sentences(line).empty(); }))
        throw Error(o.input + ": no text to translate (all " + std::to_string(lines.size()) + " lines are blank)");
    std::vector<std::string> references;
    if (!o.reference.empty()) {
        references = read_clean_lines(o.reference, std::max(o.lines, 0));
        if (references.size() != lines.size())
            throw Error(o.reference + " has " + std::to_string(references.size()) + " lines, " + o.input + " " +
                        std::to_string(lines.size()));
    }
    if (!o.json)
        std::cout << "model " << o.model << ", " << lines.size() << " lines of " << o.input << ", " << o.threads
                  << " threads\n"
                  << "precision       beam  batch  at once  sentences/s  target tokens/s  ms/sentence"
                  << (references.empty() ? "" : "   BLEU") << "\n";
    // Each precision without, then (when the model has one) with its shortlist;
    // the full search's choices (last beam and batch size) tell how many
    // pieces the shortlist leaves out.
    std::string coverage;
    for (const std::string& precision : o.precisions) {
        set_decoding_precision(model, parse_precision(precision));
        Translator translator(model);
        const auto full = measure(translator, lines, references, precision, false, o);
        if (model.shortlist.empty()) continue;
        if (coverage.empty()) coverage = shortlist_coverage(model, lines, best_ids(full));
        measure(translator, lines, references, precision, true, o);
    }
    if (!coverage.empty() && !o.json) std::cout << coverage << " (beam " << o.beams.back() << ")\n";
}

}  // namespace

void add_bench_command(CLI::App& app) {
    auto o = std::make_shared<BenchOptions>();
    auto* c = app.add_subcommand("bench", "Measure decoding speed (sentences/s, target tokens/s), or training speed");
    c->add_option("-m,--model", o->model, "Model file")->required();
    c->add_option("-i,--input", o->input, "Source sentences, one per line")->required();
    c->add_option("--beam-sizes", o->beams, "Beam sizes to measure")
        ->delimiter(',')
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    c->add_option("--batch-sizes", o->batches, "Batch sizes to measure")
        ->delimiter(',')
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    c->add_option("--parallel-batches", o->parallel,
                  "Batches translated at once, each on one thread, to measure (0: one per thread, as nmt "
                  "translate does; 1: one batch at a time on all threads)")
        ->delimiter(',')
        ->check(CLI::Range(0, 256))
        ->capture_default_str();
    c->add_option("--precisions", o->precisions, "Decoding precisions to measure (fp32, int8)")
        ->delimiter(',')
        ->check(CLI::IsMember({"fp32", "int8"}))
        ->capture_default_str();
    c->add_option("--threads", o->threads, "CPU threads")->capture_default_str();
    c->add_option("--lines", o->lines, "Use only the first N lines (0 = all)")->capture_default_str();
    c->add_option("--repeat", o->repeat, "Runs per setting; the fastest counts")->capture_default_str();
    c->add_flag("--json", o->json, "One JSON object per setting");
    c->add_option("-r,--reference", o->reference, "Reference translations of the input: adds each setting's BLEU");
    c->add_option("--train-target", o->target,
                  "Measure training instead: -i is the source side, this the target side of a parallel corpus");
    c->add_option("--batch-tokens", o->batch_tokens, "Training mode: target tokens per batch")->capture_default_str();
    c->add_option("--steps", o->steps, "Training mode: timed steps (after two warm-up steps)")->capture_default_str();
    c->callback([o] { run(*o); });
}

}  // namespace nmt::app
