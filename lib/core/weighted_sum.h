// out ← Σ_j weights[j] · row_j, for `count` rows of `width` floats lying
// `stride` floats apart: the attention context c_t = Σ_j α_tj h_j and the
// lexical model's ℓ_t = Σ_j α_tj x_j, in inference and in training alike.
// Elementwise multiply-then-add in j order, so the vectorised loop gives the
// bits the plain loop does.
#pragma once
#include <cstdint>
#include <cstring>

namespace nmt {

inline void weighted_row_sum(const float* weights, int64_t count, const float* rows, int64_t stride, int64_t width,
                             float* out) {
    std::memset(out, 0, width * sizeof(float));
    for (int64_t j = 0; j < count; ++j) {
        const float a = weights[j];
        const float* row = rows + j * stride;
#pragma omp simd
        for (int64_t k = 0; k < width; ++k) out[k] += a * row[k];
    }
}

}  // namespace nmt
