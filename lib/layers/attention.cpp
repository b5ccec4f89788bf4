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

Attention::Attention(const Model& model) : model_(model), type_(model.config.attention) {
    if (type_ == AttentionType::ScaledDot) scale_ = 1.0f / std::sqrt(static_cast<float>(model.config.dim_dec));
}

int64_t Attention::query_size() const {
    return type_ == AttentionType::Additive ? model_.config.dim_attention : model_.config.dim_dec;
}

void Attention::project_queries(const float* queries, int64_t M, float* out) const {
    if (type_ == AttentionType::Additive)
        linear(queries, M, model_.param("attention.Wq"), nullptr, out, false, model_.quantized("attention.Wq"));
    else
        std::memcpy(out, queries, M * query_size() * sizeof(float));
}

void Attention::scores(const EncodedBatch& batch, const float* q, int sentence, float* out, float* scratch) const {
    const int64_t len = batch.lengths[sentence], T = batch.max_length;
    if (type_ == AttentionType::Additive) {
        // vᵀ tanh(W_q q + W_k h_j + b): the key part is precomputed per sentence.
        const int64_t A = model_.config.dim_attention;
        const float* keys = batch.keys.data() + sentence * T * A;
        for (int64_t j = 0; j < len; ++j)
            for (int64_t a = 0; a < A; ++a) scratch[j * A + a] = q[a] + keys[j * A + a];
        tanh_inplace(scratch, len * A);
        const float* v = model_.param("attention.v").data();
        for (int64_t j = 0; j < len; ++j) out[j] = dot(scratch + j * A, v, A);
        return;
    }
    const bool projected = !batch.keys.values.empty();
    const Tensor& keys = projected ? batch.keys : batch.states;
    const int64_t K = keys.shape[2];
    const float* base = keys.data() + sentence * T * K;
    for (int64_t j = 0; j < len; ++j) out[j] = scale_ * dot(q, base + j * K, K);
}

void Attention::attend(const EncodedBatch& batch, const float* queries, int64_t M, const int* row_sentence,
                       float* context, float* weights) {
    const int64_t T = batch.max_length, C = batch.states.shape[2], Q = query_size();
    const int64_t per_row = type_ == AttentionType::Additive ? T * model_.config.dim_attention : 0;
    projected_.resize({M, Q});
    project_queries(queries, M, projected_.data());
    scratch_.resize({M, per_row + 1});
    // Rows are independent and each is computed by one thread the same way,
    // so results do not depend on the thread count or on the other rows.
#pragma omp parallel for schedule(static) if (worth_threads(M * T * C))
    for (int64_t m = 0; m < M; ++m) {
        const int s = row_sentence[m];
        const int64_t len = batch.lengths[s];
        float* alpha = weights + m * T;
        scores(batch, projected_.row(m), s, alpha, scratch_.row(m));
        softmax_inplace(alpha, T, len);
        weighted_row_sum(alpha, len, batch.state(s, 0), C, C, context + m * C);
    }
}

}  // namespace nmt
