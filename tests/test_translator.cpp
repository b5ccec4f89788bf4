// Whole-sentence translation: batching invariance, n-best lists, alignments, odd input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "decode/placeholders.h"
#include "decode/precision.h"
#include "core/random.h"
#include "test_support.h"
#include "decode/translator.h"

using namespace nmt;

namespace {

std::vector<std::string> sample_lines() {
    const char* words[] = {"the", "cat", "sat", "on", "mat", "a", "dog", "runs", "in", "park", "bird", "sings"};
    Random random(9);
    std::vector<std::string> lines;
    for (int i = 0; i < 23; ++i) {
        std::string line;
        const int n = i % 7 == 3 ? 0 : 1 + random.below(10);  // some empty lines
        for (int w = 0; w < n; ++w) line += (w ? " " : "") + std::string(words[random.below(12)]);
        lines.push_back(line);
    }
    return lines;
}

}  // namespace

TEST_CASE("translator: batched translation equals one-by-one, for every architecture") {
    const auto lines = sample_lines();
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 51);
        Translator translator(model);
        TranslateOptions options;
        options.search.beam_size = 3;
        options.search.n_best = 2;
        options.batch_size = 32;
        const auto batched = translator.translate(lines, options);
        options.batch_size = 1;
        const auto single = translator.translate(lines, options);
        REQUIRE(batched.size() == lines.size());
        for (size_t i = 0; i < lines.size(); ++i) {
            REQUIRE(batched[i].hypotheses.size() == single[i].hypotheses.size());
            CHECK(batched[i].hypotheses.empty() == lines[i].empty());
            for (size_t k = 0; k < batched[i].hypotheses.size(); ++k) {
                CHECK(batched[i].hypotheses[k].target_ids == single[i].hypotheses[k].target_ids);
                CHECK(testing::close(batched[i].hypotheses[k].score, single[i].hypotheses[k].score));
            }
        }
    }
}

// Several batches at once, each on its own thread with its own encoder and
// decoder, give what one batch at a time on all threads gives: the same
// batches, the same arithmetic. Translation and forced alignment, f32 and int8.
TEST_CASE("translator: batches translated at once equal batches one at a time") {
    const auto lines = sample_lines();
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        for (Precision precision : {Precision::FP32, Precision::Int8}) {
            CAPTURE(static_cast<int>(precision));
            Model model = testing::random_model(config, 52);
            set_decoding_precision(model, precision);
            Translator translator(model);
            TranslateOptions options;
            options.search.beam_size = 3;
            options.batch_size = 4;  // 5 batches of the 19 non-empty lines
            options.parallel_batches = 1;
            const auto one_at_a_time = translator.translate(lines, options);
            options.parallel_batches = 3;
            const auto at_once = translator.translate(lines, options);
            std::vector<std::string> targets;
            for (const auto& result : one_at_a_time)
                targets.push_back(result.hypotheses.empty() ? "" : result.hypotheses[0].translation);
            const auto aligned_at_once = translator.align(lines, targets, options);
            options.parallel_batches = 1;
            const auto aligned_one_at_a_time = translator.align(lines, targets, options);
            for (size_t i = 0; i < lines.size(); ++i) {
                CAPTURE(i);
                for (const auto& [a, b] : {std::pair{&at_once[i], &one_at_a_time[i]},
                                           std::pair{&aligned_at_once[i], &aligned_one_at_a_time[i]}}) {
                    REQUIRE(a->hypotheses.size() == b->hypotheses.size());
                    CHECK(a->source_pieces == b->source_pieces);
                    for (size_t k = 0; k < a->hypotheses.size(); ++k) {
                        CHECK(a->hypotheses[k].target_ids == b->hypotheses[k].target_ids);
                        CHECK(a->hypotheses[k].score == b->hypotheses[k].score);
                        CHECK(a->hypotheses[k].attention == b->hypotheses[k].attention);
                    }
                }
            }
        }
    }
}

