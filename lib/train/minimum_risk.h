// Minimum risk training (Shen et al., 2016; the "Risk" loss of Edunov et al.,
// 2018): a sequence-level objective that lowers the expected translation
// cost, 1 − sentence BLEU, of the model's own beam-search candidates.
//
// For a source x with candidates c_1..c_K (the beam's n-best under the
// current weights) and costs Δ(c), the model's distribution restricted to
// them is Q(c) = p(c|x)^α / Σ_c' p(c'|x)^α, and the risk is
// R = Σ_c Q(c)·Δ(c). Its gradient is
//     ∂R/∂θ = α Σ_c Q(c)·(Δ(c) − E_Q[Δ])·∂log p(c|x)/∂θ,
// so minimising Σ_c w_c·NLL(c) with the weights w_c = α·Q(c)·(E_Q[Δ] − Δ(c))
// held fixed follows it: candidates better than the expectation are made
// more likely, worse ones less. The trainer adds these weighted candidates to
// each batch of references, whose label-smoothed token loss keeps the model
// anchored (Edunov et al. found the mix better than the risk alone).
#pragma once
#include <cstdint>
#include <vector>

#include "model/model.h"
#include "train/training_graph.h"

namespace nmt {

struct MinimumRiskOptions {
    int candidates = 0;        // n-best size, from a beam of that width; 0: off
    float risk_weight = 1.0f;  // the risk's weight per sentence, against the token loss summed over its words
    float sharpness = 1.0f;    // α: Q ∝ p^α (Shen et al. sample and use 5e-3; over a beam's n-best 1 is usual)
    float length_penalty = 0.6f;  // of the candidates' beam search
};

// Q(c) = softmax(α·log_probs) and R = Σ Q·costs.
double expected_cost(const std::vector<double>& log_probs, const std::vector<double>& costs, double sharpness);

// The weights w_c = α·Q(c)·(E_Q[Δ] − Δ(c)) above; they sum to zero.
std::vector<double> risk_gradient_weights(const std::vector<double>& log_probs, const std::vector<double>& costs,
                                          double sharpness);

// Δ = 1 − sentence BLEU / 100 (sacreBLEU's sentence_bleu: exp smoothing,
// effective order, 13a tokenisation, cased).
double translation_cost(const std::string& hypothesis, const std::string& reference);

struct RiskCandidates {
    TrainingBatch batch;         // source, candidate + EOS and risk_weight·w_c for every candidate
    double expected_cost = 0;    // Σ over sentences of E_Q[Δ]
    double best_cost = 0;        // Σ over sentences of the cost of the beam's best
    int64_t sentences = 0;
};

// Translates `references`' sources with `model` as it is now (no dropout)
// and builds the weighted candidate batch. Sentences whose candidates all
// cost the same give no gradient and are left out.
RiskCandidates risk_candidates(const Model& model, const TrainingBatch& references, const MinimumRiskOptions& options);

}  // namespace nmt
