#include "core/int8_gemm.h"

#include <dnnl.h>
#include <emmintrin.h>

#include <algorithm>
#include <cmath>

#include "core/backed_memory.h"
#include "core/error.h"
#include "core/int8_small_batch.h"
#include "core/parallel.h"
#include "core/widest_vectors.h"

namespace nmt {

namespace {

// Activations are symmetric around zero: x ≈ (q − zero)·scale with q in
// [zero − levels, zero + levels], so that u8 (what the kernels multiply)
// holds them: [1, 255] with VNNI, [1, 127] without (int8_activation_levels).

// std::nearbyint for |x| ≤ 2²²: adding and taking away 1.5·2²³ leaves x
// rounded to an integer, ties to even, in the default rounding mode, inline
// (nearbyintf is a library call on CPUs without SSE 4.1, most of quantising).
inline float round_to_even(float x) {
    constexpr float shift = 12582912.0f;  // 1.5 · 2^23
    return (x + shift) - shift;  // not folded: nmt is built without -ffast-math
}

// Quantising walks every weight of a model while it loads: in the CPU's
// widest vectors where it has them (core/widest_vectors.h).

NMT_WIDEST_VECTORS float row_max_abs(const float* x, int64_t n) {
    float m = 0.0f;
#pragma omp simd reduction(max : m)
    for (int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
    return m;
}

// maxima[c] = max(maxima[c], |x[c]|). Written so that the compiler
// vectorises it (std::max in place, with maxima possibly aliasing x, stayed
// one value at a time: a third of quantising a model).
NMT_WIDEST_VECTORS void column_max_abs(const float* __restrict x, int64_t n, float* __restrict maxima) {
    for (int64_t c = 0; c < n; ++c) {
        const float a = std::fabs(x[c]);
        maxima[c] = a > maxima[c] ? a : maxima[c];
    }
}

// out[c] = round(x[c] / scale), and the same with a scale for each column.
NMT_WIDEST_VECTORS void quantize_row(const float* __restrict x, int64_t n, float scale, int8_t* __restrict out) {
    for (int64_t c = 0; c < n; ++c) out[c] = static_cast<int8_t>(round_to_even(x[c] / scale));
}

NMT_WIDEST_VECTORS void quantize_row_by_column(const float* __restrict x, int64_t n, const float* __restrict scales,
                                               int8_t* __restrict out) {
    for (int64_t c = 0; c < n; ++c) out[c] = static_cast<int8_t>(round_to_even(x[c] / scales[c]));
}

// out[n] = sums[n] · (row_scale · column_scales[n]): products alone, so every
// clone gives the same values (the accumulating form, whose multiply-add a
// wider clone could fuse, is left to the default build).
NMT_WIDEST_VECTORS void dequantize_row(const int32_t* __restrict sums, int64_t n, float row_scale,
                                       const float* __restrict column_scales, float* __restrict out) {
    for (int64_t c = 0; c < n; ++c) out[c] = static_cast<float>(sums[c]) * (row_scale * column_scales[c]);
}

// out (row stride out_stride) = the 16 × 16 bytes at in (row stride
// in_stride), turned: interleaving bytes, then 2-, 4- and 8-byte groups, of
// rows 1, 2, 4 and 8 apart (SSE2, which every x86-64 CPU has).
void transpose_16x16(const int8_t* in, int64_t in_stride, int8_t* out, int64_t out_stride) {
    __m128i rows[16], pairs[16], quads[16];
    for (int i = 0; i < 16; ++i) rows[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i * in_stride));
    // pairs[8h + i]: rows 2i and 2i+1, each column of columns 8h..8h+7 as 2 bytes.
    for (int i = 0; i < 8; ++i) {
        pairs[i] = _mm_unpacklo_epi8(rows[2 * i], rows[2 * i + 1]);
        pairs[8 + i] = _mm_unpackhi_epi8(rows[2 * i], rows[2 * i + 1]);
    }
    // quads[4q + j]: rows 4j..4j+3, each column of columns 4q..4q+3 as 4 bytes.
    for (int h = 0; h < 2; ++h)
        for (int j = 0; j < 4; ++j) {
            const __m128i upper = pairs[8 * h + 2 * j], lower = pairs[8 * h + 2 * j + 1];
            quads[4 * (2 * h) + j] = _mm_unpacklo_epi16(upper, lower);
            quads[4 * (2 * h + 1) + j] = _mm_unpackhi_epi16(upper, lower);
        }
    for (int q = 0; q < 4; ++q) {
        // Rows 0-7 and 8-15 of columns 4q, 4q+1 (low) and 4q+2, 4q+3 (high) as 8 bytes.
        const __m128i low0 = _mm_unpacklo_epi32(quads[4 * q], quads[4 * q + 1]);
        const __m128i high0 = _mm_unpackhi_epi32(quads[4 * q], quads[4 * q + 1]);
        const __m128i low1 = _mm_unpacklo_epi32(quads[4 * q + 2], quads[4 * q + 3]);
        const __m128i high1 = _mm_unpackhi_epi32(quads[4 * q + 2], quads[4 * q + 3]);
        const __m128i columns[4] = {_mm_unpacklo_epi64(low0, low1), _mm_unpackhi_epi64(low0, low1),
                                    _mm_unpacklo_epi64(high0, high1), _mm_unpackhi_epi64(high0, high1)};
        for (int c = 0; c < 4; ++c)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (4 * q + c) * out_stride), columns[c]);
    }
}

}  // namespace

