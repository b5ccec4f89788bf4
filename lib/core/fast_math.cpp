#include "core/fast_math.h"

#include <cmath>
#include <cstring>

#include "core/widest_vectors.h"

namespace nmt {

namespace {

// e^x = 2^n · e^r with n = round(x·log2 e) and r = x − n·ln2 ∈ [−ln2/2, ln2/2],
// r computed in two parts (Cody–Waite) so the reduction itself loses nothing;
// e^r from its Taylor series to degree 6 (error < 2e-7 relative). Branch-free
// so that the loops below vectorise.
inline float exp_scalar(float x) {
    x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
    const float magic = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer
    const float n = (x * 1.44269504088896341f + magic) - magic;
    const float f = (x - n * 0.693145751953125f) - n * 1.428606765330187e-06f;
    float p = 1.0f / 720.0f;
    p = p * f + 1.0f / 120.0f;
    p = p * f + 1.0f / 24.0f;
    p = p * f + 1.0f / 6.0f;
    p = p * f + 0.5f;
    p = p * f + 1.0f;
    p = p * f + 1.0f;
    const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

inline float tanh_scalar(float x) {
    const float a = x < 0 ? -x : x;
    // 1 − 2/(e^{2a}+1) loses relative accuracy near 0; use the odd series there.
    const float a2 = a * a;
    const float series = a * (1.0f + a2 * (-1.0f / 3.0f + a2 * (2.0f / 15.0f + a2 * (-17.0f / 315.0f))));
    const float big = 1.0f - 2.0f / (exp_scalar(2.0f * a) + 1.0f);
    const float r = a < 0.125f ? series : big;
    return x < 0 ? -r : r;
}

inline float sigmoid_scalar(float x) { return 1.0f / (1.0f + exp_scalar(-x)); }

// max over row[0..n), as `max = row[i] > max ? row[i] : max` from row[0] would
// give it, NaNs included. That loop stays scalar (one dependent compare per
// element: GCC will not reorder the comparisons without -ffinite-math-only),
// so eight running maxima go in a vector (GCC's vector extension: AVX, or two
// SSE halves in the default clone) and meet at the end; a maximum does not
// depend on the order it was taken in.
inline float row_max(const float* row, int64_t n) {
    typedef float Lanes __attribute__((vector_size(32)));
    Lanes lanes = {row[0], row[0], row[0], row[0], row[0], row[0], row[0], row[0]};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        Lanes v;
        std::memcpy(&v, row + i, sizeof v);
        lanes = v > lanes ? v : lanes;
    }
    float max = row[0];
    for (int k = 0; k < 8; ++k) max = lanes[k] > max ? lanes[k] : max;
    for (; i < n; ++i) max = row[i] > max ? row[i] : max;
    return max;
}

}  // namespace

NMT_WIDEST_VECTORS void exp_inplace(float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) x[i] = exp_scalar(x[i]);
}

NMT_WIDEST_VECTORS void tanh_inplace(float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) x[i] = tanh_scalar(x[i]);
}

NMT_WIDEST_VECTORS void sigmoid_inplace(float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) x[i] = sigmoid_scalar(x[i]);
}

NMT_WIDEST_VECTORS void log_softmax_inplace(float* row, int64_t n) {
    const float max = row_max(row, n);
    // Summed in eight running sums that meet at the end, as row_max takes its
    // maximum: a sum taken one value after another stays scalar, each add
    // waiting on the last (a tenth of decoding at beam 5). The order is fixed,
    // so a row's sum does not depend on its batch.
    typedef float Lanes __attribute__((vector_size(32)));
    Lanes lanes = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        Lanes v;
        for (int k = 0; k < 8; ++k) v[k] = exp_scalar(row[i + k] - max);
        lanes += v;
    }
    float sum = 0.0f;
    for (int k = 0; k < 8; ++k) sum += lanes[k];
    for (; i < n; ++i) sum += exp_scalar(row[i] - max);
    const float shift = max + std::log(sum);
    for (int64_t i = 0; i < n; ++i) row[i] -= shift;
}

NMT_WIDEST_VECTORS void softmax_inplace(float* row, int64_t n, int64_t valid) {
    const float max = row_max(row, valid);
    float sum = 0.0f;
    for (int64_t i = 0; i < valid; ++i) {
        row[i] = exp_scalar(row[i] - max);
        sum += row[i];
    }
    const float inverse = 1.0f / sum;
    for (int64_t i = 0; i < valid; ++i) row[i] *= inverse;
    for (int64_t i = valid; i < n; ++i) row[i] = 0.0f;
}

}  // namespace nmt
