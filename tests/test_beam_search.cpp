// Beam search against exhaustive search (on a toy scorer and on a real model
// scored by the plain-loop reference), beam 1 against greedy, and batching.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "decode/beam_search.h"
#include "decode/decoder_steps.h"
#include "layers/encoder.h"
#include "core/fast_math.h"
#include "core/random.h"
#include "reference.h"
#include "test_support.h"

using namespace nmt;

namespace {

constexpr int kBos = 3, kEos = 2;

// Log-probabilities that depend on the sentence and the whole history, via a hash.
std::vector<float> toy_distribution(int sentence, const std::vector<int>& history, int V) {
    uint64_t h = 1469598103934665603ull + sentence;
    for (int t : history) h = (h ^ (t + 1)) * 1099511628211ull;
    Random random(h);
    std::vector<float> lp(V);
    for (auto& x : lp) x = random.uniform(-3.0f, 3.0f);
    log_softmax_inplace(lp.data(), V);
    return lp;
}

class ToyModel : public StepModel {
public:
    ToyModel(int sentences, int V, int T) : V_(V), T_(T) {
        for (int s = 0; s < sentences; ++s) rows_.push_back({s, {}});
    }
    int64_t vocab_size() const override { return V_; }
    void step(const std::vector<int>& parents, const std::vector<int>& tokens, Tensor& lp, Tensor& att) override {
        std::vector<std::pair<int, std::vector<int>>> next;
        for (size_t i = 0; i < parents.size(); ++i) {
            next.push_back(rows_[parents[i]]);
            next.back().second.push_back(tokens[i]);
        }
        rows_ = next;
        lp.resize({int64_t(rows_.size()), V_});
        att.resize({int64_t(rows_.size()), T_});
        att.fill(1.0f / T_);
        for (size_t r = 0; r < rows_.size(); ++r) {
            const auto d = toy_distribution(rows_[r].first, rows_[r].second, V_);
            std::copy(d.begin(), d.end(), lp.row(r));
        }
    }

private:
    int64_t V_, T_;
    std::vector<std::pair<int, std::vector<int>>> rows_;
};

struct Best {
    std::vector<int> tokens;
    float normalized = -INFINITY;
};

// Every complete hypothesis: ends with EOS within max_length, or runs to max_length without it.
Best exhaustive(const std::function<std::vector<float>(const std::vector<int>&)>& distribution, int V,
                int max_length, float alpha) {
    Best best;
    std::function<void(std::vector<int>&, float)> visit = [&](std::vector<int>& history, float score) {
        const auto lp = distribution(history);
        const int produced = int(history.size());  // history starts with BOS
        for (int v = 0; v < V; ++v) {
            const float s = score + lp[v];
            const int length = produced;  // tokens including this one
            if (v == kEos || length == max_length) {
                const float n = s / length_penalty(length, alpha);
                if (n > best.normalized) {
                    best.normalized = n;
                    best.tokens.assign(history.begin() + 1, history.end());
                    if (v != kEos) best.tokens.push_back(v);
                }
                continue;
            }
            history.push_back(v);
            visit(history, s);
            history.pop_back();
        }
    };
    std::vector<int> history = {kBos};
    visit(history, 0.0f);
    return best;
}

}  // namespace