bool int8_has_vnni() {
    const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    return isa == dnnl_cpu_isa_avx512_core_vnni || isa == dnnl_cpu_isa_avx512_core_bf16 ||
           isa == dnnl_cpu_isa_avx512_core_amx || isa == dnnl_cpu_isa_avx2_vnni;
}

bool int8_has_avx2() {
    // The ISA values are nested bit masks: every one from AVX2 up holds its bits.
    const auto isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
    return (isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2;
}

void compile_int8_kernels() {
    uint8_t a[4] = {0, 0, 0, 0};
    int8_t b[4] = {0, 0, 0, 0};
    int32_t c[4], offset = 0;
    dnnl_gemm_u8s8s32('N', 'N', 'F', 2, 2, 2, 1.0f, a, 2, 0, b, 2, 0, 0.0f, c, 2, &offset);
}

int int8_activation_levels() {
    static const int levels = int8_has_vnni() ? 127 : 63;
    return levels;
}

QuantizedMatrix quantize_columns(const Tensor& W, bool transposed) {
    return quantize_columns([&W](int64_t r, float*) { return W.row(r); }, W.shape, transposed);
}

QuantizedMatrix quantize_columns(const MatrixRows& row, const Shape& shape, bool transposed) {
    if (shape.size() != 2) throw Error("int8: cannot quantise a tensor of shape " + shape_to_string(shape));
    QuantizedMatrix q;
    q.K = transposed ? shape[1] : shape[0];
    q.N = transposed ? shape[0] : shape[1];
    // Walked in storage order (rows of W, whichever of k and n they are), and
    // values kept in W's own layout: a transposed W (the 16 MB tied
    // embeddings) is laid out by output. Walking columns, value by value,
    // took most of the 35 ms that quantising a model took at load.
    const int64_t rows = shape[0], cols = shape[1];
    std::vector<float> scratch(cols);
    q.by_output = transposed;
    q.scales.assign(q.N, 0.0f);
    float* scales = q.scales.data();
    for (int64_t r = 0; r < rows; ++r) {
        if (transposed)
            scales[r] = row_max_abs(row(r, scratch.data()), cols);
        else
            column_max_abs(row(r, scratch.data()), cols, scales);
    }
    for (float& s : q.scales) s = s > 0.0f ? s / static_cast<float>(int8_weight_levels) : 1.0f;
    reserve_backed(q.values, static_cast<size_t>(q.K * q.N));
    q.values.resize(q.K * q.N);
    int8_t* values = q.values.data();
    for (int64_t r = 0; r < rows; ++r) {
        if (transposed)
            quantize_row(row(r, scratch.data()), cols, scales[r], values + r * cols);
        else
            quantize_row_by_column(row(r, scratch.data()), cols, scales, values + r * cols);
    }
    return q;
}

bool QuantizedMatrix::small_batch(int64_t M) const { return M <= kSmallBatchRows && !column_sums.empty(); }

void prepare_small_batches(QuantizedMatrix& W) {
    if (!small_batch_kernel_available() || W.empty()) return;
    if (!W.by_output) W.by_output_copy = transposed_layout(W).values;
    W.column_sums = by_output_sums(W.by_output_data(), W.N, W.K);
}

QuantizedMatrix transposed_layout(const QuantizedMatrix& W) {
    QuantizedMatrix out;
    out.K = W.K;
    out.N = W.N;
    out.scales = W.scales;
    out.by_output = !W.by_output;
    const int64_t rows = W.by_output ? W.N : W.K, cols = W.by_output ? W.K : W.N;
    reserve_backed(out.values, static_cast<size_t>(rows * cols));
    out.values.resize(rows * cols);
    // In 16 × 16 blocks turned in SSE2 registers, then the ragged edges
    // value by value: value by value down the columns, the 4 MB of a tied
    // output layer took 33 ms at the first shortlist cut, and in 64 × 64
    // tiles a fifth of a wide model's start-up (laying out its 13 MB of
    // int8 weights for the small-batch kernel).
    const int8_t* in = W.data();
    int8_t* to = out.values.data();
    const int64_t block_rows = rows / 16 * 16, block_cols = cols / 16 * 16;
    for (int64_t r0 = 0; r0 < block_rows; r0 += 16)
        for (int64_t c0 = 0; c0 < block_cols; c0 += 16) transpose_16x16(in + r0 * cols + c0, cols, to + c0 * rows + r0, rows);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = r < block_rows ? block_cols : 0; c < cols; ++c) to[c * rows + r] = in[r * cols + c];
    return out;
}

