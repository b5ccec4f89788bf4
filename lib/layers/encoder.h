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

// The encoder's layers are joined the same way in decoding (Encoder) and in
// training (train/training_graph), with these.
// The first layer's output [T, N, 2H] (time-major, padding 0): at each real
// position t of sentence n, the forward state beside the backward one
// computed for t, which a left-to-right pass over the reversed sentence
// reaches at len−1−t. `forward` and `backward` are [T, N, H].
void join_directions(const float* forward, const float* backward, const std::vector<int64_t>& lengths, int64_t T,
                     int64_t N, int64_t H, Tensor& out);
// Whether layer `layer` (0: the bidirectional one) adds its input to its
// output: from the third layer on (MODEL.md), which helps deep stacks train.
inline bool residual_into(int layer) { return layer >= 2; }
// Time-major rows [T, N, C] to batch-major [N, T, C], padding 0: the states
// attention reads.
void to_batch_major(const float* time_major, const std::vector<int64_t>& lengths, int64_t T, int64_t N, int64_t C,
                    Tensor& out);

// What the encoder hands the decoder besides its states [N, T, C] (lengths:
// real positions per sentence); decoding and training both compute them with these.
// The decoder's first state tanh(W_init · mean + b), mean = Σ_j h_j / len per
// sentence: `mean` [N, C] is kept for the backward pass, `init` is [N, D].
void initial_decoder_state(const Model& model, const Tensor& states, const std::vector<int64_t>& lengths, Tensor& mean,
                           Tensor& init);
// The keys attention scores against, which depend only on the source:
// W_k h_j + b for additive attention, W_a h_j for general; left empty for dot
// attention, which scores the states themselves.
void attention_keys(const Model& model, const Tensor& states, Tensor& keys);

class Encoder {
public:
    explicit Encoder(const Model& model);
    ~Encoder();

    // Each sentence is a list of source ids ending with EOS; none may be empty.
    EncodedBatch encode(const std::vector<std::vector<int>>& sentences);

private:
    void embed(const std::vector<std::vector<int>>& sentences, int64_t T, bool reversed, Tensor& out) const;

    const Model& model_;
    std::unique_ptr<RnnLayer> forward_, backward_;
    std::vector<std::unique_ptr<RnnLayer>> upper_;
    Tensor embedded_, embedded_reversed_, out_forward_, out_backward_, layer_a_, layer_b_, mean_;
};

}  // namespace nmt
