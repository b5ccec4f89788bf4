#include "layers/layer_norm.h"

#include <cmath>

namespace nmt {

namespace {
constexpr float kEpsilon = 1e-5f;  // keeps a constant block (the zero initial state's product) finite
}

float normalize(const float* x, int64_t n, float* x_hat) {
    float mean = 0;
    for (int64_t i = 0; i < n; ++i) mean += x[i];
    mean /= static_cast<float>(n);
    float variance = 0;
    for (int64_t i = 0; i < n; ++i) variance += (x[i] - mean) * (x[i] - mean);
    variance /= static_cast<float>(n);
    const float inverse_std = 1.0f / std::sqrt(variance + kEpsilon);
    for (int64_t i = 0; i < n; ++i) x_hat[i] = (x[i] - mean) * inverse_std;
    return inverse_std;
}

// dx = (1/σ)·(dx̂ − mean(dx̂) − x̂·mean(dx̂ ∘ x̂)), dx̂ = dy ∘ gain.
void normalize_backward(const float* dy, const float* gain, const float* x_hat, float inverse_std, int64_t n, float* dx,
                        float* dgain) {
    float mean_d = 0, mean_dx = 0;
    for (int64_t i = 0; i < n; ++i) {
        const float d = dy[i] * gain[i];
        dx[i] = d;
        mean_d += d;
        mean_dx += d * x_hat[i];
    }
    mean_d /= static_cast<float>(n);
    mean_dx /= static_cast<float>(n);
    for (int64_t i = 0; i < n; ++i) dx[i] = inverse_std * (dx[i] - mean_d - x_hat[i] * mean_dx);
    if (dgain)
        for (int64_t i = 0; i < n; ++i) dgain[i] += dy[i] * x_hat[i];
}

}  // namespace nmt
