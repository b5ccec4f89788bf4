#include "train/dropout_masks.h"

namespace nmt {

void DropoutMasks::apply(float* x, Tensor& mask, int64_t rows, int64_t N, int64_t width,
                         const std::vector<int64_t>& lengths, bool time_major, float p, uint64_t site) const {
    mask.resize({rows * N * width});
    mask.fill(1.0f);
    if (p <= 0.0f) return;
    const float keep = 1.0f / (1.0f - p);
    for (int64_t n = 0; n < N; ++n) {
        Random random = sentence(site, n);
        for (int64_t t = 0; t < lengths[n] && t < rows; ++t) {
            const int64_t start = (time_major ? t * N + n : n * rows + t) * width;
            for (int64_t k = start; k < start + width; ++k) {
                mask[k] = random.uniform() < p ? 0.0f : keep;
                x[k] *= mask[k];
            }
        }
    }
}

void DropoutMasks::drop_words(float* x, Tensor& mask, int64_t N, int64_t width, const std::vector<int64_t>& lengths,
                              float p, uint64_t site) const {
    if (p <= 0.0f) return;
    const float keep = 1.0f / (1.0f - p);
    for (int64_t n = 0; n < N; ++n) {
        Random random = sentence(site, n);
        for (int64_t t = 0; t < lengths[n]; ++t) {
            const float scale = random.uniform() < p ? 0.0f : keep;
            for (int64_t k = 0, i = (t * N + n) * width; k < width; ++k, ++i) {
                x[i] *= scale;
                mask[i] *= scale;
            }
        }
    }
}

void DropoutMasks::per_sentence(Tensor& mask, int64_t N, int64_t width, float p, uint64_t site) const {
    mask.resize({N, width});
    const float keep = 1.0f / (1.0f - p);
    for (int64_t n = 0; n < N; ++n) {
        Random random = sentence(site, n);
        float* row = mask.row(n);
        for (int64_t k = 0; k < width; ++k) row[k] = random.uniform() < p ? 0.0f : keep;
    }
}

}  // namespace nmt
