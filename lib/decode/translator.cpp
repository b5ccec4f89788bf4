#include "decode/translator.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <numeric>

#include "decode/alignment_output.h"
#include "decode/decoder_steps.h"
#include "core/error.h"
#include "decode/forced_decoding.h"
#include "decode/placeholders.h"
#include "decode/source_encoding.h"
#include "decode/term_forcing.h"

namespace nmt {

SearchOptions with_model_defaults(SearchOptions search, const Model& model) {
    if (model.decoding.contains("length_penalty"))
        search.length_penalty = model.decoding.at("length_penalty").get<float>();
    return search;
}

uint64_t search_memory_bound(const ModelConfig& config, const SearchOptions& search, int batch_size) {
    const double rows = double(std::max(1, batch_size)) * std::max(1, search.beam_size);
    const double source = config.max_source_pieces;
    const double target = std::min(100000.0, std::ceil(double(search.max_length_factor) * source) +
                                                 std::max(0, search.max_length_extra));
    const double per_step = 2.0 * config.target_vocab_size + 8.0 * config.dim_dec + 2.0 * config.dim_context();
    const double per_row = 4.0 * (per_step + source * target);
    return static_cast<uint64_t>(std::min(rows * per_row, 1.8e19));
}

Translator::Translator(const Model& model) : model_(model) { workers_.push_back(std::make_unique<Worker>(model)); }

std::vector<int> Translator::source_ids(const std::string& line, int64_t line_number,
                                        std::vector<std::string>* warnings) const {
    SourceIds source = encode_source(model_.source_vocab, model_.config.max_source_pieces, line);
    // One wording whichever way the excess was found (bytes or pieces),
    // naming the limit as the model's config and README do.
    if (source.cropped && warnings) warnings->push_back(cropped_warning(line_number, model_.config.max_source_pieces));
    return std::move(source.ids);
}

std::string Translator::cropped_warning(int64_t line_number, int max_source_pieces) {
    return "line " + std::to_string(line_number) + ": longer than the model's limit of " +
           std::to_string(max_source_pieces) + " pieces (end of sentence included); the rest is cropped";
}

std::vector<TranslationResult> Translator::translate(const std::vector<std::string>& lines,
                                                     const TranslateOptions& options,
                                                     std::vector<std::string>* warnings, int64_t first_line) {
    std::vector<std::vector<int>> ids(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) ids[i] = source_ids(lines[i], first_line + i, warnings);
    auto results = translate_ids(ids, options);
    if (options.repair_placeholders)
        for (size_t i = 0; i < lines.size(); ++i) repair_placeholders(lines[i], results[i]);
    const bool glossary = options.glossary && !options.glossary->empty();
    if (glossary || !options.placeholders.keep_verbatim.empty()) {
        static const Glossary no_terms;
        for (size_t i = 0; i < lines.size(); ++i)
            force_user_terms(lines[i], results[i], glossary ? *options.glossary : no_terms, options.placeholders);
    }
    return results;
}

void Translator::repair_placeholders(const std::string& line, TranslationResult& result) {
    const bool source_has_some = !find_placeholders(line).empty();
    for (auto& h : result.hypotheses) {
        if (!source_has_some && find_placeholders(h.translation).empty()) continue;
        const WordAttention words = h.attention.empty() ? WordAttention{}
                                                        : word_attention(result.source_pieces, h.target_pieces, h.attention);
        h.translation = restore_placeholders(line, h.translation, &words);
    }
}

void Translator::force_user_terms(const std::string& line, TranslationResult& result, const Glossary& glossary,
                                  const PlaceholderOptions& placeholders) {
    if (result.hypotheses.empty()) return;
    if (glossary.find(line).empty() && verbatim_spans(line, placeholders).empty()) return;
    for (auto& h : result.hypotheses) {
        const WordAttention words = h.attention.empty() ? WordAttention{}
                                                        : word_attention(result.source_pieces, h.target_pieces, h.attention);
        h.translation = force_terms(line, h.translation, glossary, &words, placeholders);
    }
}

namespace {

// The non-empty sources, longest first (each batch pads little and the
// slowest batch starts early), in batches of `batch_size`, their results
// pointing into `results`. An empty source keeps an empty result.
template <typename Batch>
std::vector<Batch> make_batches(const std::vector<std::vector<int>>& sources,
                                const std::vector<std::vector<int>>* targets, std::vector<TranslationResult>& results,
                                int batch_size) {
    std::vector<size_t> order;
    for (size_t i = 0; i < sources.size(); ++i)
        if (!sources[i].empty()) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return sources[a].size() > sources[b].size(); });
    const size_t size = std::max(1, batch_size);
    std::vector<Batch> batches;
    for (size_t begin = 0; begin < order.size(); begin += size) {
        Batch& batch = batches.emplace_back();
        for (size_t k = begin; k < std::min(order.size(), begin + size); ++k) {
            batch.sources.push_back(sources[order[k]]);
            if (targets) batch.targets.push_back((*targets)[order[k]]);
            batch.results.push_back(&results[order[k]]);
        }
    }
    return batches;
}

}  // namespace

