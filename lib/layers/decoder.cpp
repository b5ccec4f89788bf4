#include "layers/decoder.h"

#include <cstring>

#include "core/fast_math.h"
#include "core/gemm.h"
#include "core/int8_gemm.h"
#include "core/parallel.h"

namespace nmt {

Decoder::Decoder(const Model& model)
    : model_(model),
      config_(model.config),
      conditional_(model.config.decoder_style == DecoderStyle::Conditional),
      attention_(model),
      rnn_weights_(cell_weights(model, "decoder.rnn")),
      rnn2_weights_(conditional_ ? std::optional<CellWeights>(cell_weights(model, "decoder.rnn2")) : std::nullopt),
      out_(output_weights(model)) {}

Decoder::OutputWeights Decoder::output_weights(const Model& model) {
    const bool lexical = model.config.lexical_model;
    const std::string vocab = model.config.tied_embeddings ? "target.embeddings" : "decoder.vocab.W";
    return {model.embedding_table("target.embeddings"),
            &model.param("decoder.output.W"),
            &model.param("decoder.output.b"),
            model.quantized("decoder.output.W"),
            lexical ? &model.param("decoder.lexical.W") : nullptr,
            lexical ? model.quantized("decoder.lexical.W") : nullptr,
            &model.param(vocab),
            &model.param("decoder.vocab.b"),
            model.quantized(vocab)};
}

DecoderState Decoder::start(const EncodedBatch& batch) const {
    DecoderState s;
    const int64_t N = batch.batch, D = config_.dim_dec, E = config_.dim_emb;
    for (int64_t n = 0; n < N; ++n) s.sentence.push_back(static_cast<int>(n));
    s.hidden = batch.init_state;
    if (config_.decoder_cell == CellType::LSTM) s.cell = Tensor({N, D});
    if (config_.decoder_style == DecoderStyle::Luong && config_.input_feeding) s.feed = Tensor({N, E});
    return s;
}

namespace {

void gather_rows(Tensor& t, const std::vector<int>& parents, Tensor& scratch) {
    if (t.values.empty()) return;
    const int64_t width = t.cols();
    scratch.resize({static_cast<int64_t>(parents.size()), width});
    for (size_t i = 0; i < parents.size(); ++i)
        std::memcpy(scratch.row(i), t.row(parents[i]), width * sizeof(float));
    std::swap(t, scratch);
}

}  // namespace

void Decoder::select_rows(DecoderState& state, const std::vector<int>& parents) {
    std::vector<int> sentence(parents.size());
    for (size_t i = 0; i < parents.size(); ++i) sentence[i] = state.sentence[parents[i]];
    state.sentence = std::move(sentence);
    gather_rows(state.hidden, parents, gather_);
    gather_rows(state.cell, parents, gather_);
    gather_rows(state.feed, parents, gather_);
}

void Decoder::embed(const int* tokens, int64_t M, float* out, int64_t stride) const {
    for (int64_t m = 0; m < M; ++m) out_.target_embeddings.row(tokens[m], out + m * stride);
}

// s_t = RNN(rnn_input_, s_{t−1}) with `cell`; the new state replaces the old one.
void Decoder::rnn(const CellWeights& cell, DecoderState& state, int64_t M) {
    const int64_t D = config_.dim_dec;
    gates_.resize({M, cell.W.cols()});
    cell_input(cell, rnn_input_.data(), M, gates_.data(), nullptr, nullptr);
    new_hidden_.resize({M, D});
    const bool lstm = config_.decoder_cell == CellType::LSTM;
    if (lstm) new_cell_.resize({M, D});
    cell_step(config_.decoder_cell, cell, M, D, gates_.data(), state.hidden.data(),
              lstm ? state.cell.data() : nullptr, new_hidden_.data(), lstm ? new_cell_.data() : nullptr,
              cell_scratch_);
    std::swap(state.hidden, new_hidden_);
    if (lstm) std::swap(state.cell, new_cell_);
}

// o_t += W_ℓ ℓ_t, where ℓ_t = Σ_j α_tj x_j over the row's own sentence.
void Decoder::add_lexical_output(const EncodedBatch& batch, const DecoderState& state, const Tensor& attention) {
    const int64_t M = state.rows();
    lexical_.resize({M, config_.dim_emb});
    attended_embeddings(batch, attention.data(), M, state.sentence.data(), lexical_.data());
    linear(lexical_.data(), M, *out_.lexical_W, nullptr, output_.data(), true, out_.lexical_W_int8);
}

void Decoder::restrict_output(std::vector<int> ids) {
    output_ids_ = std::move(ids);
    if (output_ids_.empty()) return;
    const int64_t n = static_cast<int64_t>(output_ids_.size()), E = config_.dim_emb;
    const Tensor& bias = *out_.vocab_b;
    restricted_bias_.resize({n});
    for (int64_t i = 0; i < n; ++i) restricted_bias_[i] = bias[output_ids_[i]];
    if (out_.vocab_W_int8) {  // entries keep their own scales: cut, not requantised
        const QuantizedMatrix& rows = int8_output_layer(true);
        restricted_int8_.K = rows.K;
        restricted_int8_.N = n;
        restricted_int8_.by_output = true;
        restricted_int8_.values.resize(rows.K * n);
        restricted_int8_.scales.resize(n);
        restricted_int8_.column_sums.resize(rows.column_sums.empty() ? 0 : n);
        for (int64_t i = 0; i < n; ++i) {
            if (!rows.column_sums.empty()) restricted_int8_.column_sums[i] = rows.column_sums[output_ids_[i]];
            restricted_int8_.scales[i] = rows.scales[output_ids_[i]];
            std::memcpy(restricted_int8_.values.data() + i * rows.K, rows.data() + output_ids_[i] * rows.K,
                        rows.K);
        }
        return;
    }
    const Tensor& W = *out_.vocab_W;
    if (config_.tied_embeddings) {
        restricted_weights_.resize({n, E});
        for (int64_t i = 0; i < n; ++i) std::memcpy(restricted_weights_.row(i), W.row(output_ids_[i]), E * sizeof(float));
    } else {
        restricted_weights_.resize({E, n});
        for (int64_t k = 0; k < E; ++k)
            for (int64_t i = 0; i < n; ++i) restricted_weights_[k * n + i] = W[k * W.cols() + output_ids_[i]];
    }
}

const QuantizedMatrix& Decoder::int8_output_layer(bool by_output) {
    const QuantizedMatrix& stored = *out_.vocab_W_int8;
    if (stored.by_output == by_output) return stored;
    if (output_layer_turned_.values.empty()) output_layer_turned_ = transposed_layout(stored);  // once, at first need
    return output_layer_turned_;
}

void Decoder::vocabulary_projection(Tensor& log_probs) {
    const bool restricted = !output_ids_.empty();
    const int64_t M = output_.rows(), V = restricted ? static_cast<int64_t>(output_ids_.size()) : config_.target_vocab_size;
    log_probs.resize({M, V});
    const Tensor& bias = restricted ? restricted_bias_ : *out_.vocab_b;
    // The full layer laid out by input for oneDNN; as loaded for a few rows,
    // which the small-batch kernel reads by entry.
    const QuantizedMatrix* int8 = !out_.vocab_W_int8                  ? nullptr
                                  : restricted                        ? &restricted_int8_
                                  : out_.vocab_W_int8->small_batch(M) ? out_.vocab_W_int8
                                                                      : &int8_output_layer(false);
    const Tensor& W = restricted ? restricted_weights_ : *out_.vocab_W;
    if (int8) {  // laid out by input for the full product, by vocabulary entry when cut
        int8_product(output_.data(), M, *int8, 0, V, log_probs.data(), V, false);
        add_bias(log_probs.data(), M, V, bias.data());
    } else if (config_.tied_embeddings) {
        linear_transposed(output_.data(), M, W, &bias, log_probs.data());
    } else {
        linear(output_.data(), M, W, &bias, log_probs.data());
    }
#pragma omp parallel for schedule(static) if (worth_threads(M * V))
    for (int64_t m = 0; m < M; ++m) log_softmax_inplace(log_probs.row(m), V);
}

// Decoding's side of decoder_step: cells step DecoderState in place.
class Decoder::StepOps final : public DecoderStepOps {
public:
    StepOps(Decoder& decoder, const EncodedBatch& batch, DecoderState& state, Tensor& attention)
        : d_(decoder), batch_(batch), state_(state), attention_(attention) {}
    float* cell_input(int cell) override {
        const CellWeights& w = cell == 0 ? d_.rnn_weights_ : *d_.rnn2_weights_;
        d_.rnn_input_.resize({state_.rows(), w.W.shape[0]});
        return d_.rnn_input_.data();
    }
    const float* run_cell(int cell) override {
        d_.rnn(cell == 0 ? d_.rnn_weights_ : *d_.rnn2_weights_, state_, state_.rows());
        return state_.hidden.data();
    }
    const float* state() const override { return state_.hidden.data(); }
    const float* attend(const float* queries) override {
        d_.attention_.attend(batch_, queries, state_.rows(), state_.sentence.data(), d_.context_.data(),
                             attention_.data());
        return d_.context_.data();
    }

private:
    Decoder& d_;
    const EncodedBatch& batch_;
    DecoderState& state_;
    Tensor& attention_;
};

void Decoder::step(const EncodedBatch& batch, DecoderState& state, const int* previous_tokens, Tensor& log_probs,
                   Tensor& attention) {
    const int64_t M = state.rows(), E = config_.dim_emb;
    context_.resize({M, config_.dim_context()});
    attention.resize({M, batch.max_length});
    embedded_.resize({M, E});
    embed(previous_tokens, M, embedded_.data(), E);
    features_.resize({M, decoder_feature_size(config_)});
    StepOps ops(*this, batch, state, attention);
    const bool feeding = config_.decoder_style == DecoderStyle::Luong && config_.input_feeding;
    decoder_step(config_, M, embedded_.data(), feeding ? state.feed.data() : nullptr, ops, features_.data());
    output_.resize({M, E});
    deep_output(features_.data(), M, *out_.deep_W, *out_.deep_b, out_.deep_W_int8, output_.data());
    if (config_.lexical_model) add_lexical_output(batch, state, attention);
    vocabulary_projection(log_probs);
    if (feeding) state.feed = output_;
}

}  // namespace nmt
