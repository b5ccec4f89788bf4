// One plain training update, and training speed measured with it. The
// trainer's step (train/trainer.cpp) is this plus what a long run needs:
// gradients summed over ranks, minimum-risk candidates, skipping updates
// whose loss or gradient is not finite, the parameter average, the logs.
#pragma once
#include <cstdint>

#include "model/model.h"
#include "train/adam.h"
#include "train/corpus.h"
#include "train/gradients.h"
#include "train/training_graph.h"

namespace nmt {

// Gradients cleared, forward and backward over `batch`, scaled by 1/(target
// tokens) and clipped to `clip_norm`, then Adam at `lr`. Returns the loss.
BatchLoss plain_update(TrainingGraph& graph, Model& model, Adam& adam, Gradients& gradients, const TrainingBatch& batch,
                       const TrainingOptions& options, Random& random, double lr, double clip_norm = 5.0);

struct TrainingSpeed {
    int64_t steps = 0, target_tokens = 0;
    double seconds = 0;
    double tokens_per_second() const { return seconds > 0 ? target_tokens / seconds : 0; }
};

// Times `steps` full updates (forward, backward, clipping, Adam at 1e-4,
// default training options) on length-sorted batches of `corpus` of about
// `batch_tokens` target tokens, after two updates of warm-up. Trains `model`.
TrainingSpeed measure_training_speed(Model& model, const Corpus& corpus, int64_t batch_tokens, int64_t steps);

}  // namespace nmt
