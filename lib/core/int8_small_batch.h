// int8 products of a few rows (issue 65): what greedy and beam search of one
// sentence multiply at every step (1 to 5 rows). oneDNN's u8s8s32 gemm packs
// the whole weight matrix into its own layout at every call, which for one
// row costs more than the product itself: 1.9× the time of the same f32
// product at one row of 768 × 2304 on an AVX2-only EPYC, measured by
// tools/int8_kernels.cpp. This kernel reads weights laid out by output (each
// column's K values in a row, made once at load) straight from memory, as
// intgemm does: AVX2 vpmaddubsw multiplies 32 u8 activations by 32 s8
// weights into 16-bit pair sums, vpmaddwd adds those into 32-bit lanes.
//
// The pair sums fit 16 bits only while activations stay below 128
// (127·127·2 < 2¹⁵), which holds where int8_activation_levels() is 63: the
// CPUs without VNNI, the only ones it runs on. Integer sums are exact, so it
// gives the same sums as oneDNN's kernel, bit for bit: whichever computes a
// product, the translation is the same.
#pragma once
#include <cstdint>
#include <vector>

namespace nmt {

// Whether the kernel runs here: AVX2, and activations below 128 (no VNNI).
bool small_batch_kernel_available();

// The most rows a product sends to the kernel rather than to oneDNN. On the
// AVX2-only EPYC, one thread (build/int8_kernels), the kernel took 0.20×
// oneDNN's time at one row of 768 × 2304, 0.59× at 5, 0.70× at 12 and 0.96×
// at 16: beam 5 of one or two sentences, and greedy batches up to 12.
constexpr int64_t kSmallBatchRows = 12;

// sums[m, j] (row stride ldc) = Σ_k (x[m, k] − zero) · W[first + j, k] for
// j < count, with W by output: row n holds column n's K values, rows `stride`
// bytes apart. column_sums[n] = Σ_k W[n, k] (the zero's correction).
void small_batch_sums(const uint8_t* x, int64_t M, int64_t K, uint8_t zero, const int8_t* W, int64_t stride,
                      const int32_t* column_sums, int64_t first, int64_t count, int32_t* sums, int64_t ldc);

// Σ_k W[n, k] for each of the N rows of a by-output W.
std::vector<int32_t> by_output_sums(const int8_t* W, int64_t N, int64_t K);

}  // namespace nmt
