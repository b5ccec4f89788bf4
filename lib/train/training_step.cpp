#include "train/training_step.h"

#include <chrono>

#include "core/error.h"
#include "train/batching.h"

namespace nmt {

BatchLoss plain_update(TrainingGraph& graph, Model& model, Adam& adam, Gradients& gradients, const TrainingBatch& batch,
                       const TrainingOptions& options, Random& random, double lr, double clip_norm) {
    clear(gradients);
    const BatchLoss loss = graph.forward_backward(batch, options, random, gradients);
    scale_and_clip(gradients, 1.0 / static_cast<double>(std::max<int64_t>(1, batch.target_tokens())), clip_norm);
    adam.update(model, gradients, lr);
    return loss;
}

TrainingSpeed measure_training_speed(Model& model, const Corpus& corpus, int64_t batch_tokens, int64_t steps) {
    if (corpus.pairs.empty()) throw Error("no training pairs to measure");
    BatchingOptions batching;
    batching.batch_tokens = batch_tokens;
    BatchGenerator batches(corpus.pairs, batching);
    TrainingGraph graph(model);
    Adam adam(model, AdamOptions{});
    Gradients gradients = zero_gradients(model);
    Random random(1);
    TrainingSpeed speed;
    auto start = std::chrono::steady_clock::now();
    for (int64_t step = -2; step < steps; ++step) {
        if (step == 0) start = std::chrono::steady_clock::now();  // after the warm-up
        const TrainingBatch batch = batches.next();
        plain_update(graph, model, adam, gradients, batch, TrainingOptions{}, random, 1e-4);
        if (step >= 0) {
            ++speed.steps;
            speed.target_tokens += batch.target_tokens();
        }
    }
    speed.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return speed;
}

}  // namespace nmt
