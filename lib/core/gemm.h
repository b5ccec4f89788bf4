// Matrix products through oneDNN's sgemm: every large product in the engine
// (RNN input and recurrent projections, attention, deep output, vocabulary
// projection) goes through here, so it runs on oneDNN's JIT kernels.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace nmt {

// C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C, all row-major, with
// leading dimensions so that column blocks of a wider matrix can be used.
void gemm(bool transpose_a, bool transpose_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
          int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

struct QuantizedMatrix;

// out[M, N] = x[M, K] · W[K, N] (+ bias[N] when given; + out when accumulate),
// through int8 (core/int8_gemm.h) when `quantized` is W in int8.
void linear(const float* x, int64_t M, const Tensor& W, const Tensor* bias, float* out, bool accumulate = false,
            const QuantizedMatrix* quantized = nullptr);

// out[M, count] (row stride ldc) = x[M, K] · W[:, first : first + count] for
// W [K, N] (+= when accumulate), through int8 when `quantized` is given.
void column_product(const float* x, int64_t M, const Tensor& W, const QuantizedMatrix* quantized, int64_t first,
                    int64_t count, float* out, int64_t ldc, bool accumulate);

// out[M, N] = x[M, K] · Wᵀ where W is [N, K] (tied output embeddings).
void linear_transposed(const float* x, int64_t M, const Tensor& W, const Tensor* bias, float* out);

void add_bias(float* out, int64_t M, int64_t N, const float* bias);

}  // namespace nmt
