#include "train/cell_run.h"

#include <cmath>
#include <cstring>

#include "core/gemm.h"
#include "layers/layer_norm.h"

namespace nmt {

CellRun::CellRun(CellType cell, const CellWeights& weights)
    : cell_(cell),
      w_(weights),
      I_(weights.W.shape[0]),
      H_(weights.U.shape[0]),
      G_(cell == CellType::GRU ? 3 : 4) {}

void CellRun::reset(int64_t steps, int64_t rows) {
    T_ = steps;
    N_ = rows;
    recurrent_dropout_ = false;
    // Every row of these is written before it is read, so no zeroing is needed.
    x_.resize({T_ * N_, I_});
    h_prev_.resize({T_ * N_, H_});
    h_.resize({T_ * N_, H_});
    gates_.resize({T_ * N_, G_ * H_});
    dgates_.resize({T_ * N_, G_ * H_});
    if (cell_ == CellType::GRU) reset_hidden_.resize({T_ * N_, H_});
    if (cell_ == CellType::LSTM) {
        c_prev_.resize({T_ * N_, H_});
        c_.resize({T_ * N_, H_});
    }
    if (layer_norm()) {
        for (Tensor* t : {&x_hat_, &h_hat_, &d_input_, &d_hidden_}) t->resize({T_ * N_, G_ * H_});
        x_inverse_std_.resize({T_ * N_, G_});
        h_inverse_std_.resize({T_ * N_, G_});
    }
}

void CellRun::drop_recurrent(float p, const DropoutMasks& masks, uint64_t site) {
    recurrent_dropout_ = p > 0.0f;
    if (!recurrent_dropout_) return;
    masks.per_sentence(recurrent_mask_, N_, H_, p, site);
    h_recurrent_.resize({T_ * N_, H_});
    d_recurrent_.resize({N_, H_});
}

const float* CellRun::recurrent_state(int64_t t) {
    const float* hp = h_prev_.row(t * N_);
    if (!recurrent_dropout_) return hp;
    float* masked = h_recurrent_.row(t * N_);
    for (int64_t i = 0; i < N_ * H_; ++i) masked[i] = hp[i] * recurrent_mask_[i];
    return masked;
}

void CellRun::record_step(int64_t t) {
    const int64_t NH = N_ * H_;
    if (cell_ == CellType::GRU) std::memcpy(reset_hidden_.row(t * N_), scratch_.reset_hidden.data(), NH * sizeof(float));
    if (layer_norm()) {
        std::memcpy(h_hat_.row(t * N_), scratch_.hidden_normalized.data(), NH * G_ * sizeof(float));
        std::memcpy(h_inverse_std_.row(t * N_), scratch_.hidden_inverse_std.data(), N_ * G_ * sizeof(float));
    }
}

void CellRun::forward_step(int64_t t, const float* h_prev, const float* c_prev) {
    const int64_t NH = N_ * H_;
    float* hp = h_prev_.row(t * N_);
    if (h_prev) std::memcpy(hp, h_prev, NH * sizeof(float));
    else std::memset(hp, 0, NH * sizeof(float));
    if (cell_ == CellType::LSTM) {
        float* cp = c_prev_.row(t * N_);
        if (c_prev) std::memcpy(cp, c_prev, NH * sizeof(float));
        else std::memset(cp, 0, NH * sizeof(float));
    }
    float* g = gates_.row(t * N_);
    cell_input(w_, input(t), N_, g, layer_norm() ? x_hat_.row(t * N_) : nullptr,
               layer_norm() ? x_inverse_std_.row(t * N_) : nullptr);
    cell_step(cell_, w_, N_, H_, g, hp, cell_ == CellType::LSTM ? c_prev_.row(t * N_) : nullptr, h_.row(t * N_),
              cell_ == CellType::LSTM ? c_.row(t * N_) : nullptr, scratch_, recurrent_state(t));
    record_step(t);
}

void CellRun::forward_all() {
    cell_input(w_, x_.data(), T_ * N_, gates_.data(), layer_norm() ? x_hat_.data() : nullptr,
               layer_norm() ? x_inverse_std_.data() : nullptr);
    const int64_t NH = N_ * H_;
    for (int64_t t = 0; t < T_; ++t) {
        float* hp = h_prev_.row(t * N_);
        if (t == 0) std::memset(hp, 0, NH * sizeof(float));
        else std::memcpy(hp, h_.row((t - 1) * N_), NH * sizeof(float));
        float* cp = nullptr;
        if (cell_ == CellType::LSTM) {
            cp = c_prev_.row(t * N_);
            if (t == 0) std::memset(cp, 0, NH * sizeof(float));
            else std::memcpy(cp, c_.row((t - 1) * N_), NH * sizeof(float));
        }
        cell_step(cell_, w_, N_, H_, gates_.row(t * N_), hp, cp, h_.row(t * N_),
                  cell_ == CellType::LSTM ? c_.row(t * N_) : nullptr, scratch_, recurrent_state(t));
        record_step(t);
    }
}

const float* CellRun::hidden_product_gradient(int64_t t, int64_t first, int64_t count) {
    if (!layer_norm()) return dgates_.row(t * N_);
    for (int64_t n = 0; n < N_; ++n) {
        const int64_t row = t * N_ + n;
        for (int64_t g = first; g < first + count; ++g)
            normalize_backward(dgates_.row(row) + g * H_, w_.ln_h->data() + g * H_, h_hat_.row(row) + g * H_,
                               h_inverse_std_[row * G_ + g], H_, d_hidden_.row(row) + g * H_, nullptr);
    }
    return d_hidden_.row(t * N_);
}

const float* CellRun::input_product_gradient(int64_t t) const {
    return layer_norm() ? d_input_.row(t * N_) : dgates_.row(t * N_);
}

void CellRun::backward_step(int64_t t, const float* dh, float* dc, float* dh_prev) {
    const int64_t H = H_, G = G_ * H_;
    const float* gates = gates_.row(t * N_);
    const float* hp = h_prev_.row(t * N_);
    float* dg = dgates_.row(t * N_);
    if (cell_ == CellType::GRU) {
        // h' = u∘h + (1−u)∘o, o = tanh(z_o + (r∘h)·U_o), u, r = σ(z + h·U)
        for (int64_t n = 0; n < N_; ++n) {
            const float* g = gates + n * G;
            const float* d = dh + n * H;
            float* z = dg + n * G;
            float* dp = dh_prev + n * H;
            for (int64_t k = 0; k < H; ++k) {
                const float u = g[k], o = g[2 * H + k], h = hp[n * H + k];
                z[k] = d[k] * (h - o) * u * (1 - u);  // through u
                z[2 * H + k] = d[k] * (1 - u) * (1 - o * o);  // through o
                dp[k] = d[k] * u;
            }
        }
        // d(r∘h̃) = d((r∘h̃)·U_o) · U_oᵀ, h̃ the state the recurrent products
        // saw: h itself, or with recurrent dropout h∘mask, whose gradient
        // collects in d_recurrent_ and reaches h through the mask.
        const float* hr = recurrent_dropout_ ? h_recurrent_.row(t * N_) : hp;
        float* d_rec = recurrent_dropout_ ? d_recurrent_.data() : dh_prev;
        const float* d_candidate = hidden_product_gradient(t, 2, 1);
        Tensor& drh = scratch_.hidden_gates;
        drh.resize({N_, H});
        gemm(false, true, N_, H, H, 1.0f, d_candidate + 2 * H, G, w_.U.data() + 2 * H, G, 0.0f, drh.data(), H);
        for (int64_t n = 0; n < N_; ++n) {
            const float* g = gates + n * G;
            float* z = dg + n * G;
            float* dp = d_rec + n * H;
            for (int64_t k = 0; k < H; ++k) {
                const float r = g[H + k], d = drh[n * H + k];
                z[H + k] = d * hr[n * H + k] * r * (1 - r);
                if (recurrent_dropout_) dp[k] = d * r;
                else dp[k] += d * r;
            }
        }
        const float* d_update_reset = hidden_product_gradient(t, 0, 2);
        gemm(false, true, N_, H, 2 * H, 1.0f, d_update_reset, G, w_.U.data(), G, 1.0f, d_rec, H);
        if (recurrent_dropout_)
            for (int64_t i = 0; i < N_ * H; ++i) dh_prev[i] += recurrent_mask_[i] * d_rec[i];
    } else {
        // LSTM: c' = f∘c + i∘g, h' = o∘tanh(c')
        const float* c_new = c_.row(t * N_);
        const float* cp = c_prev_.row(t * N_);
        for (int64_t n = 0; n < N_; ++n) {
            const float* g = gates + n * G;
            float* z = dg + n * G;
            for (int64_t k = 0; k < H; ++k) {
                const float i = g[k], f = g[H + k], gg = g[2 * H + k], o = g[3 * H + k];
                const float tc = std::tanh(c_new[n * H + k]);
                const float d = dh[n * H + k];
                const float dcell = dc[n * H + k] + d * o * (1 - tc * tc);
                z[k] = dcell * gg * i * (1 - i);
                z[H + k] = dcell * cp[n * H + k] * f * (1 - f);
                z[2 * H + k] = dcell * i * (1 - gg * gg);
                z[3 * H + k] = d * tc * o * (1 - o);
                dc[n * H + k] = dcell * f;
            }
        }
        gemm(false, true, N_, H, G, 1.0f, hidden_product_gradient(t, 0, G_), G, w_.U.data(), G, 0.0f, dh_prev, H);
        if (recurrent_dropout_)
            for (int64_t i = 0; i < N_ * H; ++i) dh_prev[i] *= recurrent_mask_[i];
    }
    if (layer_norm())
        for (int64_t n = 0; n < N_; ++n) {
            const int64_t row = t * N_ + n;
            for (int64_t g = 0; g < G_; ++g)
                normalize_backward(dgates_.row(row) + g * H, w_.ln_x->data() + g * H, x_hat_.row(row) + g * H,
                                   x_inverse_std_[row * G_ + g], H, d_input_.row(row) + g * H, nullptr);
        }
}

void CellRun::input_gradient(int64_t t, float* dx) const {
    gemm(false, true, N_, I_, G_ * H_, 1.0f, input_product_gradient(t), G_ * H_, w_.W.data(), G_ * H_, 0.0f, dx, I_);
}

void CellRun::input_gradient_all(float* dx) const {
    gemm(false, true, T_ * N_, I_, G_ * H_, 1.0f, input_product_gradient(0), G_ * H_, w_.W.data(), G_ * H_, 0.0f, dx,
         I_);
}

void CellRun::accumulate_parameter_gradients(const CellGradients& d) const {
    const int64_t M = T_ * N_, G = G_ * H_, H = H_;
    const float* d_hidden = layer_norm() ? d_hidden_.data() : dgates_.data();
    const float* h_seen = recurrent_dropout_ ? h_recurrent_.data() : h_prev_.data();  // by the recurrent products
    gemm(true, false, I_, G, M, 1.0f, x_.data(), I_, input_product_gradient(0), G, 1.0f, d.W.data(), G);
    if (cell_ == CellType::GRU) {
        gemm(true, false, H, 2 * H, M, 1.0f, h_seen, H, d_hidden, G, 1.0f, d.U.data(), G);
        gemm(true, false, H, H, M, 1.0f, reset_hidden_.data(), H, d_hidden + 2 * H, G, 1.0f, d.U.data() + 2 * H, G);
    } else {
        gemm(true, false, H, G, M, 1.0f, h_seen, H, d_hidden, G, 1.0f, d.U.data(), G);
    }
    for (int64_t m = 0; m < M; ++m) {
        const float* z = dgates_.row(m);
        for (int64_t k = 0; k < G; ++k) d.b[k] += z[k];
    }
    if (!layer_norm()) return;
    // z = γx∘x̂ + γh∘ĥ + b: each gain's gradient is the pre-activation gradient times its normalised product.
    for (int64_t m = 0; m < M; ++m) {
        const float* z = dgates_.row(m);
        const float* xh = x_hat_.row(m);
        const float* hh = h_hat_.row(m);
        for (int64_t k = 0; k < G; ++k) {
            (*d.ln_x)[k] += z[k] * xh[k];
            (*d.ln_h)[k] += z[k] * hh[k];
        }
    }
}

}  // namespace nmt