void Translator::run_batches(std::vector<Batch>& batches, const TranslateOptions& options,
                             void (Translator::*work)(Worker&, Batch&, const TranslateOptions&)) {
    const int limit = options.parallel_batches > 0 ? options.parallel_batches : omp_get_max_threads();
    const int parallel = static_cast<int>(std::min<size_t>(std::max(1, limit), batches.size()));
    if (parallel <= 1 || omp_in_parallel()) {
        for (Batch& batch : batches) (this->*work)(*workers_.front(), batch, options);
        return;
    }
    while (static_cast<int>(workers_.size()) < parallel) workers_.push_back(std::make_unique<Worker>(model_));
    // Each thread takes the next batch (longest first) and runs it alone:
    // the products and loops inside, oneDNN's included, see that they are
    // inside a parallel region and take one thread.
    std::exception_ptr failure;
#pragma omp parallel for num_threads(parallel) schedule(dynamic, 1)
    for (size_t b = 0; b < batches.size(); ++b) {
        try {
            omp_set_num_threads(1);  // this thread's nested regions: one thread
            (this->*work)(*workers_[omp_get_thread_num()], batches[b], options);
        } catch (...) {
#pragma omp critical(nmt_translator_failure)
            if (!failure) failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
}

std::vector<TranslationResult> Translator::translate_ids(const std::vector<std::vector<int>>& ids,
                                                         const TranslateOptions& options) {
    std::vector<TranslationResult> results(ids.size());
    std::vector<Batch> batches = make_batches<Batch>(ids, nullptr, results, options.batch_size);
    run_batches(batches, options, &Translator::translate_batch);
    return results;
}

void Translator::translate_batch(Worker& worker, Batch& batch, const TranslateOptions& options) {
    const std::vector<std::vector<int>>& sources = batch.sources;
    const EncodedBatch encoded = worker.encoder.encode(sources);
    const bool shortlist = options.use_shortlist && !model_.shortlist.empty();
    worker.decoder.restrict_output(shortlist ? model_.shortlist.candidates(sources, {model_.target_vocab.eos_id()})
                                             : std::vector<int>{});
    DecoderSteps steps(worker.decoder, encoded);
    const Vocabulary& sv = model_.source_vocab;
    const Vocabulary& tv = model_.target_vocab;
    auto found = beam_search(steps, encoded.lengths, tv.bos_id(), tv.eos_id(), options.search);
    for (size_t s = 0; s < sources.size(); ++s) {
        TranslationResult& r = *batch.results[s];
        for (size_t j = 0; j + 1 < sources[s].size(); ++j) r.source_pieces.push_back(sv.piece(sources[s][j]));
        r.source_pieces.push_back(kEndToken);
        for (auto& h : found[s]) {
            Hypothesis out;
            out.target_ids = h.tokens;
            for (int id : h.tokens) out.target_pieces.push_back(tv.piece(id));
            if (h.ended_with_eos) out.target_pieces.push_back(kEndToken);
            out.translation = tv.decode(h.tokens);
            out.score = h.score;
            out.normalized_score = h.normalized_score;
            out.attention = std::move(h.attention);
            r.hypotheses.push_back(std::move(out));
        }
    }
}

std::vector<TranslationResult> Translator::align(const std::vector<std::string>& sources,
                                                 const std::vector<std::string>& targets,
                                                 const TranslateOptions& options, std::vector<std::string>* warnings,
                                                 int64_t first_line) {
    if (sources.size() != targets.size()) throw Error("align: as many translations as sources are needed");
    std::vector<std::vector<int>> source_ids_of(sources.size()), target_ids_of(targets.size());
    const int target_limit = 2 * model_.config.max_source_pieces;
    for (size_t i = 0; i < sources.size(); ++i) {
        source_ids_of[i] = source_ids(sources[i], first_line + i, warnings);
        SourceIds target = encode_source(model_.target_vocab, target_limit, targets[i]);
        if (target.cropped && warnings)
            warnings->push_back("line " + std::to_string(first_line + i) + ": translation longer than " +
                                std::to_string(target_limit) + " pieces; the rest is not aligned");
        if (!target.ids.empty()) target.ids.pop_back();  // force_decode adds the EOS itself
        target_ids_of[i] = std::move(target.ids);
    }
    std::vector<TranslationResult> results = align_ids(source_ids_of, target_ids_of, options);
    for (size_t i = 0; i < sources.size(); ++i)
        if (!results[i].hypotheses.empty()) results[i].hypotheses.front().translation = targets[i];
    return results;
}

std::vector<TranslationResult> Translator::align_ids(const std::vector<std::vector<int>>& sources,
                                                     const std::vector<std::vector<int>>& targets,
                                                     const TranslateOptions& options) {
    if (sources.size() != targets.size()) throw Error("align: as many translations as sources are needed");
    std::vector<TranslationResult> results(sources.size());
    std::vector<Batch> batches = make_batches<Batch>(sources, &targets, results, options.batch_size);
    run_batches(batches, options, &Translator::align_batch);
    return results;
}

void Translator::align_batch(Worker& worker, Batch& batch, const TranslateOptions& options) {
    const std::vector<std::vector<int>>& sources = batch.sources;
    const EncodedBatch encoded = worker.encoder.encode(sources);
    worker.decoder.restrict_output({});  // a given target may hold any piece
    const Vocabulary& sv = model_.source_vocab;
    const Vocabulary& tv = model_.target_vocab;
    std::vector<Hypothesis> forced = force_decode(worker.decoder, encoded, batch.targets, tv.bos_id(), tv.eos_id());
    for (size_t s = 0; s < sources.size(); ++s) {
        TranslationResult& r = *batch.results[s];
        for (size_t j = 0; j + 1 < sources[s].size(); ++j) r.source_pieces.push_back(sv.piece(sources[s][j]));
        r.source_pieces.push_back(kEndToken);
        Hypothesis& h = forced[s];
        for (int id : h.target_ids) h.target_pieces.push_back(tv.piece(id));
        h.target_pieces.push_back(kEndToken);
        h.translation = tv.decode(h.target_ids);
        h.normalized_score =
            h.score / length_penalty(static_cast<int>(h.target_pieces.size()), options.search.length_penalty);
        r.hypotheses.push_back(std::move(h));
    }
}

}  // namespace nmt
