// Subword regularisation: the n-best segmentations SentencePiece lists, the
// draw among them by P^alpha, and an epoch's resegmented corpus, which must
// be a pure function of (seed, epoch) for a resumed run to see the same data.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "train/batching.h"
#include "train/corpus.h"
#include "train/subword_sampling.h"
#include "test_support.h"

using namespace nmt;

namespace {

const char* kSentences[] = {"the cat sat on the mat", "a dog runs in the park", "bird sings", "the dog sat",
                            "a cat runs on a mat in the park"};

Corpus sampling_corpus(const Vocabulary& vocab, int segmentations, int max_length = 100) {
    const auto source = testing::temp_path("subword", "c.src"), target = testing::temp_path("subword", "c.tgt");
    {
        std::ofstream s(source), t(target);
        for (int copy = 0; copy < 20; ++copy)
            for (size_t i = 0; i < std::size(kSentences); ++i) {
                s << kSentences[i] << "\n";
                t << kSentences[(i + 1) % std::size(kSentences)] << "\n";
            }
    }
    CorpusOptions options;
    options.segmentations = segmentations;
    options.max_length = max_length;
    options.keep_text = true;
    return read_corpus(source.string(), target.string(), vocab, vocab, options);
}

std::vector<int> without_eos(std::vector<int> ids) {
    ids.pop_back();
    return ids;
}

}  // namespace

TEST_CASE("subword sampling: the n-best list starts with encode()'s segmentation, best first, all distinct") {
    const Vocabulary vocab(testing::tiny_spm(40), "tiny");
    for (const char* text : kSentences) {
        const auto nbest = vocab.nbest_encode(text, 16);
        REQUIRE(nbest.size() >= 8);  // a 40-piece vocabulary cuts every sentence in many ways
        REQUIRE(nbest.size() <= 16);
        CHECK(nbest[0].ids == vocab.encode(text));
        std::set<std::vector<int>> distinct;
        for (size_t k = 0; k < nbest.size(); ++k) {
            CHECK(vocab.decode(nbest[k].ids) == text);
            if (k > 0) CHECK(nbest[k].log_probability <= nbest[k - 1].log_probability);
            distinct.insert(nbest[k].ids);
        }
        CHECK(distinct.size() == nbest.size());
    }
}

TEST_CASE("subword sampling: segmentations are drawn with probability proportional to P^alpha") {
    const std::vector<float> log_probabilities = {-10, -11, -12.5f, -15};
    for (float alpha : {0.2f, 0.5f, 1.0f}) {
        std::vector<double> expected(log_probabilities.size());
        double total = 0;
        for (size_t k = 0; k < expected.size(); ++k) total += expected[k] = std::exp(alpha * log_probabilities[k]);
        std::vector<int> counts(log_probabilities.size(), 0);
        Random random(3);
        const int draws = 200000;
        for (int i = 0; i < draws; ++i) ++counts[sample_segmentation(log_probabilities, alpha, random)];
        for (size_t k = 0; k < expected.size(); ++k) {
            const double p = expected[k] / total;
            // Five standard deviations of a binomial frequency.
            CHECK_MESSAGE(std::abs(counts[k] / double(draws) - p) < 5 * std::sqrt(p * (1 - p) / draws),
                          "alpha " << alpha << " k " << k);
        }
    }
    // A large alpha keeps the best; extreme scores neither overflow nor vanish.
    Random random(4);
    for (int i = 0; i < 1000; ++i) REQUIRE(sample_segmentation(log_probabilities, 200.0f, random) == 0);
    const std::vector<float> far_apart = {-5000, -1e6f};
    for (int i = 0; i < 100; ++i) REQUIRE(sample_segmentation(far_apart, 1.0f, random) == 0);
    CHECK(sample_segmentation({-3.0f}, 0.1f, random) == 0);
}

