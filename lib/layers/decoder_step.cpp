#include "layers/decoder_step.h"

#include <cstring>

#include "core/fast_math.h"

namespace nmt {

namespace {

// Row m of `to` (width to_width) at column `at` ← row m of `from` (width n);
// from null: zeros.
void copy_rows(const float* from, int64_t n, int64_t M, float* to, int64_t to_width, int64_t at) {
    for (int64_t m = 0; m < M; ++m) {
        float* row = to + m * to_width + at;
        if (from) std::memcpy(row, from + m * n, n * sizeof(float));
        else std::memset(row, 0, n * sizeof(float));
    }
}

}  // namespace

int64_t decoder_feature_size(const ModelConfig& config) {
    const int64_t C = config.dim_context(), D = config.dim_dec;
    return config.decoder_style == DecoderStyle::Luong ? C + D : D + C + config.dim_emb;
}

void decoder_step(const ModelConfig& config, int64_t M, const float* embedded, const float* feed, DecoderStepOps& ops,
                  float* features) {
    const int64_t E = config.dim_emb, C = config.dim_context(), D = config.dim_dec, F = decoder_feature_size(config);
    switch (config.decoder_style) {
    case DecoderStyle::Conditional: {  // s'_t = RNN₁(E y_{t−1}, s_{t−1}); c_t = attend(s'_t); s_t = RNN₂(c_t, s'_t)
        copy_rows(embedded, E, M, ops.cell_input(0), E, 0);
        const float* context = ops.attend(ops.run_cell(0));
        copy_rows(context, C, M, ops.cell_input(1), C, 0);
        const float* s = ops.run_cell(1);
        copy_rows(s, D, M, features, F, 0);
        copy_rows(context, C, M, features, F, D);
        copy_rows(embedded, E, M, features, F, D + C);
        return;
    }
    case DecoderStyle::Bahdanau: {  // c_t = attend(s_{t−1}); s_t = RNN([E y_{t−1}; c_t], s_{t−1})
        const float* context = ops.attend(ops.state());
        float* x = ops.cell_input(0);
        copy_rows(embedded, E, M, x, E + C, 0);
        copy_rows(context, C, M, x, E + C, E);
        const float* s = ops.run_cell(0);
        copy_rows(s, D, M, features, F, 0);
        copy_rows(context, C, M, features, F, D);
        copy_rows(embedded, E, M, features, F, D + C);
        return;
    }
    case DecoderStyle::Luong: {  // s_t = RNN([E y_{t−1}; õ_{t−1}], s_{t−1}); c_t = attend(s_t)
        const int64_t I = config.input_feeding ? 2 * E : E;
        float* x = ops.cell_input(0);
        copy_rows(embedded, E, M, x, I, 0);
        if (config.input_feeding) copy_rows(feed, E, M, x, I, E);
        const float* s = ops.run_cell(0);
        const float* context = ops.attend(s);
        copy_rows(context, C, M, features, F, 0);
        copy_rows(s, D, M, features, F, C);
        return;
    }
    }
}

void deep_output(const float* features, int64_t M, const Tensor& W, const Tensor& b, const QuantizedMatrix* W_int8,
                 float* out) {
    linear(features, M, W, &b, out, false, W_int8);
    tanh_inplace(out, M * W.cols());
}

}  // namespace nmt
