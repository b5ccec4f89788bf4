// One step of a GRU or LSTM cell for a batch of rows, in oneDNN's conventions
// (gate order u, r, o for GRU with h' = u∘h + (1−u)∘o; i, f, c̃, o for LSTM), so
// that the decoder's weights have the same layout as the encoder's oneDNN
// primitives: W [input, gates·H], U [H, gates·H], b [gates·H].
#pragma once
#include <cstdint>

#include "model_config.h"
#include "tensor.h"

namespace nmt {

struct CellScratch {
    Tensor hidden_gates;  // h·U for the gates that take h directly
    Tensor reset_hidden;  // GRU: r∘h, kept for the backward pass
};

// gates: on entry x·W + b for each row [M, gates·H]; on exit the activated
// gates (what a backward pass needs). h_prev, c_prev: [M, H] (c only for LSTM).
// h_out, c_out: [M, H]; they must not alias the inputs.
void cell_step(CellType cell, const Tensor& U, int64_t M, int64_t H, float* gates, const float* h_prev,
               const float* c_prev, float* h_out, float* c_out, CellScratch& scratch);

}  // namespace nmt
