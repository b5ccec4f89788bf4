// Embeddings → bidirectional first layer → left-to-right layers above it, on
// oneDNN RNN primitives (stepped cells when layer-normalised, rnn_layer.h);
// then the decoder's initial state and the attention keys.
#pragma once
#include <memory>
#include <vector>

#include "layers/encoded_batch.h"
#include "model/model.h"
#include "layers/rnn_layer.h"

namespace nmt {

class Encoder {
public:
    explicit Encoder(const Model& model);
    ~Encoder();

    // Each sentence is a list of source ids ending with EOS; none may be empty.
    EncodedBatch encode(const std::vector<std::vector<int>>& sentences);

private:
    void embed(const std::vector<std::vector<int>>& sentences, int64_t T, bool reversed, Tensor& out) const;
    void initial_state(EncodedBatch& out) const;
    void attention_keys(EncodedBatch& out) const;

    const Model& model_;
    std::unique_ptr<RnnLayer> forward_, backward_;
    std::vector<std::unique_ptr<RnnLayer>> upper_;
    Tensor embedded_, embedded_reversed_, out_forward_, out_backward_, layer_a_, layer_b_;
};

}  // namespace nmt
