// A GRU/LSTM cell run over T steps of N rows, keeping what the backward pass
// needs (inputs, previous states, activated gates, and with layer norm the
// normalised products). The forward step is cell_step, the very code inference
// runs; the backward pass is derived from the same equations (oneDNN's
// conventions and the layer-normalised form, see rnn_cell.h).
#pragma once
#include "model/model_config.h"
#include "train/dropout_masks.h"
#include "layers/rnn_cell.h"
#include "core/tensor.h"

namespace nmt {

// Where a cell's parameter gradients accumulate; ln_x and ln_h only for a
// layer-normalised cell.
struct CellGradients {
    Tensor& W;
    Tensor& U;
    Tensor& b;
    Tensor* ln_x = nullptr;
    Tensor* ln_h = nullptr;
};

class CellRun {
public:
    CellRun(CellType cell, const CellWeights& weights);
    // Sizes the tape for a new sequence; storage is kept from earlier runs.
    // The run starts without recurrent dropout.
    void reset(int64_t steps, int64_t rows);
    // Variational recurrent dropout (Gal & Ghahramani 2016; Nematus' and
    // Marian's --dropout-rnn) for this run: each row's previous state, as the
    // recurrent products see it, loses the same units at every step (kept
    // ones scaled by 1/(1−p)). Call after reset, before the steps; draws
    // nothing when p is 0.
    void drop_recurrent(float p, const DropoutMasks& masks, uint64_t site);

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
    void input_gradient(int64_t t, float* dx) const;  // dx_t = d(x_t·W) · Wᵀ  [N, I]
    void input_gradient_all(float* dx) const;         // all steps [T·N, I]
    void accumulate_parameter_gradients(const CellGradients& d) const;

private:
    bool layer_norm() const { return w_.ln_h != nullptr; }
    void record_step(int64_t t);  // copies what cell_step left in the scratch onto the tape
    // What step t's recurrent products see: h_prev(t), or it times the mask.
    const float* recurrent_state(int64_t t);
    // The gradient on the recurrent products of gates [first, first+count) of
    // step t, from the gradient on their pre-activations: with layer norm,
    // back through the normalisation into d_hidden_; without, the same values.
    const float* hidden_product_gradient(int64_t t, int64_t first, int64_t count);
    const float* input_product_gradient(int64_t t) const;  // d(x·W) of step t [N, G·H]
    void input_layer_norm_backward();

    CellType cell_;
    CellWeights w_;
    int64_t T_ = 0, N_ = 0, I_, H_, G_;
    Tensor x_, h_prev_, c_prev_, gates_, reset_hidden_, c_, h_, dgates_;
    // Layer norm: normalised input and recurrent products, their 1/σ, and the
    // gradients on the products before normalisation.
    Tensor x_hat_, x_inverse_std_, h_hat_, h_inverse_std_, d_input_, d_hidden_;
    // Recurrent dropout: the mask [N, H], the masked previous states [T·N, H]
    // and the gradient on one step's masked state [N, H].
    bool recurrent_dropout_ = false;
    Tensor recurrent_mask_, h_recurrent_, d_recurrent_;
    CellScratch scratch_;
};

}  // namespace nmt
