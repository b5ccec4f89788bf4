#include "layers/attention.h"

#include <cmath>
#include <cstring>

#include "core/fast_math.h"
#include "core/gemm.h"
#include "core/parallel.h"
#include "core/weighted_sum.h"

namespace nmt {

namespace {

float dot(const float* a, const float* b, int64_t n) {
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
    return sum;
}

}  // namespace

void attention_scores(AttentionType type, const float* q, const float* keys, int64_t K, int64_t len, const float* v,
                      float scale, float* out, float* energies) {
    if (type == AttentionType::Additive) {
        for (int64_t j = 0; j < len; ++j)
            for (int64_t a = 0; a < K; ++a) energies[j * K + a] = q[a] + keys[j * K + a];
        tanh_inplace(energies, len * K);
        for (int64_t j = 0; j < len; ++j) out[j] = dot(energies + j * K, v, K);
        return;
    }
    for (int64_t j = 0; j < len; ++j) out[j] = scale * dot(q, keys + j * K, K);
}

float attention_scale(const ModelConfig& config) {
    return config.attention == AttentionType::ScaledDot ? 1.0f / std::sqrt(static_cast<float>(config.dim_dec)) : 1.0f;
}

void attended_embeddings(const EncodedBatch& batch, const float* weights, int64_t M, const int* row_sentence,
                         float* out) {
    const int64_t T = batch.max_length, E = batch.embeddings.shape[2];
#pragma omp parallel for schedule(static) if (worth_threads(M * T * E))
    for (int64_t m = 0; m < M; ++m) {
        const int s = row_sentence[m];
        weighted_row_sum(weights + m * T, batch.lengths[s], batch.embedding(s, 0), E, E, out + m * E);
    }
}

Attention::Attention(const Model& model)
    : model_(model), type_(model.config.attention), scale_(attention_scale(model.config)) {
    if (type_ == AttentionType::Additive) {
        Wq_ = &model.param("attention.Wq");
        Wq_int8_ = model.quantized("attention.Wq");
        v_ = model.param("attention.v").data();
    }
}

int64_t Attention::query_size() const {
    return type_ == AttentionType::Additive ? model_.config.dim_attention : model_.config.dim_dec;
}

void Attention::project_queries(const float* queries, int64_t M, float* out) const {
    if (type_ == AttentionType::Additive)
        linear(queries, M, *Wq_, nullptr, out, false, Wq_int8_);
    else
        std::memcpy(out, queries, M * query_size() * sizeof(float));
}

void Attention::scores(const EncodedBatch& batch, const float* q, int sentence, float* out, float* scratch) const {
    const int64_t T = batch.max_length;
    // Additive keys are always projected (W_k h_j + b, precomputed per
    // sentence); general attention's are W_a h_j; dot attention scores the states.
    const Tensor& keys = batch.keys.values.empty() ? batch.states : batch.keys;
    const int64_t K = keys.shape[2];
    attention_scores(type_, q, keys.data() + sentence * T * K, K, batch.lengths[sentence], v_, scale_, out, scratch);
}

void Attention::attend(const EncodedBatch& batch, const float* queries, int64_t M, const int* row_sentence,
                       float* context, float* weights, const AttentionRecord* record) {
    const int64_t T = batch.max_length, C = batch.states.shape[2], Q = query_size();
    const int64_t per_row = type_ == AttentionType::Additive ? T * model_.config.dim_attention : 0;
    if (!record) {
        projected_.resize({M, Q});
        // Grown only (one row of tanh values per query row), not zeroed again each step.
        if (scratch_.size() < M * per_row) scratch_.resize({M * per_row});
    }
    float* projected = record ? record->projected : projected_.data();
    float* energies = per_row == 0 ? nullptr : record ? record->energies : scratch_.data();  // additive only
    project_queries(queries, M, projected);
    // Rows are independent and each is computed by one thread the same way,
    // so results do not depend on the thread count or on the other rows.
#pragma omp parallel for schedule(static) if (worth_threads(M * T * C))
    for (int64_t m = 0; m < M; ++m) {
        const int s = row_sentence[m];
        const int64_t len = batch.lengths[s];
        float* alpha = weights + m * T;
        scores(batch, projected + m * Q, s, alpha, energies ? energies + m * per_row : nullptr);
        softmax_inplace(alpha, T, len);
        weighted_row_sum(alpha, len, batch.state(s, 0), C, C, context + m * C);
    }
}

}  // namespace nmt
