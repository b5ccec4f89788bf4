// 8-bit integer products for decoding (issue 36), as Marian and CTranslate2
// run them on CPUs: each weight matrix is quantised once to int8 with one
// scale per output column, each row of activations to u8 on the fly with a
// scale of its own, and the product runs through oneDNN's u8s8s32 gemm (on
// AVX-512 VNNI one vpdpbusd does 64 multiply-adds where an fp32 FMA does 16),
// then is scaled back to f32.
//
// A row's result depends only on that row and the weights (integer sums are
// exact), so batched products equal one-by-one products bit for bit.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/tensor.h"

namespace nmt {

// W [K, N] (out = x·W) as int8: W[k, n] ≈ values[k·N + n] · scales[n], or
// values[n·K + k] when the values are laid out by output (`by_output`): a
// layout whose outputs can be picked out by copying rows, as a shortlist
// picks vocabulary entries (oneDNN's kernel is fastest on the other one).
// The values are in `values`, or, for a matrix a model file stores as int8,
// in the file's memory map (`mapped`, kept open by `mapping`): loading
// copies nothing.
struct QuantizedMatrix {
    int64_t K = 0, N = 0;
    std::vector<int8_t> values;  // [K, N], or [N, K] by_output; row-major
    std::vector<float> scales;   // [N]
    bool by_output = false;
    const int8_t* mapped = nullptr;
    std::shared_ptr<const void> mapping;

    // For products of a few rows (core/int8_small_batch.h): the values by
    // output (a copy when the matrix is laid out the other way) and each
    // output's sum; empty until prepare_small_batches, and where the kernel
    // does not run.
    std::vector<int8_t> by_output_copy;
    std::vector<int32_t> column_sums;

    const int8_t* data() const { return mapped ? mapped : values.data(); }
    const int8_t* by_output_data() const { return by_output ? data() : by_output_copy.data(); }
    bool empty() const { return K * N == 0; }
    // Whether a product of M rows goes to the small-batch kernel.
    bool small_batch(int64_t M) const;
};

// Readies W for products of a few rows where the kernel runs (a by-output
// copy and the column sums): once, as a model loads for int8 decoding.
void prepare_small_batches(QuantizedMatrix& W);

// Weights are quantised to ±127 levels on every CPU, so that a model file's
// int8 weights are the same wherever it was written and wherever it runs.
constexpr int int8_weight_levels = 127;

// The levels of the activations each product quantises row by row: ±127
// where the CPU multiplies u8 by s8 into 32-bit sums (VNNI); ±63 where
// oneDNN's kernel adds two u8·s8 products in a saturating 16-bit lane first
// (AVX2 and AVX-512 without VNNI: 127·127·2 fits in it, 255·127·2 does not).
int int8_activation_levels();

// Whether oneDNN's int8 kernels multiply with VNNI here (under its ISA cap),
// where int8 products run at several times the f32 rate.
bool int8_has_vnni();

// Whether oneDNN's int8 kernels run in AVX2 or wider vectors here (under its
// ISA cap): where int8 decoding was measured faster than f32 (README Speed).
bool int8_has_avx2();

// oneDNN JIT-compiles its int8 gemm kernels at a process's first int8
// product (6–10 ms on one core here): one tiny product, so that the first
// real one does not wait (model loading calls it for int8 decoding).
void compile_int8_kernels();

// W as a QuantizedMatrix, its values laid out as W is: `transposed` when W
// is stored [N, K] (out = x·Wᵀ, as the tied output embeddings are), and then
// by_output.
QuantizedMatrix quantize_columns(const Tensor& W, bool transposed);

// The same for a matrix of `shape` read a row at a time: row(r, scratch)
// returns row r, written into scratch (shape[1] floats) or found elsewhere.
// Each row is asked for twice. A model loading for int8 decoding converts its
// stored f16 rows so, and never makes the f32 matrix.
using MatrixRows = std::function<const float*(int64_t row, float* scratch)>;
QuantizedMatrix quantize_columns(const MatrixRows& row, const Shape& shape, bool transposed);

// The same matrix laid out the other way (by_output flipped).
QuantizedMatrix transposed_layout(const QuantizedMatrix& W);

// out[M, count] (row stride ldc) = x[M, K] · W[:, first : first + count], or
// += when `accumulate`; x has row stride K.
void int8_product(const float* x, int64_t M, const QuantizedMatrix& W, int64_t first, int64_t count, float* out,
                  int64_t ldc, bool accumulate);

}  // namespace nmt
