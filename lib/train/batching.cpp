#include "train/batching.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/random.h"

namespace nmt {

namespace {

template <typename T>
void shuffle(std::vector<T>& items, Random& random) {
    for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[random.below(i)]);
}

// Sorts by target then source length; stable, so ties keep the shuffled
// order and the result is the same on every platform.
void sort_by_length(std::vector<int64_t>& indices, const std::vector<SentencePair>& pairs) {
    std::stable_sort(indices.begin(), indices.end(), [&](int64_t a, int64_t b) {
        const auto& x = pairs[a];
        const auto& y = pairs[b];
        if (x.target.size() != y.target.size()) return x.target.size() < y.target.size();
        return x.source.size() < y.source.size();
    });
}

// Cuts length-sorted indices into batches of at most batch_tokens padded target tokens.
void cut(const std::vector<int64_t>& sorted, const std::vector<SentencePair>& pairs, int64_t batch_tokens,
         std::vector<std::vector<int64_t>>& batches) {
    std::vector<int64_t> batch;
    int64_t longest = 0;
    for (int64_t index : sorted) {
        const int64_t length = static_cast<int64_t>(pairs[index].target.size());
        const int64_t new_longest = std::max(longest, length);
        if (!batch.empty() && static_cast<int64_t>(batch.size() + 1) * new_longest > batch_tokens) {
            batches.push_back(std::move(batch));
            batch.clear();
            longest = 0;
        }
        batch.push_back(index);
        longest = std::max(longest, length);
    }
    if (!batch.empty()) batches.push_back(std::move(batch));
}

}  // namespace

std::vector<std::vector<int64_t>> plan_epoch(const std::vector<SentencePair>& pairs, const BatchingOptions& options,
                                             int64_t epoch) {
    if (options.batch_tokens <= 0) throw Error("`batch_tokens` must be positive");
    // splitmix64 inside reseed spreads (seed, epoch) over the whole state;
    // the odd multiplier keeps neighbouring epochs' seeds far apart.
    Random random(options.seed ^ (0xD1B54A32D192ED03ull * static_cast<uint64_t>(epoch + 1)));
    std::vector<int64_t> order(pairs.size());
    std::iota(order.begin(), order.end(), int64_t{0});
    shuffle(order, random);

    const int64_t chunk_tokens = std::max<int64_t>(1, options.maxi_batch) * options.batch_tokens;
    std::vector<std::vector<int64_t>> batches;
    std::vector<int64_t> chunk;
    int64_t tokens = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        chunk.push_back(order[i]);
        tokens += static_cast<int64_t>(pairs[order[i]].target.size());
        if (tokens >= chunk_tokens || i + 1 == order.size()) {
            sort_by_length(chunk, pairs);
            cut(chunk, pairs, options.batch_tokens, batches);
            chunk.clear();
            tokens = 0;
        }
    }
    shuffle(batches, random);
    return batches;
}

std::vector<std::vector<int64_t>> plan_in_order(const std::vector<SentencePair>& pairs, int64_t batch_tokens) {
    std::vector<int64_t> order(pairs.size());
    std::iota(order.begin(), order.end(), int64_t{0});
    sort_by_length(order, pairs);
    std::vector<std::vector<int64_t>> batches;
    cut(order, pairs, batch_tokens, batches);
    return batches;
}

TrainingBatch make_batch(const std::vector<SentencePair>& pairs, const std::vector<int64_t>& indices) {
    TrainingBatch batch;
    batch.sources.reserve(indices.size());
    batch.targets.reserve(indices.size());
    for (int64_t i : indices) {
        batch.sources.push_back(pairs[i].source);
        batch.targets.push_back(pairs[i].target);
        if (!pairs[i].alignment.empty()) {
            batch.alignments.resize(batch.sources.size());
            batch.alignments.back() = pairs[i].alignment;
        }
    }
    if (!batch.alignments.empty()) batch.alignments.resize(batch.sources.size());
    return batch;
}

BatchGenerator::BatchGenerator(const std::vector<SentencePair>& pairs, const BatchingOptions& options,
                               Resegment resegment)
    : corpus_pairs_(pairs), pairs_(&pairs), options_(options), resegment_(std::move(resegment)) {
    if (pairs.empty()) throw Error("the training corpus has no usable sentence pairs");
}

void BatchGenerator::ensure_plan() {
    if (planned_epoch_ == position_.epoch) return;
    if (resegment_) {
        epoch_pairs_ = resegment_(position_.epoch);
        if (epoch_pairs_.size() != corpus_pairs_.size())
            throw Error("resegmented epoch has " + std::to_string(epoch_pairs_.size()) + " pairs, the corpus " +
                        std::to_string(corpus_pairs_.size()));
        pairs_ = &epoch_pairs_;
    }
    plan_ = plan_epoch(*pairs_, options_, position_.epoch);
    planned_epoch_ = position_.epoch;
}

int64_t BatchGenerator::batches_in_epoch() {
    ensure_plan();
    return static_cast<int64_t>(plan_.size());
}

TrainingBatch BatchGenerator::next() {
    ensure_plan();
    TrainingBatch batch = make_batch(*pairs_, plan_[position_.batch]);
    if (++position_.batch == static_cast<int64_t>(plan_.size())) {
        ++position_.epoch;
        position_.batch = 0;
    }
    return batch;
}

void BatchGenerator::restore(const BatchPosition& position) {
    position_ = position;
    ensure_plan();
    if (position_.batch >= static_cast<int64_t>(plan_.size())) {
        ++position_.epoch;
        position_.batch = 0;
    }
}

}  // namespace nmt
