#include "core/gemm.h"

#include <dnnl.hpp>

#include "core/error.h"
#include "core/int8_gemm.h"

namespace nmt {

void gemm(bool transpose_a, bool transpose_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
          int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
    if (M == 0 || N == 0) return;
    const dnnl_status_t status = dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', M, N, K, alpha, A,
                                            lda, B, ldb, beta, C, ldc);
    if (status != dnnl_success) throw Error("oneDNN sgemm failed with status " + std::to_string(status));
}

void add_bias(float* out, int64_t M, int64_t N, const float* bias) {
    for (int64_t m = 0; m < M; ++m) {
        float* row = out + m * N;
        for (int64_t n = 0; n < N; ++n) row[n] += bias[n];
    }
}

void column_product(const float* x, int64_t M, const Tensor& W, const QuantizedMatrix* quantized, int64_t first,
                    int64_t count, float* out, int64_t ldc, bool accumulate) {
    const int64_t K = W.shape[0], N = W.cols();
    if (quantized)
        int8_product(x, M, *quantized, first, count, out, ldc, accumulate);
    else
        gemm(false, false, M, count, K, 1.0f, x, K, W.data() + first, N, accumulate ? 1.0f : 0.0f, out, ldc);
}

void linear(const float* x, int64_t M, const Tensor& W, const Tensor* bias, float* out, bool accumulate,
            const QuantizedMatrix* quantized) {
    const int64_t N = W.cols();
    column_product(x, M, W, quantized, 0, N, out, N, accumulate);
    if (bias) add_bias(out, M, N, bias->data());
}

void linear_transposed(const float* x, int64_t M, const Tensor& W, const Tensor* bias, float* out) {
    const int64_t N = W.shape[0], K = W.cols();
    gemm(false, true, M, N, K, 1.0f, x, K, W.data(), K, 0.0f, out, N);
    if (bias) add_bias(out, M, N, bias->data());
}

}  // namespace nmt
