// Attention over the encoder states of each row's own sentence: scores
// (additive, dot, general, scaled-dot), a softmax over real positions only
// (padding gets exactly 0), and the context vector c = Σ_j α_j h_j.
#pragma once
#include <cstdint>

#include "layers/encoded_batch.h"
#include "model/model.h"

namespace nmt {

// The scores of one query against the `len` keys of its sentence, before the
// softmax; decoding (Attention) and training (train/training_graph) both
// score with this. Additive: q = W_q s is the projected query, keys [len, A]
// hold W_k h_j + b, and the score is vᵀ tanh(q + k_j), the tanh values left in
// `energies` [len, A] (the backward pass reads them). Otherwise the score is
// scale · q·k_j over keys [len, K]; `v` and `energies` are unused.
void attention_scores(AttentionType type, const float* q, const float* keys, int64_t K, int64_t len, const float* v,
                      float scale, float* out, float* energies);

// 1/√D for scaled dot-product attention, 1 for the others.
float attention_scale(const ModelConfig& config);

// The lexical model's input ℓ = Σ_j α_j x_j for each of M rows: attention
// weights [M, T] over the source embeddings of the row's sentence
// (batch.embeddings), into out [M, E].
void attended_embeddings(const EncodedBatch& batch, const float* weights, int64_t M, const int* row_sentence,
                         float* out);

// What a backward pass needs from Attention::attend besides the weights: the
// projected queries [M, query_size()] and, additive only, each row's tanh
// values [M, T·A] (else null). Training keeps them; decoding needs none.
struct AttentionRecord {
    float* projected;
    float* energies;
};

class Attention {
public:
    explicit Attention(const Model& model);

    // queries [M, D]; row m belongs to sentence row_sentence[m] of the batch.
    // Writes context [M, C] and weights [M, T] (T = batch.max_length), and
    // fills `record` when given. Decoding and training both attend with this.
    void attend(const EncodedBatch& batch, const float* queries, int64_t M, const int* row_sentence, float* context,
                float* weights, const AttentionRecord* record = nullptr);

    // The width of what a row is scored with: W_q q (A) for additive attention, q itself (D) otherwise.
    int64_t query_size() const;

private:
    void project_queries(const float* queries, int64_t M, float* out) const;
    // The scores before the softmax, for one row.
    void scores(const EncodedBatch& batch, const float* query_or_projection, int sentence, float* out, float* scratch) const;

    const Model& model_;
    AttentionType type_;
    float scale_ = 1.0f;
    // Looked up once (decoding scores every row of every step): additive
    // attention's W_q (and its int8 form, fixed before decoding starts) and v.
    const Tensor* Wq_ = nullptr;
    const QuantizedMatrix* Wq_int8_ = nullptr;
    const float* v_ = nullptr;
    Tensor projected_, scratch_;
};

}  // namespace nmt
