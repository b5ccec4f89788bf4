// One step of a GRU or LSTM cell for a batch of rows, in oneDNN's conventions
// (gate order u, r, o for GRU with h' = u∘h + (1−u)∘o; i, f, c̃, o for LSTM), so
// that the decoder's weights have the same layout as the encoder's oneDNN
// primitives: W [input, gates·H], U [H, gates·H], b [gates·H].
//
// Layer-normalised cells (ModelConfig::layer_norm; Ba et al. 2016, as in
// Nematus and Marian) normalise each gate's input product and recurrent
// product separately, each with its own gain, before the bias:
//   GRU: z_g = γx_g∘LN(x·W_g) + γh_g∘LN(h·U_g) + b_g for u and r,
//        z_o = γx_o∘LN(x·W_o) + γh_o∘LN((r∘h)·U_o) + b_o;
//   LSTM: z_g = γx_g∘LN(x·W_g) + γh_g∘LN(h·U_g) + b_g for every gate.
// Normalised activations keep the same scale from step to step, whatever the
// weights grow to, which steadies training.
#pragma once
#include <cstdint>
#include <string>

#include "model/model.h"
#include "core/tensor.h"

namespace nmt {

// The parameters of one cell; ln_x and ln_h (the gains γx, γh, [gates·H]) are
// null for a plain cell.
struct CellWeights {
    const Tensor& W;
    const Tensor& U;
    const Tensor& b;
    const Tensor* ln_x = nullptr;
    const Tensor* ln_h = nullptr;
    // W and U in int8 when the model decodes in int8 (decode/precision.h).
    const QuantizedMatrix* W_int8 = nullptr;
    const QuantizedMatrix* U_int8 = nullptr;
};

// The cell named `prefix` ("encoder.0.forward", "decoder.rnn", …) of a model.
CellWeights cell_weights(const Model& model, const std::string& prefix);

struct CellScratch {
    Tensor hidden_gates;  // h·U for the gates that take h directly
    Tensor reset_hidden;  // GRU: r∘h, kept for the backward pass
    // Layer norm only: the recurrent products normalised (before the gain)
    // [M, gates·H] and their 1/σ [M, gates], kept for the backward pass.
    Tensor hidden_normalized, hidden_inverse_std;
    Tensor candidate;  // GRU with layer norm: (r∘h)·U_o before normalisation
};

// out [M, gates·H] ← x·W + b, or γx∘LN(x·W) + b per gate block with layer norm.
// x_hat [M, gates·H] and inverse_std [M, gates] receive the normalised
// products and their 1/σ (what a backward pass needs), or are null.
void cell_input(const CellWeights& w, const float* x, int64_t M, float* out, float* x_hat, float* inverse_std);

// gates: on entry cell_input's output for each row [M, gates·H]; on exit the
// activated gates (what a backward pass needs). h_prev, c_prev: [M, H] (c only
// for LSTM). h_out, c_out: [M, H]; they must not alias the inputs.
// h_recurrent [M, H], when not null, is what the recurrent products see
// instead of h_prev (recurrent dropout in training, train/cell_run.h); the GRU's
// interpolation u∘h_prev still takes the state itself.
void cell_step(CellType cell, const CellWeights& w, int64_t M, int64_t H, float* gates, const float* h_prev,
               const float* c_prev, float* h_out, float* c_out, CellScratch& scratch,
               const float* h_recurrent = nullptr);

}  // namespace nmt
