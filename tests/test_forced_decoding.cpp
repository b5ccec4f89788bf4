// Forced decoding: a given translation scored and attended as beam search
// scores and attends the same translation when it finds it.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "layers/encoder.h"
#include "core/error.h"
#include "decode/forced_decoding.h"
#include "test_support.h"
#include "decode/translator.h"

using namespace nmt;

namespace {

const std::vector<std::string> kLines = {"the cat sat on the mat", "a dog", "a bird sings in the park",
                                         "the dog runs", "cat"};

std::vector<std::vector<int>> source_ids(const Model& model, const std::vector<std::string>& lines) {
    std::vector<std::vector<int>> ids;
    for (const auto& line : lines) {
        ids.push_back(model.source_vocab.encode(line));
        ids.back().push_back(model.source_vocab.eos_id());
    }
    return ids;
}

bool rows_close(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
    if (a.size() != b.size()) return false;
    for (size_t t = 0; t < a.size(); ++t) {
        if (a[t].size() != b[t].size()) return false;
        for (size_t j = 0; j < a[t].size(); ++j)
            if (std::fabs(a[t][j] - b[t][j]) > 1e-5f) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("forced decoding: beam search's own hypotheses get back their scores and attention, batched or not") {
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 52);
        Translator translator(model);
        TranslateOptions options;
        options.search.beam_size = 3;
        options.search.n_best = 3;
        const auto found = translator.translate(kLines, options);

        // Every hypothesis, forced in one batch (its source repeated for
        // each) and again one pair at a time. Random weights seldom choose
        // EOS before the length limit: such a hypothesis is compared on its
        // pieces, forced decoding adding the EOS step after them.
        std::vector<std::vector<int>> sources, targets;
        std::vector<const Hypothesis*> expected;
        const auto ids = source_ids(model, kLines);
        for (size_t i = 0; i < kLines.size(); ++i)
            for (const Hypothesis& h : found[i].hypotheses) {
                sources.push_back(ids[i]);
                targets.push_back(h.target_ids);
                expected.push_back(&h);
            }
        REQUIRE(expected.size() >= 2 * kLines.size());
        Encoder encoder(model);
        Decoder decoder(model);
        const int bos = model.target_vocab.bos_id(), eos = model.target_vocab.eos_id();
        const auto batched = force_decode(decoder, encoder.encode(sources), targets, bos, eos);
        REQUIRE(batched.size() == expected.size());
        for (size_t k = 0; k < expected.size(); ++k) {
            CAPTURE(k);
            const Hypothesis& h = *expected[k];
            const bool ended = h.target_pieces.back() == kEndToken;
            CHECK(batched[k].target_ids == h.target_ids);
            REQUIRE(batched[k].token_scores.size() == h.target_ids.size() + 1);
            REQUIRE(batched[k].attention.size() == h.target_ids.size() + 1);
            float searched = 0;
            for (size_t t = 0; t < h.target_ids.size() + (ended ? 1 : 0); ++t) searched += batched[k].token_scores[t];
            CHECK(testing::close(searched, h.score));
            auto rows = batched[k].attention;
            if (!ended) rows.pop_back();
            CHECK(rows_close(rows, h.attention));
            const auto single = force_decode(decoder, encoder.encode({sources[k]}), {targets[k]}, bos, eos);
            CHECK(testing::close(single[0].score, batched[k].score));
            CHECK(rows_close(single[0].attention, batched[k].attention));
        }
    }
}

TEST_CASE("forced decoding: Translator::align keeps the given text, one attention row per piece, rows summing to one") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive), 53);
    Translator translator(model);
    TranslateOptions options;
    const std::vector<std::string> sources = {"the cat sat", "", "a dog runs", "a bird"};
    const std::vector<std::string> targets = {"le chat", "rien", "", "un oiseau chante"};
    const auto results = translator.align(sources, targets, options);
    REQUIRE(results.size() == 4);
    CHECK(results[1].hypotheses.empty());  // nothing to align from
    for (size_t i : {size_t(0), size_t(2), size_t(3)}) {
        CAPTURE(i);
        REQUIRE(results[i].hypotheses.size() == 1);
        const Hypothesis& h = results[i].hypotheses[0];
        CHECK(h.translation == targets[i]);
        CHECK(h.target_pieces.back() == kEndToken);
        CHECK(h.target_pieces.size() == h.target_ids.size() + 1);
        CHECK(h.score < 0);
        REQUIRE(h.attention.size() == h.target_pieces.size());
        for (const auto& row : h.attention) {
            CHECK(row.size() == results[i].source_pieces.size());
            float sum = 0;
            for (float w : row) sum += w;
            CHECK(std::fabs(sum - 1.0f) < 1e-4f);
        }
    }
    CHECK(results[2].hypotheses[0].target_ids.empty());  // an empty translation: EOS alone
    CHECK_THROWS_AS(translator.align({"a"}, {"b", "c"}, options), Error);

    // The same pairs one at a time.
    options.batch_size = 1;
    const auto single = translator.align(sources, targets, options);
    for (size_t i : {size_t(0), size_t(2), size_t(3)})
        CHECK(testing::close(single[i].hypotheses[0].score, results[i].hypotheses[0].score));
}
