#include "cell_run.h"

#include <cmath>
#include <cstring>

#include "gemm.h"

namespace nmt {

CellRun::CellRun(CellType cell, const Tensor& W, const Tensor& U, const Tensor& b)
    : cell_(cell), W_(W), U_(U), b_(b), I_(W.shape[0]), H_(U.shape[0]), G_(cell == CellType::GRU ? 3 : 4) {}

void CellRun::reset(int64_t steps, int64_t rows) {
    T_ = steps;
    N_ = rows;
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
    linear(input(t), N_, W_, &b_, g);
    cell_step(cell_, U_, N_, H_, g, hp, cell_ == CellType::LSTM ? c_prev_.row(t * N_) : nullptr, h_.row(t * N_),
              cell_ == CellType::LSTM ? c_.row(t * N_) : nullptr, scratch_);
    if (cell_ == CellType::GRU) std::memcpy(reset_hidden_.row(t * N_), scratch_.reset_hidden.data(), NH * sizeof(float));
}

void CellRun::forward_all() {
    linear(x_.data(), T_ * N_, W_, &b_, gates_.data());
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
        cell_step(cell_, U_, N_, H_, gates_.row(t * N_), hp, cp, h_.row(t * N_),
                  cell_ == CellType::LSTM ? c_.row(t * N_) : nullptr, scratch_);
        if (cell_ == CellType::GRU) std::memcpy(reset_hidden_.row(t * N_), scratch_.reset_hidden.data(), NH * sizeof(float));
    }
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
        // d(r∘h) = dz_o · U_oᵀ
        Tensor& drh = scratch_.hidden_gates;
        drh.resize({N_, H});
        gemm(false, true, N_, H, H, 1.0f, dg + 2 * H, G, U_.data() + 2 * H, G, 0.0f, drh.data(), H);
        for (int64_t n = 0; n < N_; ++n) {
            const float* g = gates + n * G;
            float* z = dg + n * G;
            float* dp = dh_prev + n * H;
            for (int64_t k = 0; k < H; ++k) {
                const float r = g[H + k], d = drh[n * H + k];
                z[H + k] = d * hp[n * H + k] * r * (1 - r);
                dp[k] += d * r;
            }
        }
        gemm(false, true, N_, H, 2 * H, 1.0f, dg, G, U_.data(), G, 1.0f, dh_prev, H);
        return;
    }
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
    gemm(false, true, N_, H, G, 1.0f, dg, G, U_.data(), G, 0.0f, dh_prev, H);
}

void CellRun::input_gradient(int64_t t, float* dx) const {
    gemm(false, true, N_, I_, G_ * H_, 1.0f, dgates_.row(t * N_), G_ * H_, W_.data(), G_ * H_, 0.0f, dx, I_);
}

void CellRun::input_gradient_all(float* dx) const {
    gemm(false, true, T_ * N_, I_, G_ * H_, 1.0f, dgates_.data(), G_ * H_, W_.data(), G_ * H_, 0.0f, dx, I_);
}

void CellRun::accumulate_parameter_gradients(Tensor& dW, Tensor& dU, Tensor& db) const {
    const int64_t M = T_ * N_, G = G_ * H_, H = H_;
    gemm(true, false, I_, G, M, 1.0f, x_.data(), I_, dgates_.data(), G, 1.0f, dW.data(), G);
    if (cell_ == CellType::GRU) {
        gemm(true, false, H, 2 * H, M, 1.0f, h_prev_.data(), H, dgates_.data(), G, 1.0f, dU.data(), G);
        gemm(true, false, H, H, M, 1.0f, reset_hidden_.data(), H, dgates_.data() + 2 * H, G, 1.0f, dU.data() + 2 * H, G);
    } else {
        gemm(true, false, H, G, M, 1.0f, h_prev_.data(), H, dgates_.data(), G, 1.0f, dU.data(), G);
    }
    for (int64_t m = 0; m < M; ++m) {
        const float* z = dgates_.row(m);
        for (int64_t k = 0; k < G; ++k) db[k] += z[k];
    }
}

}  // namespace nmt
