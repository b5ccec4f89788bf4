#include "train/distributed_training.h"

#include <cstring>

#include "core/error.h"
#include "core/sha256.h"

namespace nmt {

// Boundary k falls where the running count of source and target pieces
// comes nearest to k/ranks of the batch's: a batch is cut from length-sorted
// pairs, so equal numbers of sentences would give the last rank the longest
// ones and make the others wait for it every step.
TrainingBatch batch_slice(const TrainingBatch& batch, int rank, int ranks) {
    const size_t n = batch.sources.size();
    std::vector<int64_t> running(n + 1, 0);  // ×ranks, so that targets are whole numbers
    for (size_t i = 0; i < n; ++i)
        running[i + 1] = running[i] + ranks * static_cast<int64_t>(batch.sources[i].size() + batch.targets[i].size());
    size_t begin = 0, end = 0;
    for (int k = 1; k <= rank + 1; ++k) {
        const int64_t target = running[n] / ranks * k;
        size_t i = end;
        while (i < n && running[i] < target) ++i;
        if (i > end && target - running[i - 1] < running[i] - target) --i;
        begin = end;
        end = k == ranks ? n : i;
    }
    TrainingBatch slice;
    slice.first_sentence = batch.first_sentence + static_cast<int64_t>(begin);
    slice.sources.assign(batch.sources.begin() + begin, batch.sources.begin() + end);
    slice.targets.assign(batch.targets.begin() + begin, batch.targets.begin() + end);
    if (!batch.weights.empty()) slice.weights.assign(batch.weights.begin() + begin, batch.weights.begin() + end);
    if (!batch.alignments.empty())
        slice.alignments.assign(batch.alignments.begin() + begin, batch.alignments.begin() + end);
    return slice;
}

namespace {

// Every tensor of a name → tensor map, in name order (the same on every rank).
template <typename Visit>
void for_each_tensor(std::map<std::string, Tensor>& tensors, Visit visit) {
    for (auto& [name, tensor] : tensors) visit(tensor);
}

void broadcast_tensors(Communicator& ranks, std::map<std::string, Tensor>& tensors, const std::string& what) {
    for_each_tensor(tensors, [&](Tensor& t) {
        ranks.broadcast(t.data(), t.size() * static_cast<int64_t>(sizeof(float)), what);
    });
}

}  // namespace

void sum_gradients(Communicator& ranks, Gradients& gradients, std::vector<float>& buffer, int64_t step) {
    size_t total = 0;
    for_each_tensor(gradients, [&](Tensor& t) { total += t.size(); });
    buffer.resize(total);
    size_t at = 0;
    for_each_tensor(gradients, [&](Tensor& t) {
        std::memcpy(buffer.data() + at, t.data(), t.size() * sizeof(float));
        at += t.size();
    });
    ranks.sum(buffer.data(), static_cast<int64_t>(total), "the gradient sum of step " + std::to_string(step));
    at = 0;
    for_each_tensor(gradients, [&](Tensor& t) {
        std::memcpy(t.data(), buffer.data() + at, t.size() * sizeof(float));
        at += t.size();
    });
}

void broadcast_training_state(Communicator& ranks, Model& model, Adam& adam, ParameterAverage& average) {
    broadcast_tensors(ranks, model.parameters, "sending rank 0's parameters");
    broadcast_tensors(ranks, adam.first_moments, "sending rank 0's Adam moments");
    broadcast_tensors(ranks, adam.second_moments, "sending rank 0's Adam moments");
    broadcast_tensors(ranks, average.values, "sending rank 0's parameter average");
}

void check_same_run(Communicator& ranks, const std::string& fingerprint) {
    const std::string mine = sha256_hex(fingerprint);
    std::string first = mine;
    ranks.broadcast(first.data(), static_cast<int64_t>(first.size()), "comparing the ranks' options");
    // Each rank counts itself in one slot: after the sum, slot r says whether rank r differs.
    std::vector<double> differs(ranks.size(), 0.0);
    differs[ranks.rank()] = mine == first ? 0.0 : 1.0;
    ranks.sum(differs.data(), ranks.size(), "comparing the ranks' options");
    std::string which;
    for (int r = 1; r < ranks.size(); ++r)
        if (differs[r] != 0.0) which += (which.empty() ? "" : ", ") + std::to_string(r);
    if (!which.empty())
        throw Error("rank" + std::string(which.find(',') == std::string::npos ? " " : "s ") + which +
                    " started with other options, data or model than rank 0: start every rank with the same "
                    "command and the same files");
}

}  // namespace nmt
