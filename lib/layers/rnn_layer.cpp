#include "layers/rnn_layer.h"

#include <cstring>

#include "layers/cell_run.h"
#include "layers/onednn_rnn.h"

namespace nmt {

namespace {

class SteppedRnnLayer : public RnnLayer {
public:
    SteppedRnnLayer(CellType cell, const CellWeights& weights) : run_(cell, weights) {}

    void forward(const float* input, int64_t T, int64_t N, float* output) override {
        run_.reset(T, N);
        std::memcpy(run_.input(0), input, T * N * run_.input_size() * sizeof(float));
        run_.forward_all();
        std::memcpy(output, run_.h(0), T * N * run_.hidden_size() * sizeof(float));
    }

private:
    CellRun run_;
};

}  // namespace

std::unique_ptr<RnnLayer> make_rnn_layer(const Model& model, const std::string& prefix, CellType cell) {
    const CellWeights weights = cell_weights(model, prefix);
    if (weights.ln_x) return std::make_unique<SteppedRnnLayer>(cell, weights);
    return std::make_unique<OnednnRnnLayer>(cell, weights.W, weights.U, weights.b);
}

}  // namespace nmt
