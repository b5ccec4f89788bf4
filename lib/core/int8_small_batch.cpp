#include "core/int8_small_batch.h"

#include <immintrin.h>

#include "core/int8_gemm.h"
#include "core/parallel.h"
#include "core/widest_vectors.h"

namespace nmt {

bool small_batch_kernel_available() {
    static const bool available = __builtin_cpu_supports("avx2") && int8_activation_levels() < 128;
    return available;
}

namespace {

// Σ of n int8 values, in the CPU's widest vectors (a model's 20 million at load).
NMT_WIDEST_VECTORS int32_t sum_of(const int8_t* values, int64_t n) {
    int32_t sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int64_t k = 0; k < n; ++k) sum += values[k];
    return sum;
}

}  // namespace

std::vector<int32_t> by_output_sums(const int8_t* W, int64_t N, int64_t K) {
    std::vector<int32_t> sums(N, 0);
    for (int64_t n = 0; n < N; ++n) sums[n] = sum_of(W + n * K, K);
    return sums;
}

namespace {

__attribute__((target("avx2"))) inline int32_t horizontal_sum(__m256i v) {
    const __m128i half = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    const __m128i quarter = _mm_add_epi32(half, _mm_shuffle_epi32(half, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm_cvtsi128_si32(_mm_add_epi32(quarter, _mm_shuffle_epi32(quarter, _MM_SHUFFLE(2, 3, 0, 1))));
}

// Up to kRows rows of x against two columns at a time: 2·kRows accumulators,
// the two columns' weights loaded once per 32 values for every row.
constexpr int kRows = 4;

template <int Rows>
__attribute__((target("avx2"))) void rows_by_columns(const uint8_t* x, int64_t K, int64_t vector_end, uint8_t zero,
                                                     const int8_t* W, int64_t stride, const int32_t* column_sums,
                                                     int64_t first, int64_t count, int32_t* sums, int64_t ldc) {
    const __m256i ones = _mm256_set1_epi16(1);
    int64_t j = 0;
    for (; j + 2 <= count; j += 2) {
        const int8_t* w0 = W + (first + j) * stride;
        const int8_t* w1 = w0 + stride;
        __m256i acc0[Rows], acc1[Rows];
        for (int r = 0; r < Rows; ++r) acc0[r] = acc1[r] = _mm256_setzero_si256();
        for (int64_t k = 0; k < vector_end; k += 32) {
            const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w0 + k));
            const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w1 + k));
            for (int r = 0; r < Rows; ++r) {
                const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + r * K + k));
                acc0[r] = _mm256_add_epi32(acc0[r], _mm256_madd_epi16(_mm256_maddubs_epi16(a, b0), ones));
                acc1[r] = _mm256_add_epi32(acc1[r], _mm256_madd_epi16(_mm256_maddubs_epi16(a, b1), ones));
            }
        }
        for (int r = 0; r < Rows; ++r) {
            int32_t s0 = horizontal_sum(acc0[r]), s1 = horizontal_sum(acc1[r]);
            for (int64_t k = vector_end; k < K; ++k) {
                s0 += x[r * K + k] * w0[k];
                s1 += x[r * K + k] * w1[k];
            }
            sums[r * ldc + j] = s0 - zero * column_sums[first + j];
            sums[r * ldc + j + 1] = s1 - zero * column_sums[first + j + 1];
        }
    }
    for (; j < count; ++j) {  // an odd last column
        const int8_t* w = W + (first + j) * stride;
        for (int r = 0; r < Rows; ++r) {
            int32_t s = 0;
            for (int64_t k = 0; k < K; ++k) s += x[r * K + k] * w[k];
            sums[r * ldc + j] = s - zero * column_sums[first + j];
        }
    }
}

void row_group(int rows, const uint8_t* x, int64_t K, uint8_t zero, const int8_t* W, int64_t stride,
               const int32_t* column_sums, int64_t first, int64_t count, int32_t* sums, int64_t ldc) {
    const int64_t vector_end = K / 32 * 32;
    switch (rows) {
        case 1: rows_by_columns<1>(x, K, vector_end, zero, W, stride, column_sums, first, count, sums, ldc); break;
        case 2: rows_by_columns<2>(x, K, vector_end, zero, W, stride, column_sums, first, count, sums, ldc); break;
        case 3: rows_by_columns<3>(x, K, vector_end, zero, W, stride, column_sums, first, count, sums, ldc); break;
        default: rows_by_columns<4>(x, K, vector_end, zero, W, stride, column_sums, first, count, sums, ldc); break;
    }
}

}  // namespace

void small_batch_sums(const uint8_t* x, int64_t M, int64_t K, uint8_t zero, const int8_t* W, int64_t stride,
                      const int32_t* column_sums, int64_t first, int64_t count, int32_t* sums, int64_t ldc) {
    // Threads take blocks of columns (even-sized, so that pairs stay whole),
    // each reading its part of the weights once for all rows.
    constexpr int64_t block = 64;
    const int64_t blocks = (count + block - 1) / block;
#pragma omp parallel for schedule(static) if (worth_threads(M * K * count / 8))
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t begin = b * block, n = std::min(block, count - begin);
        for (int64_t m = 0; m < M; m += kRows)
            row_group(static_cast<int>(std::min<int64_t>(kRows, M - m)), x + m * K, K, zero, W, stride, column_sums,
                      first + begin, n, sums + m * ldc + begin, ldc);
    }
}

}  // namespace nmt
