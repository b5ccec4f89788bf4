#include "train/subword_sampling.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace nmt {

namespace {

// Keeps these draws apart from the batch order's stream for the same (seed, epoch).
constexpr uint64_t kSamplingSeedSalt = 0x3C6EF372FE94F82Bull;

std::vector<int> draw(const SegmentationChoices& choices, float alpha, int eos, Random& random) {
    std::vector<int> ids = choices.choice(sample_segmentation(choices.log_probabilities, alpha, random));
    ids.push_back(eos);
    return ids;
}

}  // namespace

size_t sample_segmentation(const std::vector<float>& log_probabilities, float alpha, Random& random) {
    if (log_probabilities.empty()) throw Error("subword sampling: a sentence has no segmentation to choose from");
    // Shifted by the largest exponent so that exp() cannot overflow or vanish for all.
    double top = alpha * log_probabilities[0];
    for (float lp : log_probabilities) top = std::max(top, static_cast<double>(alpha) * lp);
    double total = 0;
    for (float lp : log_probabilities) total += std::exp(alpha * lp - top);
    double u = random.uniform() * total;
    for (size_t k = 0; k < log_probabilities.size(); ++k) {
        u -= std::exp(alpha * log_probabilities[k] - top);
        if (u < 0) return k;
    }
    return log_probabilities.size() - 1;  // rounding left u at or just above 0
}

std::vector<SentencePair> sample_segmentations(const Corpus& corpus, const SubwordSampling& sampling, uint64_t seed,
                                               int64_t epoch) {
    if (corpus.source_choices.size() != corpus.pairs.size() || corpus.target_choices.size() != corpus.pairs.size())
        throw Error("subword sampling: the corpus was read without its alternative segmentations");
    Random random(seed ^ kSamplingSeedSalt ^ (0xD1B54A32D192ED03ull * static_cast<uint64_t>(epoch + 1)));
    std::vector<SentencePair> pairs = corpus.pairs;
    for (size_t i = 0; i < pairs.size(); ++i) {
        if (sampling.source_alpha > 0)
            pairs[i].source = draw(corpus.source_choices[i], sampling.source_alpha, pairs[i].source.back(), random);
        if (sampling.target_alpha > 0)
            pairs[i].target = draw(corpus.target_choices[i], sampling.target_alpha, pairs[i].target.back(), random);
    }
    return pairs;
}

}  // namespace nmt