TEST_CASE("translator: n-best lists are sorted and distinct, and alignment rows sum to one over real positions") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive), 61);
    Translator translator(model);
    TranslateOptions options;
    options.search.beam_size = 6;
    options.search.n_best = 6;
    const auto results = translator.translate(sample_lines(), options);
    for (const auto& r : results) {
        std::set<std::vector<int>> seen;
        for (size_t k = 0; k < r.hypotheses.size(); ++k) {
            const auto& h = r.hypotheses[k];
            CHECK(seen.insert(h.target_ids).second);
            if (k) CHECK(h.normalized_score <= r.hypotheses[k - 1].normalized_score);
            REQUIRE(h.attention.size() == h.target_pieces.size());
            for (const auto& row : h.attention) {
                REQUIRE(row.size() == r.source_pieces.size());
                double sum = 0;
                for (float a : row) sum += a;
                CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
            }
        }
    }
}

TEST_CASE("translator: over-long input is cropped with a warning, never dropped") {
    Model model = testing::random_model(
        testing::small_config(CellType::LSTM, CellType::GRU, DecoderStyle::Luong, AttentionType::Dot), 71);
    Translator translator(model);
    std::string line;
    for (int i = 0; i < 5000; ++i) line += "cat ";
    std::vector<std::string> warnings;
    TranslateOptions options;
    options.search.beam_size = 2;
    const auto results = translator.translate({"", line, "dog"}, options, &warnings, 10);
    REQUIRE(results.size() == 3);
    CHECK(results[0].hypotheses.empty());
    CHECK(results[1].source_pieces.size() == size_t(model.config.max_source_pieces));
    CHECK(!results[2].hypotheses.empty());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].rfind("line 11:", 0) == 0);
}

TEST_CASE("translator: translations keep their source's placeholders, unless the repair is turned off") {
    // A random model copies nothing, so every placeholder below is the repair's work.
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive), 72);
    Translator translator(model);
    const std::vector<std::string> lines = {"the cat %s sat on %d mats", "{name} runs in the park", "a dog", ""};
    TranslateOptions options;
    options.search.beam_size = 3;
    options.search.n_best = 2;
    const auto repaired = translator.translate(lines, options);
    REQUIRE(repaired.size() == lines.size());
    for (size_t i = 0; i < lines.size(); ++i)
        for (const auto& h : repaired[i].hypotheses) {
            auto wanted = find_placeholders(lines[i]);
            auto got = find_placeholders(h.translation);
            std::sort(wanted.begin(), wanted.end());
            std::sort(got.begin(), got.end());
            CHECK_MESSAGE(got == wanted, lines[i] << " -> " << h.translation);
        }
    options.repair_placeholders = false;
    const auto raw = translator.translate(lines, options);
    CHECK(find_placeholders(raw[0].hypotheses[0].translation).empty());
    CHECK(raw[2].hypotheses[0].translation == repaired[2].hypotheses[0].translation);  // nothing to repair
    CHECK(raw[0].hypotheses[0].target_pieces == repaired[0].hypotheses[0].target_pieces);  // only the text changes
}

TEST_CASE("translator: the search memory bound counts scores, state and kept attention per hypothesis row") {
    ModelConfig config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional,
                                               AttentionType::Additive);
    config.target_vocab_size = 1000;
    config.max_source_pieces = 10;
    SearchOptions search;
    search.beam_size = 3;
    search.max_length_factor = 2.0f;
    search.max_length_extra = 5;  // the longest target: 2 * 10 + 5 = 25 steps
    const double per_row = 4.0 * (2 * 1000 + 8 * config.dim_dec + 2 * config.dim_context() + 10 * 25);
    CHECK(search_memory_bound(config, search, 7) == static_cast<uint64_t>(7 * 3 * per_row));
    search.beam_size = 1000;
    config.max_source_pieces = 256;
    config.target_vocab_size = 16000;
    CHECK(search_memory_bound(config, search, 4096) > uint64_t(1) << 40);  // the 3 GB and growing
}
