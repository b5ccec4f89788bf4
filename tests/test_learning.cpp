// End-to-end proof: a small model learns to copy and to reverse sequences of
// random symbols, and its attention follows the diagonal (copy) or the
// anti-diagonal (reverse).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "train/adam.h"
#include "decode/beam_search.h"
#include "decode/decoder_steps.h"
#include "layers/encoder.h"
#include "test_support.h"
#include "train/training_graph.h"
#include "train/training_step.h"

using namespace nmt;

namespace {

constexpr int kFirstSymbol = 3, kSymbols = 20;

std::vector<int> random_sequence(Random& random) {
    std::vector<int> s(3 + random.below(10));  // 3–12 symbols
    for (auto& x : s) x = kFirstSymbol + static_cast<int>(random.below(kSymbols));
    return s;
}

// A task example: source = symbols + EOS; target = the same symbols (reversed
// for the reverse task), without EOS — callers add it where the target needs it.
std::pair<std::vector<int>, std::vector<int>> example(Random& random, bool reverse, int eos) {
    auto source = random_sequence(random);
    auto target = source;
    if (reverse) std::reverse(target.begin(), target.end());
    source.push_back(eos);
    return {source, target};
}

struct Outcome {
    double exact = 0;      // share of held-out sequences produced exactly
    double attention = 0;  // share of target positions whose attention argmax is the expected source position
    double near = 0;       // share whose argmax is at most one position from it
};

// Warm-up, then a cosine decay to zero at the last step. Ending at a zero rate
// lets the weights settle instead of oscillating, so the outcome does not hinge
// on the last few updates — which differ between CPUs, since oneDNN's kernels
// round differently on SSE4.1, AVX2 and AVX-512 machines. (A constant-tail
// schedule passed here and failed on another machine with the same seed.)
double learning_rate(int step, int steps) {
    constexpr double kPeak = 0.01, kPi = 3.14159265358979323846;
    const double warm_up = std::min(1.0, step / 100.0);
    return kPeak * warm_up * 0.5 * (1 + std::cos(kPi * step / steps));
}

Outcome learn(bool reverse, uint64_t seed, DecoderStyle style = DecoderStyle::Bahdanau, bool layer_norm = false,
              bool lexical_model = false) {
    ModelConfig config = testing::small_config(CellType::GRU, CellType::GRU, style, AttentionType::Additive);
    config.layer_norm = layer_norm;
    config.lexical_model = lexical_model;
    config.dim_emb = 32;
    config.dim_rnn = 64;
    config.dim_dec = 64;
    config.dim_attention = 32;
    config.encoder_depth = 1;
    Vocabulary source(testing::tiny_spm(60), "test"), target(testing::tiny_spm(60), "test");
    config.source_vocab_size = source.size();
    config.target_vocab_size = target.size();
    REQUIRE(config.target_vocab_size >= kFirstSymbol + kSymbols);
    Model model = init_model(config, seed, std::move(source), std::move(target));
    const int eos = model.target_vocab.eos_id();

    TrainingGraph graph(model);
    Adam adam(model, AdamOptions{});
    Gradients gradients = zero_gradients(model);
    TrainingOptions options;
    options.label_smoothing = 0.0f;
    options.dropout_embeddings = options.dropout_hidden = 0.0f;
    Random random(seed);
    constexpr int kSteps = 1100;
    for (int step = 1; step <= kSteps; ++step) {
        TrainingBatch batch;
        for (int i = 0; i < 48; ++i) {
            auto [source, target] = example(random, reverse, eos);
            target.push_back(eos);
            batch.sources.push_back(source);
            batch.targets.push_back(target);
        }
        plain_update(graph, model, adam, gradients, batch, options, random, learning_rate(step, kSteps));
    }

    Random held_out(seed + 99);
    std::vector<std::vector<int>> sources, expected;
    for (int i = 0; i < 200; ++i) {
        auto [source, target] = example(held_out, reverse, eos);
        sources.push_back(source);
        expected.push_back(target);
    }
    Encoder encoder(model);
    Decoder decoder(model);
    const EncodedBatch batch = encoder.encode(sources);
    DecoderSteps steps(decoder, batch);
    SearchOptions search;
    search.beam_size = 5;
    const auto found = beam_search(steps, batch.lengths, model.target_vocab.bos_id(), eos, search);
    Outcome outcome;
    int exact = 0, aligned = 0, near = 0, positions = 0;
    for (size_t i = 0; i < sources.size(); ++i) {
        const auto& h = found[i][0];
        exact += h.tokens == expected[i];
        const int n = static_cast<int>(expected[i].size());
        for (int t = 0; t < std::min<int>(n, h.tokens.size()); ++t) {
            const auto& row = h.attention[t];
            const int argmax = static_cast<int>(std::max_element(row.begin(), row.end()) - row.begin());
            const int expected_position = reverse ? n - 1 - t : t;
            aligned += argmax == expected_position;
            near += std::abs(argmax - expected_position) <= 1;
            ++positions;
        }
    }
    outcome.exact = double(exact) / sources.size();
    outcome.attention = double(aligned) / positions;
    outcome.near = double(near) / positions;
    return outcome;
}

// Thresholds with a margin over what 48 runs gave (4 tasks × 4 seeds × AVX2,
// AVX-512 and SSE4.1 kernels): exact 1.0 always, argmax within one position
// 1.0, argmax exactly on the expected position 0.92 at worst (the lexical
// model, added later: 1.0 on all three for seeds 7 and 8). A neighbour can
// win the argmax without harm, since a bidirectional encoder state also
// carries its neighbours' symbols.
void check_learned(const Outcome& o) {
    CAPTURE(o.exact);
    CAPTURE(o.attention);
    CAPTURE(o.near);
    CHECK(o.exact >= 0.95);
    CHECK(o.near >= 0.98);
    CHECK(o.attention >= 0.85);
}

}  // namespace

TEST_CASE("learning: a small model learns to reverse sequences, attending along the anti-diagonal") {
    const Outcome o = learn(true, 3);
    check_learned(o);
}

TEST_CASE("learning: a small model learns to copy sequences, attending along the diagonal") {
    const Outcome o = learn(false, 4);
    check_learned(o);
}

TEST_CASE("learning: the conditional (cGRU) decoder learns to reverse sequences, attending along the anti-diagonal") {
    const Outcome o = learn(true, 5, DecoderStyle::Conditional);
    check_learned(o);
}

TEST_CASE("learning: with layer-normalised cells, the conditional decoder learns to reverse sequences") {
    const Outcome o = learn(true, 6, DecoderStyle::Conditional, true);
    check_learned(o);
}

TEST_CASE("learning: with the lexical model, the conditional decoder learns to reverse sequences") {
    const Outcome o = learn(true, 7, DecoderStyle::Conditional, false, true);
    check_learned(o);
}
