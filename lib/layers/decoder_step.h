// The order of one decoder step, written once for the three styles (the
// equations are in decoder.h) and run both by decoding (Decoder::step: the
// rows of a beam, state updated in place) and by training
// (train/training_graph: step t of a batch, onto the backward pass's tape).
// What differs between the two is how a cell is stepped and where attention
// keeps its values: the caller's DecoderStepOps.
#pragma once
#include <cstdint>

#include "core/gemm.h"
#include "core/tensor.h"
#include "model/model_config.h"

namespace nmt {

class DecoderStepOps {
public:
    // Cell 0 is the decoder's RNN (RNN₁ in the conditional style), cell 1 the
    // conditional style's RNN₂.
    virtual float* cell_input(int cell) = 0;      // [M, the cell's input size], for decoder_step to fill
    virtual const float* run_cell(int cell) = 0;  // one step from the newest state; returns it, s [M, D]
    virtual const float* state() const = 0;       // s_{t−1}, the state before the step [M, D]
    virtual const float* attend(const float* queries) = 0;  // the context c [M, C] for queries [M, D]

protected:
    ~DecoderStepOps() = default;
};

// Width of the deep output's features: D + C + E (Bahdanau, conditional), C + D (Luong).
int64_t decoder_feature_size(const ModelConfig& config);

// From the embedded previous tokens E y_{t−1} [M, E] (and, Luong with input
// feeding, õ_{t−1} [M, E]; null means zeros) to the deep output's features
// [M, decoder_feature_size]: [s_t; c_t; E y_{t−1}] or, Luong, [c_t; s_t].
void decoder_step(const ModelConfig& config, int64_t M, const float* embedded, const float* feed, DecoderStepOps& ops,
                  float* features);

// The deep output o = tanh(W_o f + b_o) of M rows of features (W_int8: the
// int8 form of W_o when decoding in int8, else null), into out [M, E].
void deep_output(const float* features, int64_t M, const Tensor& W, const Tensor& b, const QuantizedMatrix* W_int8,
                 float* out);

}  // namespace nmt
