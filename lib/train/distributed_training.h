// Synchronous data-parallel training (Marian's and Horovod's scheme): every
// rank holds the whole model and builds the same batches; rank r trains on
// its contiguous slice of each batch; the gradients' sums over ranks give
// every rank the gradient of the whole batch, and each applies the same Adam
// update. Dropout masks depend on the sentence, not the slice
// (dropout_masks.h), so N ranks train the model one process would, up to
// the order of float additions.
#pragma once
#include <string>
#include <vector>

#include "train/adam.h"
#include "train/communicator.h"
#include "model/model.h"
#include "train/parameter_average.h"
#include "train/gradients.h"
#include "train/training_batch.h"

namespace nmt {

// Rank `rank` of `ranks`'s share of `batch`: a contiguous run of its
// sentences holding about 1/ranks of its source and target pieces, with
// first_sentence set. The slices of all ranks cover the batch in order; some
// are empty when the batch has fewer sentences than ranks.
TrainingBatch batch_slice(const TrainingBatch& batch, int rank, int ranks);

// Sums every gradient over the ranks as one flat buffer (parameters in name
// order), reusing `buffer` from step to step.
void sum_gradients(Communicator& ranks, Gradients& gradients, std::vector<float>& buffer, int64_t step);

// Rank 0's parameters, Adam moments and parameter average to every rank, so
// all start from the same bits whatever each loaded.
void broadcast_training_state(Communicator& ranks, Model& model, Adam& adam, ParameterAverage& average);

// Throws nmt::Error on every rank when any rank's `fingerprint` (its options,
// data checksums and model shape, as text) differs from rank 0's, naming the
// ranks that differ.
void check_same_run(Communicator& ranks, const std::string& fingerprint);

}  // namespace nmt
