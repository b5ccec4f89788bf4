// Forward and backward pass of the whole model over a batch of sentence pairs
// (teacher forcing), giving the loss and the gradient of every parameter.
// The forward pass is decoding's own: the encoder's joins, cell_step,
// Attention::attend, decoder_step and deep_output (layers/), over the whole
// batch, with a record of what the backward pass needs (CellRun's tape, the
// attention's projections and tanh values). This file adds the loss and the
// backward pass (tests check the forward pass against the plain-loop
// reference, and the gradients against finite differences).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "core/random.h"
#include "train/gradients.h"
#include "train/training_batch.h"

namespace nmt {

struct TrainingOptions {
    float label_smoothing = 0.1f;
    float dropout_embeddings = 0.1f;  // on source and target embeddings
    float dropout_hidden = 0.2f;      // on encoder outputs and on the deep output
    // Word dropout (Sennrich & Zhang 2019; Marian's --dropout-src/--dropout-trg):
    // the whole embedding of a source word, or of a previous target word fed to
    // the decoder, is zeroed with this probability.
    float dropout_source_words = 0.0f;
    float dropout_target_words = 0.0f;
    // Variational recurrent dropout in every encoder and decoder cell
    // (Gal & Ghahramani 2016; Marian's --dropout-rnn): see CellRun::drop_recurrent.
    float dropout_rnn = 0.0f;
    // Guided alignment (Marian's --guided-alignment with cost ce; Chen et al.
    // 2016): adds weight × Σ_t −Σ_j A_tj log α_tj to the loss, where α_t is
    // the attention of the step that emits target piece t and A_t spreads 1
    // evenly over the source pieces of the words the batch's alignments link
    // to t's word (target EOS to source EOS; pieces of unlinked words get no
    // such term).
    float guided_alignment_weight = 0.0f;
};

struct BatchLoss {
    double loss = 0;   // Σ over target tokens of the training objective (label-smoothed), sentence-weighted
    double nll = 0;    // Σ of −log p(gold): cross-entropy without smoothing, unweighted
    int64_t tokens = 0;
    int64_t correct = 0;  // tokens whose gold piece has the highest probability
};

// The graph for one model, reused across batches so that its buffers (the
// vocabulary logits alone are tokens × vocabulary floats) are allocated once,
// not page-faulted in for every batch. Holds references to the model's
// parameters: the model must outlive it and keep its shapes.
class TrainingGraph {
public:
    explicit TrainingGraph(const Model& model);
    ~TrainingGraph();
    BatchLoss forward_backward(const TrainingBatch& batch, const TrainingOptions& options, Random& random,
                               Gradients& gradients);
    BatchLoss evaluate(const TrainingBatch& batch, float label_smoothing = 0.0f);

private:
    class Graph;
    std::unique_ptr<Graph> graph_;
};

// One-shot forms of the above (tests, small jobs).
// Accumulates d(loss)/d(parameter) into `gradients` (the loss summed over
// tokens, not averaged: the caller scales). One number drawn from `random`
// seeds the dropout masks, which then depend on each sentence, not its slice.
BatchLoss forward_backward(const Model& model, const TrainingBatch& batch, const TrainingOptions& options,
                           Random& random, Gradients& gradients);

// The loss without dropout and without gradients (validation).
BatchLoss evaluate_loss(const Model& model, const TrainingBatch& batch, float label_smoothing = 0.0f);

}  // namespace nmt
