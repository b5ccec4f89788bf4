// A GRU/LSTM cell run over T steps of N rows, keeping what the backward pass
// needs (inputs, previous states, activated gates). The forward step is
// cell_step, the very code inference runs; the backward pass is derived from
// the same equations (oneDNN's conventions, see rnn_cell.h).
#pragma once
#include "model_config.h"
#include "rnn_cell.h"
#include "tensor.h"

namespace nmt {

class CellRun {
public:
    CellRun(CellType cell, const Tensor& W, const Tensor& U, const Tensor& b);
    // Sizes the tape for a new sequence; storage is kept from earlier runs.
    void reset(int64_t steps, int64_t rows);

    int64_t input_size() const { return I_; }
    int64_t hidden_size() const { return H_; }
    float* input(int64_t t) { return x_.row(t * N_); }  // [N, I], filled by the caller
    const float* h(int64_t t) const { return h_.row(t * N_); }
    const float* h_prev(int64_t t) const { return h_prev_.row(t * N_); }
    const float* c(int64_t t) const { return c_.row(t * N_); }  // LSTM cell state after step t

    // Step t from (h_prev, c_prev) — null means zeros — with input(t) filled.
    void forward_step(int64_t t, const float* h_prev, const float* c_prev);
    // All steps from zero state, inputs all filled: the input products in one gemm.
    void forward_all();

    // dh: total gradient on h_t [N, H]. dc: LSTM cell gradient carried from
    // step t+1, updated in place to the gradient on c_{t−1}. dh_prev receives
    // (overwrites) the gradient on h_{t−1}.
    void backward_step(int64_t t, const float* dh, float* dc, float* dh_prev);
    void input_gradient(int64_t t, float* dx) const;  // dx_t = dgates_t · Wᵀ  [N, I]
    void input_gradient_all(float* dx) const;         // all steps [T·N, I]
    void accumulate_parameter_gradients(Tensor& dW, Tensor& dU, Tensor& db) const;

private:
    CellType cell_;
    const Tensor &W_, &U_, &b_;
    int64_t T_ = 0, N_ = 0, I_, H_, G_;
    Tensor x_, h_prev_, c_prev_, gates_, reset_hidden_, c_, h_, dgates_;
    CellScratch scratch_;
};

}  // namespace nmt
