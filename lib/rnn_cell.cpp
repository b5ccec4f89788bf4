#include "rnn_cell.h"

#include "fast_math.h"
#include "gemm.h"

namespace nmt {

namespace {

void gru_step(const Tensor& U, int64_t M, int64_t H, float* gates, const float* h_prev, float* h_out,
              CellScratch& s) {
    const int64_t G = 3 * H;
    // u and r see h directly; the candidate o sees r∘h, so its product waits for r.
    s.hidden_gates.resize({M, 2 * H});
    gemm(false, false, M, 2 * H, H, 1.0f, h_prev, H, U.data(), G, 0.0f, s.hidden_gates.data(), 2 * H);
    for (int64_t m = 0; m < M; ++m) {
        float* g = gates + m * G;
        const float* gh = s.hidden_gates.row(m);
        for (int64_t k = 0; k < 2 * H; ++k) g[k] += gh[k];
    }
    for (int64_t m = 0; m < M; ++m) sigmoid_inplace(gates + m * G, 2 * H);
    s.reset_hidden.resize({M, H});
    for (int64_t m = 0; m < M; ++m) {
        const float* r = gates + m * G + H;
        for (int64_t k = 0; k < H; ++k) s.reset_hidden[m * H + k] = r[k] * h_prev[m * H + k];
    }
    gemm(false, false, M, H, H, 1.0f, s.reset_hidden.data(), H, U.data() + 2 * H, G, 1.0f, gates + 2 * H, G);
    for (int64_t m = 0; m < M; ++m) {
        float* g = gates + m * G;
        tanh_inplace(g + 2 * H, H);
        for (int64_t k = 0; k < H; ++k) {
            const float u = g[k], o = g[2 * H + k];
            h_out[m * H + k] = u * h_prev[m * H + k] + (1.0f - u) * o;
        }
    }
}

void lstm_step(const Tensor& U, int64_t M, int64_t H, float* gates, const float* h_prev, const float* c_prev,
               float* h_out, float* c_out) {
    const int64_t G = 4 * H;
    gemm(false, false, M, G, H, 1.0f, h_prev, H, U.data(), G, 1.0f, gates, G);
    for (int64_t m = 0; m < M; ++m) {
        float* g = gates + m * G;
        sigmoid_inplace(g, 2 * H);      // i, f
        tanh_inplace(g + 2 * H, H);     // c̃
        sigmoid_inplace(g + 3 * H, H);  // o
        float* c = c_out + m * H;
        float* h = h_out + m * H;
        for (int64_t k = 0; k < H; ++k) c[k] = g[H + k] * c_prev[m * H + k] + g[k] * g[2 * H + k];
        for (int64_t k = 0; k < H; ++k) h[k] = c[k];
        tanh_inplace(h, H);
        for (int64_t k = 0; k < H; ++k) h[k] *= g[3 * H + k];
    }
}

}  // namespace

void cell_step(CellType cell, const Tensor& U, int64_t M, int64_t H, float* gates, const float* h_prev,
               const float* c_prev, float* h_out, float* c_out, CellScratch& scratch) {
    if (cell == CellType::GRU)
        gru_step(U, M, H, gates, h_prev, h_out, scratch);
    else
        lstm_step(U, M, H, gates, h_prev, c_prev, h_out, c_out);
}

}  // namespace nmt
