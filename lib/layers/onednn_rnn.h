// A left-to-right GRU or LSTM layer over a whole time-major batch, run by a
// oneDNN RNN primitive. oneDNN has no per-sentence lengths, so callers run
// right-to-left directions on per-sentence reversed input (see encoder.cpp):
// with that, padding only ever follows the real positions and cannot leak
// into them. Primitives are cached per (T, N) because their shapes are fixed;
// all of them read the model's weights where they lie, and share one
// scratchpad with every layer on the thread.
#pragma once
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "model/model_config.h"
#include "layers/rnn_layer.h"
#include "core/tensor.h"

namespace nmt {

class OnednnRnnLayer : public RnnLayer {
public:
    // W [I, gates·H], U [H, gates·H], b [gates·H]: oneDNN's ldigo / ldgo layouts
    // for one layer and one direction, so no conversion is needed.
    OnednnRnnLayer(CellType cell, const Tensor& W, const Tensor& U, const Tensor& b);
    ~OnednnRnnLayer() override;

    // input [T, N, I] → output [T, N, H]; the state starts at zero.
    void forward(const float* input, int64_t T, int64_t N, float* output) override;

    int64_t input_size() const { return input_size_; }
    int64_t hidden_size() const { return hidden_size_; }

private:
    struct Compiled;
    Compiled& compiled(int64_t T, int64_t N);
    void run(const float* input, int64_t T, int64_t N, float* output);  // one primitive call

    CellType cell_;
    const Tensor& W_;
    const Tensor& U_;
    const Tensor& b_;
    int64_t input_size_, hidden_size_;
    std::map<std::pair<int64_t, int64_t>, std::unique_ptr<Compiled>> cache_;
    Tensor slice_input_, slice_output_;         // a slice of a batch too large for one call
};

}  // namespace nmt