void int8_product(const float* x, int64_t M, const QuantizedMatrix& W, int64_t first, int64_t count, float* out,
                  int64_t ldc, bool accumulate) {
    if (M == 0 || count == 0) return;
    const int64_t K = W.K;
    const int levels = int8_activation_levels();
    const auto zero = static_cast<uint8_t>(levels + 1);  // 128, or 64 without VNNI
    // The calling thread's buffers, reused from call to call (decoding calls
    // this for every product of every step); the OpenMP workers below reach
    // them through plain pointers, not through their own thread_locals.
    thread_local std::vector<uint8_t> quantized_buffer;
    thread_local std::vector<float> scale_buffer;
    thread_local std::vector<int32_t> sum_buffer;
    // Grown only: a resize back up after a smaller product would zero the
    // storage again, and the products of a step alternate in size.
    const auto at_least = [](auto& buffer, int64_t n) {
        if (buffer.size() < static_cast<size_t>(n)) buffer.resize(n);
    };
    at_least(quantized_buffer, M * K);
    at_least(scale_buffer, M);
    at_least(sum_buffer, M * count);
    uint8_t* const xq = quantized_buffer.data();
    float* const row_scales = scale_buffer.data();
    int32_t* const sums = sum_buffer.data();
#pragma omp parallel for schedule(static) if (worth_threads(M * K))
    for (int64_t m = 0; m < M; ++m) {
        const float* row = x + m * K;
        const float max_abs = row_max_abs(row, K);
        const float scale = max_abs > 0.0f ? max_abs / static_cast<float>(levels) : 1.0f;
        const float inverse = 1.0f / scale;
        uint8_t* q = xq + m * K;
#pragma omp simd
        for (int64_t k = 0; k < K; ++k)
            q[k] = static_cast<uint8_t>(static_cast<int>(round_to_even(row[k] * inverse)) + zero);
        row_scales[m] = scale;
    }
    if (W.small_batch(M)) {
        small_batch_sums(xq, M, K, zero, W.by_output_data(), K, W.column_sums.data(), first, count, sums, count);
    } else {
        const int32_t no_offset = 0;
        const int8_t* weights = W.data() + (W.by_output ? first * K : first);
        const dnnl_status_t status =
            dnnl_gemm_u8s8s32('N', W.by_output ? 'T' : 'N', 'F', M, count, K, 1.0f, xq, K, zero, weights,
                              W.by_output ? K : W.N, 0, 0.0f, sums, count, &no_offset);
        if (status != dnnl_success) throw Error("oneDNN int8 gemm failed with status " + std::to_string(status));
    }
    const float* column_scales = W.scales.data() + first;
#pragma omp parallel for schedule(static) if (worth_threads(M * count))
    for (int64_t m = 0; m < M; ++m) {
        const int32_t* s = sums + m * count;
        float* o = out + m * ldc;
        const float a = row_scales[m];
        if (accumulate)
            for (int64_t n = 0; n < count; ++n) o[n] += static_cast<float>(s[n]) * (a * column_scales[n]);
        else
            dequantize_row(s, count, a, column_scales, o);
    }
}

}  // namespace nmt
