#include "layers/rnn_layer.h"

#include <utility>

#include "layers/onednn_rnn.h"
#include "layers/rnn_cell.h"

namespace nmt {

namespace {

// A cell stepped on cell_step (what training's CellRun steps too, without
// the tape): the input products of all steps in one product first, then the
// recurrence. For layer-normalised cells, which oneDNN's RNN primitive does
// not have, and for int8 ones, whose products (core/int8_gemm.h) quantise
// each row on its own: oneDNN's int8 RNN takes one scale for all the data.
class SteppedRnnLayer : public RnnLayer {
public:
    SteppedRnnLayer(CellType cell, const CellWeights& weights) : cell_(cell), w_(weights) {}

    void forward(const float* input, int64_t T, int64_t N, float* output) override {
        const int64_t H = w_.U.shape[0];
        const bool lstm = cell_ == CellType::LSTM;
        gates_.resize({T * N, w_.U.cols()});
        cell_input(w_, input, T * N, gates_.data(), nullptr, nullptr);
        zeros_.zero({N, H});
        if (lstm) {
            cell_state_.zero({N, H});
            next_cell_state_.resize({N, H});
        }
        for (int64_t t = 0; t < T; ++t) {
            const float* h_prev = t == 0 ? zeros_.data() : output + (t - 1) * N * H;
            cell_step(cell_, w_, N, H, gates_.row(t * N), h_prev, lstm ? cell_state_.data() : nullptr,
                      output + t * N * H, lstm ? next_cell_state_.data() : nullptr, scratch_);
            if (lstm) std::swap(cell_state_, next_cell_state_);
        }
    }

private:
    const CellType cell_;
    const CellWeights w_;
    Tensor gates_, zeros_, cell_state_, next_cell_state_;  // the LSTM's c_{t−1} and c_t [N, H]
    CellScratch scratch_;
};

}  // namespace

std::unique_ptr<RnnLayer> make_rnn_layer(const Model& model, const std::string& prefix, CellType cell) {
    const CellWeights weights = cell_weights(model, prefix);
    if (weights.ln_x || weights.W_int8) return std::make_unique<SteppedRnnLayer>(cell, weights);
    return std::make_unique<OnednnRnnLayer>(cell, weights.W, weights.U, weights.b);
}

}  // namespace nmt
