// Vectorised elementwise functions. libm's expf/tanhf are scalar calls; the
// attention energies and the vocabulary softmax evaluate millions of them per
// decoding step, so these are written to auto-vectorise (AVX-512 / AVX2 clones
// chosen at run time). Accuracy: about 2e-7 relative for exp, 3e-7 absolute for
// tanh and sigmoid; tests check them against libm.
#pragma once
#include <cstdint>

namespace nmt {

void exp_inplace(float* x, int64_t n);
void tanh_inplace(float* x, int64_t n);
void sigmoid_inplace(float* x, int64_t n);

// In place: row ← row − log Σ exp(row). Returns nothing; rows of length n.
void log_softmax_inplace(float* row, int64_t n);
// In place: row ← softmax(row) over the first `valid` entries, exact zeros after.
void softmax_inplace(float* row, int64_t n, int64_t valid);

}  // namespace nmt