TEST_CASE("subword sampling: an epoch's segmentations depend on (seed, epoch) only and spell the same text") {
    const Vocabulary vocab(testing::tiny_spm(40), "tiny");
    const Corpus corpus = sampling_corpus(vocab, 32);
    REQUIRE(corpus.source_choices.size() == corpus.pairs.size());
    REQUIRE(corpus.target_choices.size() == corpus.pairs.size());
    for (size_t i = 0; i < corpus.pairs.size(); ++i) {
        CHECK(corpus.source_choices[i].choice(0) == without_eos(corpus.pairs[i].source));
        CHECK(corpus.target_choices[i].size() >= 8);
        CHECK(corpus.target_choices[i].size() <= 32);
    }

    SubwordSampling both{0.1f, 0.1f, 32};
    const auto epoch0 = sample_segmentations(corpus, both, 5, 0);
    CHECK(epoch0 == sample_segmentations(corpus, both, 5, 0));
    CHECK_FALSE(epoch0 == sample_segmentations(corpus, both, 5, 1));
    CHECK_FALSE(epoch0 == sample_segmentations(corpus, both, 6, 0));
    REQUIRE(epoch0.size() == corpus.pairs.size());
    int source_changed = 0, target_changed = 0;
    for (size_t i = 0; i < epoch0.size(); ++i) {
        CHECK(epoch0[i].line == corpus.pairs[i].line);
        REQUIRE(epoch0[i].source.back() == vocab.eos_id());
        REQUIRE(epoch0[i].target.back() == vocab.eos_id());
        CHECK(vocab.decode(without_eos(epoch0[i].source)) == corpus.source_text[i]);
        CHECK(vocab.decode(without_eos(epoch0[i].target)) == corpus.target_text[i]);
        source_changed += epoch0[i].source != corpus.pairs[i].source;
        target_changed += epoch0[i].target != corpus.pairs[i].target;
    }
    // Alpha 0.1 over 32 choices leaves the best one rarely drawn.
    CHECK(source_changed > static_cast<int>(epoch0.size()) / 2);
    CHECK(target_changed > static_cast<int>(epoch0.size()) / 2);

    // Alpha 0 on a side keeps that side's best segmentation.
    const auto target_only = sample_segmentations(corpus, SubwordSampling{0, 0.1f, 32}, 5, 0);
    for (size_t i = 0; i < target_only.size(); ++i) CHECK(target_only[i].source == corpus.pairs[i].source);

    // Alternatives longer than max_length are never offered.
    const Corpus short_only = sampling_corpus(vocab, 32, 9);
    for (const auto* sides : {&short_only.source_choices, &short_only.target_choices})
        for (const SegmentationChoices& choices : *sides)
            for (size_t k = 0; k < choices.size(); ++k) CHECK(choices.choice(k).size() <= 9);

    const Corpus plain = sampling_corpus(vocab, 0);
    CHECK(plain.source_choices.empty());
    CHECK(testing::error_of([&] { sample_segmentations(plain, both, 5, 0); }).find("alternative") !=
          std::string::npos);
}

TEST_CASE("subword sampling: batches of resegmented epochs are restorable from a position") {
    const Vocabulary vocab(testing::tiny_spm(40), "tiny");
    const Corpus corpus = sampling_corpus(vocab, 16);
    const SubwordSampling sampling{0.2f, 0.2f, 16};
    BatchingOptions options;
    options.batch_tokens = 60;
    options.maxi_batch = 3;
    options.seed = 9;
    auto resegment = [&](int64_t epoch) { return sample_segmentations(corpus, sampling, options.seed, epoch); };

    BatchGenerator straight(corpus.pairs, options, resegment);
    const int64_t per_epoch = straight.batches_in_epoch();
    std::vector<TrainingBatch> expected;
    for (int64_t i = 0; i < 3 * per_epoch; ++i) expected.push_back(straight.next());
    // The epochs differ, and differ from the corpus's own segmentation.
    BatchGenerator unsampled(corpus.pairs, options);
    CHECK_FALSE(unsampled.next().targets == expected[0].targets);

    for (int64_t stop : {int64_t{0}, int64_t{2}, per_epoch - 1, per_epoch + 1}) {
        BatchGenerator first(corpus.pairs, options, resegment);
        for (int64_t i = 0; i < stop; ++i) first.next();
        BatchGenerator resumed(corpus.pairs, options, resegment);
        resumed.restore(first.position());
        for (int64_t i = stop; i < static_cast<int64_t>(expected.size()) && i < stop + per_epoch + 2; ++i) {
            const TrainingBatch batch = resumed.next();
            REQUIRE(batch.sources == expected[i].sources);
            REQUIRE(batch.targets == expected[i].targets);
        }
    }
}
