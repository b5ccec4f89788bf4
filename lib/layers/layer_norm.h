// Layer normalisation (Ba, Kiros & Hinton 2016) of one block of values, the
// building block of the layer-normalised RNN cells (rnn_cell.h): the cells
// normalise each gate's input product and recurrent product separately.
#pragma once
#include <cstdint>

namespace nmt {

// x̂ = (x − mean(x)) / √(var(x) + ε) over n values; x_hat may be x itself.
// Returns 1/√(var + ε), which the backward pass needs.
float normalize(const float* x, int64_t n, float* x_hat);

// Backward of y = gain ∘ x̂ given dy: writes dx (n values; it must not alias
// dy) and, when dgain is not null, adds dy ∘ x̂ to it.
void normalize_backward(const float* dy, const float* gain, const float* x_hat, float inverse_std, int64_t n, float* dx,
                        float* dgain);

}  // namespace nmt
