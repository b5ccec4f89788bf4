// A left-to-right GRU or LSTM layer over a whole time-major batch, from the
// zero state: what the encoder runs at inference. A plain f32 cell runs on
// oneDNN's RNN primitive; a layer-normalised cell (oneDNN has none) or an
// int8 one runs step by step on cell_step, the code training runs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "model/model.h"

namespace nmt {

class RnnLayer {
public:
    virtual ~RnnLayer() = default;
    // input [T, N, I] → output [T, N, H]
    virtual void forward(const float* input, int64_t T, int64_t N, float* output) = 0;
};

// The layer for the cell named `prefix` ("encoder.0.forward", …) of a model.
std::unique_ptr<RnnLayer> make_rnn_layer(const Model& model, const std::string& prefix, CellType cell);

}  // namespace nmt
