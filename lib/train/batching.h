// Marian-style batches: a "maxi-batch" of shuffled pairs is sorted by length
// so that each mini-batch holds sentences of similar length (little padding),
// and the mini-batches are then shuffled so that training does not see them
// short-to-long.
//
// An epoch's batch order is a pure function of (seed, epoch): it draws from a
// Random of its own, seeded from both, and never from the trainer's Random
// (which also draws dropout masks). So a position (epoch, batch) is all a
// checkpoint needs to continue with exactly the same data.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "train/corpus.h"
#include "train/training_batch.h"

namespace nmt {

struct BatchingOptions {
    // Budget per batch in padded target tokens: rows × longest target (EOS
    // included). A single pair over the budget still gets a batch of its own.
    int64_t batch_tokens = 2000;
    // Pairs are sorted by length within chunks of about this many batches.
    int64_t maxi_batch = 100;
    uint64_t seed = 1;
};

struct BatchPosition {
    int64_t epoch = 0;  // epochs completed
    int64_t batch = 0;  // batches of the current epoch already handed out
    bool operator==(const BatchPosition& o) const { return epoch == o.epoch && batch == o.batch; }
};

// The batches of one epoch, as lists of indices into `pairs`.
std::vector<std::vector<int64_t>> plan_epoch(const std::vector<SentencePair>& pairs, const BatchingOptions& options,
                                             int64_t epoch);

// Batches for validation: no shuffling, sorted by length to limit padding.
std::vector<std::vector<int64_t>> plan_in_order(const std::vector<SentencePair>& pairs, int64_t batch_tokens);

TrainingBatch make_batch(const std::vector<SentencePair>& pairs, const std::vector<int64_t>& indices);

class BatchGenerator {
public:
    // The pairs of one epoch, segmented anew (subword_sampling.h); it must be
    // a pure function of the epoch for a resumed run to see the same data.
    using Resegment = std::function<std::vector<SentencePair>(int64_t epoch)>;

    // `pairs` must outlive the generator. With `resegment`, each epoch trains
    // on what it returns instead (the same pairs, in the same order).
    BatchGenerator(const std::vector<SentencePair>& pairs, const BatchingOptions& options, Resegment resegment = {});

    // The batch at the current position; then moves on, to the next epoch
    // after the last batch of this one (so position().epoch counts epochs done).
    TrainingBatch next();

    BatchPosition position() const { return position_; }
    // Continues from a saved position. A batch index past the end of the
    // epoch (the corpus changed) starts the next epoch.
    void restore(const BatchPosition& position);
    int64_t batches_in_epoch();

private:
    void ensure_plan();

    const std::vector<SentencePair>& corpus_pairs_;
    const std::vector<SentencePair>* pairs_;  // the current epoch's: corpus_pairs_ or epoch_pairs_
    std::vector<SentencePair> epoch_pairs_;
    BatchingOptions options_;
    Resegment resegment_;
    BatchPosition position_;
    int64_t planned_epoch_ = -1;
    std::vector<std::vector<int64_t>> plan_;
};

}  // namespace nmt
