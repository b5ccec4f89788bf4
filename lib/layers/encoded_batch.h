// The encoder's output for a batch of sentences, in the batch-major layout the
// decoder's attention reads (one sentence's states are contiguous).
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace nmt {

struct EncodedBatch {
    int64_t batch = 0;       // N sentences
    int64_t max_length = 0;  // T, the longest sentence (EOS included)
    std::vector<int64_t> lengths;  // real positions per sentence (EOS included)
    Tensor states;      // [N, T, C] encoder outputs h_j; zero at padding
    Tensor keys;        // [N, T, K] attention keys (W_k h_j + b for additive, W_aᵀ-projected for general); empty when keys are the states
    Tensor init_state;  // [N, D] s_0 = tanh(W_init · mean_j h_j + b)
    Tensor embeddings;  // [N, T, E] source embeddings x_j, lexical model only (else empty); zero at padding

    const float* state(int64_t n, int64_t t) const { return states.data() + (n * max_length + t) * states.shape[2]; }
    const float* embedding(int64_t n, int64_t t) const {
        return embeddings.data() + (n * max_length + t) * embeddings.shape[2];
    }
};

}  // namespace nmt
