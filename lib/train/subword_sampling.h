// Subword regularisation (Kudo, 2018): every epoch sees each training
// sentence cut into pieces anew, so that the model learns the pieces' meaning
// from many segmentations of the same words instead of one; on small corpora
// this acts as data augmentation. Segmentation k of a sentence's l best
// (Corpus::*_choices, from the unigram SentencePiece model) is drawn with
// probability P(k)^α / Σ_j P(j)^α, the paper's l-best approximation; α near
// 0 makes the l alternatives about equally likely, a large α keeps the best.
// The same as Marian's --sentencepiece-alphas and OpenNMT's subword_alpha
// with subword_nbest, except that the draws come from our own Random.
//
// An epoch's segmentations are a pure function of (seed, epoch), like its
// batch order (batching.h), so a checkpoint's position is still all a resumed
// run needs, and the result does not depend on the thread count.
#pragma once
#include <cstdint>
#include <vector>

#include "train/corpus.h"
#include "core/random.h"

namespace nmt {

struct SubwordSampling {
    float source_alpha = 0;  // 0: that side keeps its best segmentation
    float target_alpha = 0;
    int nbest = 64;          // l: segmentations per sentence to draw from (Kudo's best setting: 64 with α 0.1)
    bool enabled() const { return source_alpha > 0 || target_alpha > 0; }
};

// Index k drawn with probability ∝ exp(α · log_probabilities[k]).
size_t sample_segmentation(const std::vector<float>& log_probabilities, float alpha, Random& random);

// The training pairs of `epoch`, each side with alpha > 0 segmented by a draw
// from its choices (EOS appended). `corpus` must have been read with
// CorpusOptions::segmentations = sampling.nbest.
std::vector<SentencePair> sample_segmentations(const Corpus& corpus, const SubwordSampling& sampling, uint64_t seed,
                                               int64_t epoch);

}  // namespace nmt
