#include "layers/rnn_cell.h"

#include "core/fast_math.h"
#include "core/gemm.h"
#include "layers/layer_norm.h"

namespace nmt {

CellWeights cell_weights(const Model& model, const std::string& prefix) {
    const bool ln = model.has(prefix + ".ln_x");
    return {model.param(prefix + ".W"),
            model.param(prefix + ".U"),
            model.param(prefix + ".b"),
            ln ? &model.param(prefix + ".ln_x") : nullptr,
            ln ? &model.param(prefix + ".ln_h") : nullptr,
            model.quantized(prefix + ".W"),
            model.quantized(prefix + ".U")};
}

void cell_input(const CellWeights& w, const float* x, int64_t M, float* out, float* x_hat, float* inverse_std) {
    if (!w.ln_x) {
        linear(x, M, w.W, &w.b, out, false, w.W_int8);
        return;
    }
    linear(x, M, w.W, nullptr, out, false, w.W_int8);
    const int64_t width = w.W.cols(), H = w.U.shape[0], gates = width / H;
    const float* gain = w.ln_x->data();
    const float* bias = w.b.data();
    for (int64_t m = 0; m < M; ++m) {
        float* row = out + m * width;
        float* normalized = x_hat ? x_hat + m * width : row;
        for (int64_t g = 0; g < gates; ++g) {
            const float s = normalize(row + g * H, H, normalized + g * H);
            if (inverse_std) inverse_std[m * gates + g] = s;
        }
        for (int64_t k = 0; k < width; ++k) row[k] = gain[k] * normalized[k] + bias[k];
    }
}

namespace {

// gates[:, first·H …] += γh∘LN(product) for `count` gate blocks of H, keeping
// what the backward pass needs in the scratch. product: [M, count·H].
void add_normalized(const float* product, int64_t M, int64_t H, int64_t G, int64_t first, int64_t count,
                    const Tensor& gain, float* gates, CellScratch& s) {
    for (int64_t m = 0; m < M; ++m)
        for (int64_t g = first; g < first + count; ++g) {
            float* x_hat = s.hidden_normalized.row(m) + g * H;
            s.hidden_inverse_std[m * G + g] = normalize(product + (m * count + g - first) * H, H, x_hat);
            const float* gamma = gain.data() + g * H;
            float* z = gates + m * G * H + g * H;
            for (int64_t k = 0; k < H; ++k) z[k] += gamma[k] * x_hat[k];
        }
}

void gru_step(const CellWeights& w, int64_t M, int64_t H, float* gates, const float* h_prev, const float* h_rec,
              float* h_out, CellScratch& s) {
    const int64_t G = 3 * H;
    const Tensor& U = w.U;
    if (w.ln_h) {
        s.hidden_normalized.resize({M, G});
        s.hidden_inverse_std.resize({M, 3});
    }
    // u and r see h directly; the candidate o sees r∘h, so its product waits for r.
    s.hidden_gates.resize({M, 2 * H});
    column_product(h_rec, M, U, w.U_int8, 0, 2 * H, s.hidden_gates.data(), 2 * H, false);
    if (w.ln_h) {
        add_normalized(s.hidden_gates.data(), M, H, 3, 0, 2, *w.ln_h, gates, s);
    } else {
        for (int64_t m = 0; m < M; ++m) {
            float* g = gates + m * G;
            const float* gh = s.hidden_gates.row(m);
            for (int64_t k = 0; k < 2 * H; ++k) g[k] += gh[k];
        }
    }
    for (int64_t m = 0; m < M; ++m) sigmoid_inplace(gates + m * G, 2 * H);
    s.reset_hidden.resize({M, H});
    for (int64_t m = 0; m < M; ++m) {
        const float* r = gates + m * G + H;
        for (int64_t k = 0; k < H; ++k) s.reset_hidden[m * H + k] = r[k] * h_rec[m * H + k];
    }
    if (w.ln_h) {
        s.candidate.resize({M, H});
        column_product(s.reset_hidden.data(), M, U, w.U_int8, 2 * H, H, s.candidate.data(), H, false);
        add_normalized(s.candidate.data(), M, H, 3, 2, 1, *w.ln_h, gates, s);
    } else {
        column_product(s.reset_hidden.data(), M, U, w.U_int8, 2 * H, H, gates + 2 * H, G, true);
    }
    for (int64_t m = 0; m < M; ++m) {
        float* g = gates + m * G;
        tanh_inplace(g + 2 * H, H);
        for (int64_t k = 0; k < H; ++k) {
            const float u = g[k], o = g[2 * H + k];
            h_out[m * H + k] = u * h_prev[m * H + k] + (1.0f - u) * o;
        }
    }
}

void lstm_step(const CellWeights& w, int64_t M, int64_t H, float* gates, const float* h_rec, const float* c_prev,
               float* h_out, float* c_out, CellScratch& s) {
    const int64_t G = 4 * H;
    if (w.ln_h) {
        s.hidden_normalized.resize({M, G});
        s.hidden_inverse_std.resize({M, 4});
        s.hidden_gates.resize({M, G});
        column_product(h_rec, M, w.U, w.U_int8, 0, G, s.hidden_gates.data(), G, false);
        add_normalized(s.hidden_gates.data(), M, H, 4, 0, 4, *w.ln_h, gates, s);
    } else {
        column_product(h_rec, M, w.U, w.U_int8, 0, G, gates, G, true);
    }
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

void cell_step(CellType cell, const CellWeights& w, int64_t M, int64_t H, float* gates, const float* h_prev,
               const float* c_prev, float* h_out, float* c_out, CellScratch& scratch, const float* h_recurrent) {
    const float* h_rec = h_recurrent ? h_recurrent : h_prev;
    if (cell == CellType::GRU)
        gru_step(w, M, H, gates, h_prev, h_rec, h_out, scratch);
    else
        lstm_step(w, M, H, gates, h_rec, c_prev, h_out, c_out, scratch);  // h enters an LSTM only through U
}

}  // namespace nmt
