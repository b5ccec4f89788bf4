// Dropout masks drawn per sentence: the mask of a value depends only on the
// step's seed, the dropout site (which layer's dropout), the sentence's index
// in the whole batch and the value's position in that sentence, never on
// which other sentences share the slice. So a slice of a batch draws exactly
// the masks the whole batch would, and data-parallel ranks that each train
// on their slice (distributed_training.h) train the model one process would.
#pragma once
#include <cstdint>
#include <vector>

#include "core/random.h"
#include "core/tensor.h"

namespace nmt {

// Each place the training graph applies dropout. A recurrent cell's sites
// follow kRecurrentSites: kRecurrentSites + its index in the graph.
enum DropoutSite : uint64_t {
    kSourceEmbeddings = 1,
    kSourceWords = 2,
    kEncoderStates = 3,
    kTargetEmbeddings = 4,
    kTargetWords = 5,
    kDeepOutput = 6,
    kRecurrentSites = 16,
};

class DropoutMasks {
public:
    // `first_sentence`: the index in the whole batch of this slice's first sentence.
    DropoutMasks(uint64_t step_seed = 0, int64_t first_sentence = 0)
        : step_seed_(step_seed), first_sentence_(first_sentence) {}

    // The generator of sentence n (0-based within the slice) at `site`.
    Random sentence(uint64_t site, int64_t n) const {
        const uint64_t sentence = static_cast<uint64_t>(first_sentence_ + n);
        return Random(step_seed_ ^ (site * 0xD1B54A32D192ED03ull) ^ (sentence * 0x9E3779B97F4A7C15ull));
    }

    // Inverted dropout over [rows, N, width] when time_major (row t of
    // sentence n at (t·N + n)·width), else [N, rows, width]: each of sentence
    // n's first lengths[n] rows draws its values in order; padding rows keep
    // a mask of 1. Kept values are scaled by 1/(1−p), so inference needs no
    // change. Fills `mask` and multiplies x by it.
    void apply(float* x, Tensor& mask, int64_t rows, int64_t N, int64_t width, const std::vector<int64_t>& lengths,
               bool time_major, float p, uint64_t site) const;

    // Word dropout over a time-major [rows, N, width] block whose mask apply()
    // has just drawn: each real row loses its whole vector with probability
    // p, the kept ones are scaled by 1/(1−p), folded into the mask.
    void drop_words(float* x, Tensor& mask, int64_t N, int64_t width, const std::vector<int64_t>& lengths, float p,
                    uint64_t site) const;

    // A [N, width] mask, one row per sentence (variational recurrent dropout).
    void per_sentence(Tensor& mask, int64_t N, int64_t width, float p, uint64_t site) const;

private:
    uint64_t step_seed_;
    int64_t first_sentence_;
};

}  // namespace nmt