TEST_CASE("beam search: a beam as wide as the search space finds the exhaustive optimum, and a narrower one never beats it") {
    const int V = 4, sentences = 3;
    for (float alpha : {0.0f, 0.6f, 1.5f}) {
        SearchOptions options;
        options.length_penalty = alpha;
        options.max_length_factor = 1.0f;
        options.max_length_extra = 0;
        const std::vector<int64_t> lengths = {4, 3, 5};
        std::vector<Best> truth;
        for (int s = 0; s < sentences; ++s)
            truth.push_back(exhaustive([&](const std::vector<int>& h) { return toy_distribution(s, h, V); }, V,
                                       int(lengths[s]), alpha));
        for (int beam : {1, 2, 3, 5, 1000}) {
            CAPTURE(alpha);
            CAPTURE(beam);
            options.beam_size = beam;
            ToyModel toy(sentences, V, 5);
            const auto found = beam_search(toy, lengths, kBos, kEos, options);
            for (int s = 0; s < sentences; ++s) {
                REQUIRE(!found[s].empty());
                CHECK(found[s][0].normalized_score <= truth[s].normalized + 1e-5f);
                if (beam == 1000) {
                    CHECK(found[s][0].tokens == truth[s].tokens);
                    CHECK(found[s][0].normalized_score == doctest::Approx(truth[s].normalized).epsilon(1e-5));
                }
            }
        }
    }
}

TEST_CASE("beam search: on a real model, the full-width beam finds the optimum the reference model scores") {
    for (auto style : {DecoderStyle::Bahdanau, DecoderStyle::Luong, DecoderStyle::Conditional}) {
        auto config = testing::small_config(CellType::GRU, CellType::LSTM, style, AttentionType::Additive);
        Model model = testing::random_model(config, 31, 7, "char");
        REQUIRE(model.config.target_vocab_size == 7);
        Encoder encoder(model);
        Decoder decoder(model);
        const int eos = model.target_vocab.eos_id(), bos = model.target_vocab.bos_id();
        const std::vector<int> source = {4, 5, eos};
        const auto states = reference::encode(model, source);
        // Replay a history through the reference decoder to get the next distribution.
        auto distribution = [&](const std::vector<int>& history) {
            reference::DecoderRow row{reference::initial_state(model, states), {}, {}};
            reference::Vec lp, att;
            for (int t : history) lp = reference::decoder_step(model, states, row, t, att);
            return lp;
        };
        SearchOptions options;
        options.beam_size = 400;
        options.max_length_factor = 0.0f;
        options.max_length_extra = 3;
        options.length_penalty = 0.0f;
        // exhaustive() starts from kBos; shift our BOS in by wrapping the distribution.
        auto from_bos = [&](const std::vector<int>& h) {
            std::vector<int> real = h;
            real[0] = bos;
            return distribution(real);
        };
        const Best truth = exhaustive(from_bos, 7, 3, 0.0f);
        const EncodedBatch batch = encoder.encode({source});
        DecoderSteps steps(decoder, batch);
        const auto found = beam_search(steps, batch.lengths, bos, eos, options);
        CHECK(found[0][0].tokens == truth.tokens);
        CHECK(found[0][0].score == doctest::Approx(truth.normalized).epsilon(1e-4));
    }
}

TEST_CASE("beam search: beam size 1 is greedy decoding") {
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 41);
        Encoder encoder(model);
        Decoder decoder(model);
        const int eos = model.target_vocab.eos_id(), bos = model.target_vocab.bos_id();
        const std::vector<int> source = {7, 8, 9, 10, eos};
        SearchOptions options;
        options.beam_size = 1;
        options.length_penalty = 1.0f;  // irrelevant to a beam of one
        const EncodedBatch batch = encoder.encode({source});
        DecoderSteps steps(decoder, batch);
        const auto found = beam_search(steps, batch.lengths, bos, eos, options);
        // Greedy with the reference model.
        const auto states = reference::encode(model, source);
        const auto embeddings = reference::source_embeddings(model, source);
        reference::DecoderRow row{reference::initial_state(model, states), {}, {}};
        std::vector<int> greedy;
        int previous = bos;
        const int max_length = int(std::ceil(options.max_length_factor * source.size())) + options.max_length_extra;
        for (int t = 0; t < max_length; ++t) {
            reference::Vec att;
            const auto lp = reference::decoder_step(model, states, row, previous, att, &embeddings);
            previous = int(std::max_element(lp.begin(), lp.end()) - lp.begin());
            if (previous == eos) break;
            greedy.push_back(previous);
        }
        CHECK(found[0][0].tokens == greedy);
    }
}
