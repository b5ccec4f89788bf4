// One decoding step for many rows at once (rows = hypotheses of any number of
// sentences). The decoder styles of MODEL.md, and Nematus' conditional GRU:
//   bahdanau:    c_t = attend(s_{t−1}); s_t = RNN([E y_{t−1}; c_t], s_{t−1});
//                o_t = tanh(W_o [s_t; c_t; E y_{t−1}] + b)
//   luong:       s_t = RNN([E y_{t−1}; õ_{t−1}], s_{t−1}); c_t = attend(s_t);
//                õ_t = tanh(W_c [c_t; s_t] + b)
//   conditional: s'_t = RNN₁(E y_{t−1}, s_{t−1}); c_t = attend(s'_t);
//                s_t = RNN₂(c_t, s'_t); o_t as bahdanau
//                (an LSTM cell state passes through both cells the same way)
//   lexical model (bahdanau, conditional): o_t += W_ℓ Σ_j α_tj x_j, the
//                attention-weighted source embeddings (model_config.h)
// then log p(y_t) = log_softmax(W_v o_t + b_v). The step's order up to the
// deep output is layers/decoder_step's, which training runs too.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "layers/attention.h"
#include "layers/decoder_step.h"
#include "layers/encoded_batch.h"
#include "model/model.h"
#include "layers/rnn_cell.h"

namespace nmt {

struct DecoderState {
    std::vector<int> sentence;  // row → sentence index in the EncodedBatch
    Tensor hidden;              // [M, D]
    Tensor cell;                // [M, D], LSTM only
    Tensor feed;                // [M, E], Luong input feeding: õ_{t−1}
    int64_t rows() const { return static_cast<int64_t>(sentence.size()); }
};

class Decoder {
public:
    explicit Decoder(const Model& model);

    // One row per sentence, in batch order, at s_0.
    DecoderState start(const EncodedBatch& batch) const;

    // Keeps rows `parents` (in that order; repeats allowed) of the state.
    void select_rows(DecoderState& state, const std::vector<int>& parents);

    // Advances every row by one token. log_probs [M, V]; attention [M, T].
    void step(const EncodedBatch& batch, DecoderState& state, const int* previous_tokens, Tensor& log_probs,
              Tensor& attention);

    int64_t vocab_size() const { return model_.config.target_vocab_size; }

    // Restricts the vocabulary projection to `ids` (sorted, distinct target
    // ids: a lexical shortlist's candidates for the batch, model/shortlist.h):
    // step's log_probs then has one column per id, the softmax taken over
    // them alone. Empty: the whole vocabulary again.
    void restrict_output(std::vector<int> ids);
    // What column v of log_probs stands for: output_ids()[v], or v itself when empty.
    const std::vector<int>& output_ids() const { return output_ids_; }

private:
    class StepOps;  // decoder_step's cells and attention for decoding (decoder.cpp)
    void embed(const int* tokens, int64_t M, float* out, int64_t stride) const;
    void rnn(const CellWeights& cell, DecoderState& state, int64_t M);
    void add_lexical_output(const EncodedBatch& batch, const DecoderState& state, const Tensor& attention);
    void vocabulary_projection(Tensor& log_probs);

    const Model& model_;
    const ModelConfig& config_;
    const bool conditional_;
    Attention attention_;
    // The decoder cells' parameters (and their int8 forms, so the model's
    // precision is set before a Decoder is made), looked up once.
    const CellWeights rnn_weights_;
    const std::optional<CellWeights> rnn2_weights_;  // conditional style only
    // The output layers' parameters, looked up once for the same reason.
    struct OutputWeights {
        EmbeddingTable target_embeddings;
        const Tensor* deep_W;  // decoder.output.W, b
        const Tensor* deep_b;
        const QuantizedMatrix* deep_W_int8;
        const Tensor* lexical_W;  // null without the lexical model
        const QuantizedMatrix* lexical_W_int8;
        const Tensor* vocab_W;  // decoder.vocab.W, or the target embeddings when tied
        const Tensor* vocab_b;
        const QuantizedMatrix* vocab_W_int8;
    };
    static OutputWeights output_weights(const Model& model);
    const OutputWeights out_;
    CellScratch cell_scratch_;
    // Reused across steps so the hot loop does not allocate once sizes settle.
    Tensor embedded_, rnn_input_, gates_, new_hidden_, new_cell_, context_, features_, output_, gather_, lexical_;
    // The output layer cut to output_ids_ (restrict_output): weights laid out
    // as the full ones are (tied: [ids, E]; else [E, ids]), bias, int8 form.
    std::vector<int> output_ids_;
    Tensor restricted_weights_, restricted_bias_;
    QuantizedMatrix restricted_int8_;
    // The int8 output layer laid out the other way from the model's: by
    // vocabulary entry for a shortlist to cut rows from (an untied one is
    // stored [E, V]), by input for the full product, where oneDNN's kernel
    // is fastest (the tied one is stored by entry). Made at its first need.
    const QuantizedMatrix& int8_output_layer(bool by_output);
    QuantizedMatrix output_layer_turned_;
};

}  // namespace nmt
