// Text in, TranslationResults out: SentencePiece encoding, cropping to the
// model's limit, length-sorted batches, encoder, beam search, decoding back
// to text. Results come back in input order whatever the batching.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "decode/beam_search.h"
#include "decode/placeholders.h"
#include "layers/decoder.h"
#include "layers/encoder.h"
#include "model/model.h"
#include "decode/translation_result.h"
#include "text/glossary.h"

namespace nmt {

struct TranslateOptions {
    SearchOptions search;
    int batch_size = 32;  // sentences per batch (each becomes beam_size rows)
    // Make every translation hold its source's placeholders and markup
    // (restore_placeholders, lib/decode/placeholders.h); only `translation` changes,
    // the pieces and attention stay what the model produced.
    bool repair_placeholders = true;
    // The user's own spans to keep verbatim (--do-not-translate) and terms
    // each translation must use (--glossary), both put in place of the words
    // aligned to them (lib/decode/term_forcing.h) after the placeholders are
    // repaired. None of either (a null or empty glossary): the translations
    // are exactly as without them.
    PlaceholderOptions placeholders;
    std::shared_ptr<const Glossary> glossary;
    // Score only the lexical shortlist's candidates for each batch, when the
    // model has a shortlist (model/shortlist.h).
    bool use_shortlist = true;
    // When several batches are waiting, up to this many are translated at
    // once, each by one thread (0: one per OpenMP thread), as Marian's CPU
    // workers do: a batch's products are too small to keep two cores busy
    // without waiting on each other at every step. 1: one batch at a time,
    // on all threads (the latency of a single batch). The batches are the
    // same, so the translations are those of single-threaded products.
    int parallel_batches = 0;
};

// `search` with the settings the model was tuned for (Model::decoding) put in:
// what nmt translate uses when the user does not choose them.
SearchOptions with_model_defaults(SearchOptions search, const Model& model);

// An upper bound, in bytes, on what searching one batch can hold at once:
// per hypothesis row (batch × beam), the step's scores over the vocabulary
// (log-probabilities and their copy for ranking) and the decoder's state, and
// the attention row kept for every step of the longest target a source of
// the model's maximum length allows. Lets a caller refuse settings that
// cannot fit before they grow without end (beam 1000 × batch 4096).
uint64_t search_memory_bound(const ModelConfig& config, const SearchOptions& search, int batch_size);

class Translator {
public:
    explicit Translator(const Model& model);

    // `first_line` numbers the lines in warnings ("line 7: ...").
    std::vector<TranslationResult> translate(const std::vector<std::string>& lines, const TranslateOptions& options,
                                             std::vector<std::string>* warnings = nullptr, int64_t first_line = 1);

    // The same for sentences already encoded: source ids ending with EOS (an
    // empty list has an empty translation), results in input order.
    std::vector<TranslationResult> translate_ids(const std::vector<std::vector<int>>& sources,
                                                 const TranslateOptions& options);

    // Each line's given translation scored and aligned instead of searched
    // for (lib/decode/forced_decoding.h): one result per pair, holding one
    // hypothesis whose translation is targets[i] as given and whose
    // normalized_score applies options.search.length_penalty. Sources are
    // cropped as translate() crops them, targets at twice that many pieces,
    // each with a warning. A pair whose source is empty has no hypothesis.
    std::vector<TranslationResult> align(const std::vector<std::string>& sources,
                                         const std::vector<std::string>& targets, const TranslateOptions& options,
                                         std::vector<std::string>* warnings = nullptr, int64_t first_line = 1);

    // The same for pairs already encoded: sources ending with EOS (cropped to
    // the model's limit), targets without it. Each hypothesis's translation
    // is its target decoded; a pair whose source is empty has no hypothesis.
    std::vector<TranslationResult> align_ids(const std::vector<std::vector<int>>& sources,
                                             const std::vector<std::vector<int>>& targets,
                                             const TranslateOptions& options);

    const Model& model() const { return model_; }

    // The warning translate() gives for line `line_number` cropped to the
    // model's limit ("line N: longer than the model's limit of ...").
    static std::string cropped_warning(int64_t line_number, int max_source_pieces);
    // What translate() does to each result when options.repair_placeholders
    // is set (translate_ids does not): every hypothesis made to hold the
    // source line's placeholders and markup (lib/decode/placeholders.h).
    static void repair_placeholders(const std::string& line, TranslationResult& result);
    // What translate() then does when options hold verbatim spans or glossary
    // terms: every hypothesis made to use them (force_terms,
    // lib/decode/term_forcing.h).
    static void force_user_terms(const std::string& line, TranslationResult& result, const Glossary& glossary,
                                 const PlaceholderOptions& placeholders);

private:
    std::vector<int> source_ids(const std::string& line, int64_t line_number, std::vector<std::string>* warnings) const;
    // An encoder and a decoder with their own buffers: one per batch translated at once.
    struct Worker {
        explicit Worker(const Model& model) : encoder(model), decoder(model) {}
        Encoder encoder;
        Decoder decoder;
    };
    // A batch: its sources (ending with EOS) and where its results go.
    struct Batch {
        std::vector<std::vector<int>> sources, targets;  // targets: forced decoding only
        std::vector<TranslationResult*> results;
    };
    // Runs `work` on each batch, several at once when options allow (parallel_batches).
    void run_batches(std::vector<Batch>& batches, const TranslateOptions& options,
                     void (Translator::*work)(Worker&, Batch&, const TranslateOptions&));
    void align_batch(Worker& worker, Batch& batch, const TranslateOptions& options);
    void translate_batch(Worker& worker, Batch& batch, const TranslateOptions& options);

    const Model& model_;
    std::vector<std::unique_ptr<Worker>> workers_;  // the first made with the translator, the others when needed
};

}  // namespace nmt
