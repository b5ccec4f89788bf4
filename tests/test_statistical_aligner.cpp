// The statistical aligner: EM never lowers the likelihood, and a planted word
// mapping is recovered from synthetic sentence pairs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/random.h"
#include "align/statistical_aligner.h"

using namespace nmt;

namespace {

// Source words s0..s29 and their translations t(perm)...: each target
// sentence is its source's words translated, with neighbouring words swapped
// now and then (reordering) and a function word "x" inserted (unaligned).
struct Planted {
    std::vector<std::string> sources, targets;
    std::vector<Links> truth;
};

Planted planted_corpus(int pairs, uint64_t seed) {
    Random random(seed);
    std::vector<int> translation(30);
    for (int w = 0; w < 30; ++w) translation[w] = (w * 7 + 3) % 30;  // a permutation
    Planted out;
    for (int k = 0; k < pairs; ++k) {
        const int n = 3 + random.below(6);
        std::vector<int> words;
        for (int j = 0; j < n; ++j) words.push_back(random.below(30));
        std::vector<int> order(n);
        for (int j = 0; j < n; ++j) order[j] = j;
        for (int j = 0; j + 1 < n; ++j)
            if (random.below(4) == 0) std::swap(order[j], order[j + 1]);
        std::string source, target;
        Links links;
        const int insert_at = random.below(n + 1);
        int position = 0;
        for (int j = 0; j < n; ++j) source += (j ? " s" : "s") + std::to_string(words[j]);
        for (int i = 0; i <= n; ++i) {
            if (i == insert_at) {
                target += (position ? " x" : "x");
                ++position;
            }
            if (i == n) break;
            target += (position ? " t" : "t") + std::to_string(translation[words[order[i]]]);
            links.emplace_back(order[i], position);
            ++position;
        }
        std::sort(links.begin(), links.end());
        out.sources.push_back(source);
        out.targets.push_back(target);
        out.truth.push_back(links);
    }
    return out;
}

}  // namespace

TEST_CASE("statistical aligner: EM with maximum-likelihood updates never lowers the likelihood") {
    const Planted corpus = planted_corpus(300, 5);
    for (bool optimize_tension : {false, true}) {
        CAPTURE(optimize_tension);
        double previous = -1e300;
        for (int iterations = 1; iterations <= 6; ++iterations) {
            StatisticalAlignerOptions options;
            options.iterations = iterations;
            options.alpha = 0;
            options.optimize_tension = optimize_tension;
            StatisticalAligner aligner(options);
            aligner.train(corpus.sources, corpus.targets);
            CAPTURE(iterations);
            CHECK(aligner.log_likelihood() >= previous - 1e-6 * std::fabs(previous));
            previous = aligner.log_likelihood();
        }
    }
}

TEST_CASE("statistical aligner: a planted word mapping is recovered, and the inserted word left unaligned") {
    const Planted corpus = planted_corpus(2000, 6);
    StatisticalAligner aligner;
    aligner.train(corpus.sources, corpus.targets);
    AlignmentCounts counts;
    for (size_t k = 0; k < corpus.sources.size(); ++k)
        counts.add(aligner.align(corpus.sources[k], corpus.targets[k]), corpus.truth[k], corpus.truth[k]);
    CAPTURE(counts.precision());
    CAPTURE(counts.recall());
    // (Linking each target word to the source word on the diagonal instead
    // would miss every swap and every word after the insertion.)
    CHECK(counts.aer() < 0.05);
    CHECK(counts.recall() > 0.95);
    // Reordering is local: the pull towards the diagonal stays strong.
    CHECK(aligner.tension() > 2.0);
    // An unseen word gets no link from its (floor) translation probability alone.
    CHECK(aligner.align("s1 s2", "t10 unseen").size() <= 2);
}
