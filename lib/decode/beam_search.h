// Batched beam search, written against a small interface so that it knows
// nothing of how scores are computed (and can be tested against exhaustive
// search on a toy model).
//
// Rules (Marian's): each sentence keeps K = beam size hypotheses. At each step
// its open hypotheses propose every next token; the best K − (finished so far)
// proposals survive. A proposal ending in EOS is finished and leaves the beam,
// so the beam narrows; the sentence is done when K hypotheses have finished,
// or at its maximum length (open hypotheses are then finished as they are).
// Finished hypotheses are ranked by score / lp(|y|) with GNMT's length penalty
// lp(n) = ((5 + n) / 6)^α, n counting EOS; α = 0 ranks by raw log-probability.
// Done sentences leave the batch, so later steps compute only open rows.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace nmt {

class StepModel {
public:
    virtual ~StepModel() = default;
    virtual int64_t vocab_size() const = 0;
    // Keeps rows `parents` of the current state (in order, repeats allowed),
    // then advances each by tokens[i]. log_probs [rows, V]; attention [rows, T]
    // where T is the batch's longest source.
    virtual void step(const std::vector<int>& parents, const std::vector<int>& tokens, Tensor& log_probs,
                      Tensor& attention) = 0;
    // When log_probs covers only some tokens (a lexical shortlist), the token
    // of each column; empty: column v is token v.
    virtual const std::vector<int>& output_ids() const {
        static const std::vector<int> every_token;
        return every_token;
    }
};

struct SearchOptions {
    int beam_size = 5;
    int n_best = 1;  // at most beam_size
    float length_penalty = 0.6f;
    float max_length_factor = 2.0f;  // max target length = ⌈factor · source length⌉ + max_length_extra
    int max_length_extra = 5;
};

struct SearchHypothesis {
    std::vector<int> tokens;  // without EOS
    bool ended_with_eos = true;
    float score = 0.0f;       // Σ log p, EOS included
    float normalized_score = 0.0f;
    std::vector<std::vector<float>> attention;  // one row per token (+ EOS), over the sentence's source positions
};

// Sentences start with one row each, in order, fed `bos`. source_lengths are
// the real lengths (EOS included) that bound the maximum target length and cut
// the attention rows. Returns, per sentence, its n-best list, best first.
std::vector<std::vector<SearchHypothesis>> beam_search(StepModel& model, const std::vector<int64_t>& source_lengths,
                                                       int bos, int eos, const SearchOptions& options);

float length_penalty(int length, float alpha);

}  // namespace nmt
