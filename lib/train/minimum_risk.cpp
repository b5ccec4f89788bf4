#include "train/minimum_risk.h"

#include <algorithm>
#include <cmath>

#include "eval/bleu.h"
#include "decode/translator.h"

namespace nmt {

namespace {

// Q = softmax(α·log_probs), shifted by the maximum so that long candidates'
// log-probabilities (−50 and below) do not underflow.
std::vector<double> candidate_distribution(const std::vector<double>& log_probs, double sharpness) {
    std::vector<double> q(log_probs.size());
    if (q.empty()) return q;
    const double top = sharpness * *std::max_element(log_probs.begin(), log_probs.end());
    double sum = 0;
    for (size_t c = 0; c < q.size(); ++c) sum += q[c] = std::exp(sharpness * log_probs[c] - top);
    for (double& v : q) v /= sum;
    return q;
}

double expectation(const std::vector<double>& q, const std::vector<double>& costs) {
    double risk = 0;
    for (size_t c = 0; c < q.size(); ++c) risk += q[c] * costs[c];
    return risk;
}

}  // namespace

double expected_cost(const std::vector<double>& log_probs, const std::vector<double>& costs, double sharpness) {
    return expectation(candidate_distribution(log_probs, sharpness), costs);
}

std::vector<double> risk_gradient_weights(const std::vector<double>& log_probs, const std::vector<double>& costs,
                                          double sharpness) {
    const std::vector<double> q = candidate_distribution(log_probs, sharpness);
    const double risk = expectation(q, costs);
    std::vector<double> weights(q.size());
    for (size_t c = 0; c < q.size(); ++c) weights[c] = sharpness * q[c] * (risk - costs[c]);
    return weights;
}

double translation_cost(const std::string& hypothesis, const std::string& reference) {
    BleuOptions options;
    options.effective_order = true;  // sacreBLEU's sentence_bleu
    return 1.0 - sentence_bleu(hypothesis, {reference}, options).score / 100.0;
}

RiskCandidates risk_candidates(const Model& model, const TrainingBatch& references, const MinimumRiskOptions& options) {
    TranslateOptions translate;
    translate.search.beam_size = translate.search.n_best = options.candidates;
    translate.search.length_penalty = options.length_penalty;
    Translator translator(model);  // built now: its encoder holds the current weights, reordered for oneDNN
    const auto translated = translator.translate_ids(references.sources, translate);
    const int eos = model.target_vocab.eos_id();
    RiskCandidates out;
    for (size_t n = 0; n < references.sources.size(); ++n) {
        const auto& hypotheses = translated[n].hypotheses;
        if (hypotheses.empty()) continue;
        const std::vector<int>& gold = references.targets[n];
        const std::string reference = model.target_vocab.decode({gold.begin(), gold.end() - (gold.back() == eos)});
        std::vector<double> log_probs, costs;
        for (const auto& h : hypotheses) {
            log_probs.push_back(h.score);
            costs.push_back(translation_cost(h.translation, reference));
        }
        ++out.sentences;
        out.expected_cost += expected_cost(log_probs, costs, options.sharpness);
        out.best_cost += costs.front();
        const std::vector<double> weights = risk_gradient_weights(log_probs, costs, options.sharpness);
        if (std::all_of(weights.begin(), weights.end(), [](double w) { return w == 0; })) continue;
        for (size_t c = 0; c < hypotheses.size(); ++c) {
            std::vector<int> target = hypotheses[c].target_ids;
            // A candidate cut at the maximum length is trained as if it ended
            // there; its search score lacks that EOS, a small inconsistency
            // on rare, costly candidates.
            target.push_back(eos);
            out.batch.sources.push_back(references.sources[n]);
            out.batch.targets.push_back(std::move(target));
            out.batch.weights.push_back(static_cast<float>(options.risk_weight * weights[c]));
        }
    }
    return out;
}

}  // namespace nmt
