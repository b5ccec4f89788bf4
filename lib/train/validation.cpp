#include "train/validation.h"

#include <chrono>
#include <cmath>
#include <string>

#include "train/batching.h"
#include "decode/translator.h"

namespace nmt {

Validator::Validator(const Corpus& corpus, int64_t batch_tokens, int beam_size)
    : corpus_(corpus), batches_(plan_in_order(corpus.pairs, batch_tokens)), beam_size_(beam_size) {}

ValidationScores Validator::score(const Model& model, TrainingGraph& graph) const {
    const auto start = std::chrono::steady_clock::now();
    ValidationScores scores;
    double nll = 0;
    int64_t tokens = 0;
    for (const auto& indices : batches_) {
        const BatchLoss loss = graph.evaluate(make_batch(corpus_.pairs, indices));
        nll += loss.nll;
        tokens += loss.tokens;
    }
    scores.ce = nll / static_cast<double>(std::max<int64_t>(1, tokens));
    scores.ppl = std::exp(scores.ce);
    if (beam_size_ > 0) {
        Translator translator(model);
        TranslateOptions options;
        options.search.beam_size = beam_size_;
        std::vector<std::string> warnings;  // cropped inputs: the score reflects what the model would do
        const auto results = translator.translate(corpus_.source_text, options, &warnings);
        std::vector<std::string> hypotheses;
        hypotheses.reserve(results.size());
        for (const auto& r : results) hypotheses.push_back(r.hypotheses.empty() ? "" : r.hypotheses[0].translation);
        scores.bleu = corpus_bleu(hypotheses, {corpus_.target_text}, BleuOptions{});
        scores.has_bleu = true;
    }
    scores.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return scores;
}

}  // namespace nmt
