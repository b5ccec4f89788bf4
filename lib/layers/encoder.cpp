#include "layers/encoder.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/fast_math.h"
#include "core/gemm.h"

namespace nmt {

Encoder::Encoder(const Model& model) : model_(model) {
    const auto& c = model.config;
    auto layer = [&](const std::string& prefix) { return make_rnn_layer(model, prefix, c.encoder_cell); };
    forward_ = layer("encoder.0.forward");
    backward_ = layer("encoder.0.backward");
    for (int l = 1; l < c.encoder_depth; ++l) upper_.push_back(layer("encoder." + std::to_string(l)));
}

Encoder::~Encoder() = default;

// Time-major [T, N, E]; with `reversed`, each sentence's real tokens are laid
// out last-to-first so a left-to-right pass computes the right-to-left states.
void Encoder::embed(const std::vector<std::vector<int>>& sentences, int64_t T, bool reversed, Tensor& out) const {
    const EmbeddingTable table = model_.embedding_table(model_.config.source_embeddings());
    const int64_t N = sentences.size(), E = table.dim;
    out.resize({T, N, E});
    out.fill(0.0f);
    for (int64_t n = 0; n < N; ++n) {
        const auto& ids = sentences[n];
        const int64_t len = ids.size();
        for (int64_t t = 0; t < len; ++t) {
            const int id = ids[reversed ? len - 1 - t : t];
            table.row(id, out.data() + (t * N + n) * E);
        }
    }
}

EncodedBatch Encoder::encode(const std::vector<std::vector<int>>& sentences) {
    const auto& c = model_.config;
    EncodedBatch out;
    out.batch = sentences.size();
    for (const auto& s : sentences) {
        out.lengths.push_back(s.size());
        out.max_length = std::max<int64_t>(out.max_length, s.size());
    }
    const int64_t N = out.batch, T = out.max_length, H = c.dim_rnn, C = c.dim_context();

    embed(sentences, T, false, embedded_);
    embed(sentences, T, true, embedded_reversed_);
    out_forward_.resize({T, N, H});
    out_backward_.resize({T, N, H});
    forward_->forward(embedded_.data(), T, N, out_forward_.data());
    backward_->forward(embedded_reversed_.data(), T, N, out_backward_.data());

    join_directions(out_forward_.data(), out_backward_.data(), out.lengths, T, N, H, layer_a_);
    for (size_t l = 0; l < upper_.size(); ++l) {  // layer l + 1
        layer_b_.resize({T, N, C});
        upper_[l]->forward(layer_a_.data(), T, N, layer_b_.data());
        if (residual_into(static_cast<int>(l) + 1))
            for (int64_t i = 0; i < layer_b_.size(); ++i) layer_b_[i] += layer_a_[i];
        std::swap(layer_a_, layer_b_);
    }
    to_batch_major(layer_a_.data(), out.lengths, T, N, C, out.states);
    initial_decoder_state(model_, out.states, out.lengths, mean_, out.init_state);
    attention_keys(model_, out.states, out.keys);
    if (c.lexical_model) {
        const int64_t E = c.dim_emb;
        out.embeddings = Tensor({N, T, E});
        for (int64_t n = 0; n < N; ++n)
            for (int64_t t = 0; t < out.lengths[n]; ++t)
                std::memcpy(out.embeddings.data() + (n * T + t) * E, embedded_.data() + (t * N + n) * E, E * sizeof(float));
    }
    return out;
}

void join_directions(const float* forward, const float* backward, const std::vector<int64_t>& lengths, int64_t T,
                     int64_t N, int64_t H, Tensor& out) {
    const int64_t C = 2 * H;
    out.zero({T, N, C});
    for (int64_t n = 0; n < N; ++n) {
        const int64_t len = lengths[n];
        for (int64_t t = 0; t < len; ++t) {
            float* dst = out.data() + (t * N + n) * C;
            std::memcpy(dst, forward + (t * N + n) * H, H * sizeof(float));
            std::memcpy(dst + H, backward + ((len - 1 - t) * N + n) * H, H * sizeof(float));
        }
    }
}

void to_batch_major(const float* time_major, const std::vector<int64_t>& lengths, int64_t T, int64_t N, int64_t C,
                    Tensor& out) {
    out.zero({N, T, C});
    for (int64_t n = 0; n < N; ++n)
        for (int64_t t = 0; t < lengths[n]; ++t)
            std::memcpy(out.data() + (n * T + t) * C, time_major + (t * N + n) * C, C * sizeof(float));
}

void initial_decoder_state(const Model& model, const Tensor& states, const std::vector<int64_t>& lengths, Tensor& mean,
                           Tensor& init) {
    const int64_t N = states.shape[0], T = states.shape[1], C = states.shape[2];
    mean.zero({N, C});
    for (int64_t n = 0; n < N; ++n) {
        float* m = mean.row(n);
        for (int64_t t = 0; t < lengths[n]; ++t) {
            const float* h = states.data() + (n * T + t) * C;
            for (int64_t k = 0; k < C; ++k) m[k] += h[k];
        }
        const float scale = 1.0f / static_cast<float>(lengths[n]);
        for (int64_t k = 0; k < C; ++k) m[k] *= scale;
    }
    const Tensor& W = model.param("decoder.init.W");
    init.resize({N, W.cols()});
    linear(mean.data(), N, W, &model.param("decoder.init.b"), init.data(), false, model.quantized("decoder.init.W"));
    tanh_inplace(init.data(), init.size());
}

// Keys depend only on the source, so they are computed once per sentence, not per step.
void attention_keys(const Model& model, const Tensor& states, Tensor& keys) {
    const int64_t N = states.shape[0], T = states.shape[1], rows = N * T;
    if (model.config.attention == AttentionType::Additive) {
        const Tensor& Wk = model.param("attention.Wk");
        keys.resize({N, T, Wk.cols()});
        linear(states.data(), rows, Wk, &model.param("attention.b"), keys.data(), false,
               model.quantized("attention.Wk"));
    } else if (model.has("attention.Wa")) {
        // qᵀ W_a h = q · (W_a h): keys are W_a h_j, i.e. h_j · W_aᵀ.
        const Tensor& Wa = model.param("attention.Wa");
        keys.resize({N, T, Wa.shape[0]});
        linear_transposed(states.data(), rows, Wa, nullptr, keys.data());
    } else {
        keys = Tensor();
    }
}

}  // namespace nmt
