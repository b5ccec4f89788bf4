// Plain-loop reference implementations of the model, one sentence at a time,
// written straight from MODEL.md with libm's exp/tanh: the yardstick every
// oneDNN-backed, batched, vectorised piece of lib/ is tested against.
#pragma once
#include <string>
#include <vector>

#include "model/model.h"

namespace nmt::reference {

using Vec = std::vector<float>;
using Mat = std::vector<Vec>;  // rows

// y = x · W (+ b), W [in, out]
Vec linear(const Vec& x, const Tensor& W, const Tensor* b = nullptr);
Vec linear_t(const Vec& x, const Tensor& W);  // x · Wᵀ, W [out, in]

// One cell step with oneDNN's gate conventions; c is used and updated for LSTM.
// With gains ln_x, ln_h: the layer-normalised cell of rnn_cell.h.
Vec cell(CellType type, const Tensor& W, const Tensor& U, const Tensor& b, const Vec& x, const Vec& h, Vec& c,
         const Tensor* ln_x = nullptr, const Tensor* ln_h = nullptr);
// The cell named `prefix` of a model ("decoder.rnn", …).
Vec cell(const Model& model, const std::string& prefix, CellType type, const Vec& x, const Vec& h, Vec& c);

// Encoder states h_j for one sentence (ids with EOS).
Mat encode(const Model& model, const std::vector<int>& ids);
Vec initial_state(const Model& model, const Mat& states);

// Attention weights and context for one query.
Vec attention_weights(const Model& model, const Mat& states, const Vec& query);
Vec context(const Mat& states, const Vec& weights);

struct DecoderRow {
    Vec hidden, cell, feed;
};

// The source embeddings x_j of one sentence (what the lexical model averages).
Mat source_embeddings(const Model& model, const std::vector<int>& ids);

// One decoder step for one hypothesis: returns log-probabilities; fills the
// attention row. A lexical model needs the sentence's source embeddings.
Vec decoder_step(const Model& model, const Mat& states, DecoderRow& row, int previous_token, Vec& attention,
                 const Mat* embeddings = nullptr);

}  // namespace nmt::reference
