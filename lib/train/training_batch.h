// A batch of sentence pairs as the training graph takes it. Its own header so
// that batching needs this type and not the whole training graph.
#pragma once
#include <cstdint>
#include <vector>

#include "align/word_alignment.h"

namespace nmt {

struct TrainingBatch {
    std::vector<std::vector<int>> sources;  // source ids ending with EOS, none empty
    std::vector<std::vector<int>> targets;  // target ids ending with EOS (no BOS), none empty
    // Each sentence's loss (and so its gradient) is multiplied by its weight;
    // empty means 1 for all. Minimum risk training (minimum_risk.h) weights
    // its candidate translations this way, some negatively.
    std::vector<float> weights;
    // The index of sources[0] in the batch this is a slice of (data-parallel
    // training): dropout masks follow from it, so the slices of a batch draw
    // the masks the whole batch would (dropout_masks.h).
    int64_t first_sentence = 0;
    // Given word alignments of each sentence (guided alignment), or empty:
    // links between words, which the graph maps onto their pieces.
    std::vector<Links> alignments;
    int64_t target_tokens() const;
    float weight(size_t sentence) const { return weights.empty() ? 1.0f : weights[sentence]; }
};

}  // namespace nmt
