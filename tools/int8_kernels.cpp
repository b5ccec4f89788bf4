// The time of one product of decoding's shapes (issue 65): int8 through
// oneDNN's u8s8s32 gemm, int8 through the small-batch kernel
// (core/int8_small_batch.h) where it runs, and f32 through oneDNN's sgemm;
// the best of several repetitions, one thread unless OMP_NUM_THREADS says.
// It chose kSmallBatchRows, and shows why the kernel exists: oneDNN packs
// the weights at every call, which a product of one row cannot repay.
//
// Usage: build/int8_kernels [ROWS...]   (default 1 2 4 5 8 10 16 32 160)
#include <dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/int8_gemm.h"
#include "core/int8_small_batch.h"
#include "core/random.h"

using namespace nmt;

namespace {

template <typename F>
double best_microseconds(F&& run, int64_t work) {
    const int reps = static_cast<int>(std::clamp<int64_t>(400'000'000 / std::max<int64_t>(work, 1), 3, 2000));
    double best = 1e30;
    for (int round = 0; round < 3; ++round) {
        const auto start = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; ++r) run();
        const auto end = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::micro>(end - start).count() / reps);
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int64_t> rows;
    for (int i = 1; i < argc; ++i) rows.push_back(std::atoll(argv[i]));
    if (rows.empty()) rows = {1, 2, 4, 5, 8, 10, 16, 32, 160};
    // The wide general model's products: the decoder's recurrent matrix
    // (768 × 3·768), the deep output (1920 × 384), the vocabulary (384 × 16,000).
    const std::vector<std::pair<int64_t, int64_t>> shapes = {{768, 2304}, {1920, 384}, {384, 16000}};
    std::printf("small-batch kernel: %s\n", small_batch_kernel_available() ? "runs here" : "does not run here");
    std::printf("%5s %6s %6s %12s %12s %12s\n", "rows", "K", "N", "oneDNN int8", "kernel int8", "f32 sgemm");
    Random random(1);
    for (const auto& [K, N] : shapes) {
        Tensor W({K, N});
        for (float& v : W.values) v = random.uniform(-0.5f, 0.5f);
        const QuantizedMatrix plain = quantize_columns(W, false);
        QuantizedMatrix prepared = plain;
        prepare_small_batches(prepared);
        for (int64_t M : rows) {
            std::vector<float> x(M * K), out(M * N);
            for (float& v : x) v = random.uniform(-1.0f, 1.0f);
            const int64_t work = M * K * N;
            const double onednn = best_microseconds([&] { int8_product(x.data(), M, plain, 0, N, out.data(), N, false); }, work);
            const double kernel = prepared.small_batch(M)
                                      ? best_microseconds([&] { int8_product(x.data(), M, prepared, 0, N, out.data(), N, false); }, work)
                                      : 0.0;
            const double f32 = best_microseconds(
                [&] { dnnl_sgemm('N', 'N', M, N, K, 1.0f, x.data(), K, W.data(), N, 0.0f, out.data(), N); }, work);
            char kernel_text[32] = "-";
            if (kernel > 0) std::snprintf(kernel_text, sizeof kernel_text, "%.1f us", kernel);
            std::printf("%5lld %6lld %6lld %9.1f us %12s %9.1f us\n", static_cast<long long>(M), static_cast<long long>(K),
                        static_cast<long long>(N), onednn, kernel_text, f32);
        }
    }
}
