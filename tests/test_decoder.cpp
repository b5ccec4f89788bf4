// One decoder step (attention, RNN, deep output, vocabulary softmax) against the reference.
#include <doctest/doctest.h>

#include <cmath>

#include "layers/decoder.h"
#include "layers/encoder.h"
#include "core/random.h"
#include "reference.h"
#include "test_support.h"

using namespace nmt;
using nmt::testing::close;

TEST_CASE("decoder: several steps over a batch equal the reference, for every architecture") {
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 21);
        Encoder encoder(model);
        Decoder decoder(model);
        const int eos = model.source_vocab.eos_id();
        const std::vector<std::vector<int>> sentences = {{5, 6, 7, 8, eos}, {9, eos}, {4, 10, 11, eos}};
        const EncodedBatch batch = encoder.encode(sentences);
        DecoderState state = decoder.start(batch);
        // Reorder and duplicate rows the way beam search does.
        decoder.select_rows(state, {2, 0, 0, 1});
        std::vector<reference::Mat> states, embeddings;
        std::vector<reference::DecoderRow> rows;
        for (int s : {2, 0, 0, 1}) {
            states.push_back(reference::encode(model, sentences[s]));
            embeddings.push_back(reference::source_embeddings(model, sentences[s]));
            rows.push_back({reference::initial_state(model, states.back()), {}, {}});
        }
        Random random(5);
        Tensor log_probs, attention;
        for (int step = 0; step < 3; ++step) {
            std::vector<int> tokens;
            for (int r = 0; r < 4; ++r) tokens.push_back(step == 0 ? 1 : 3 + random.below(model.config.target_vocab_size - 3));
            decoder.step(batch, state, tokens.data(), log_probs, attention);
            for (int r = 0; r < 4; ++r) {
                reference::Vec alpha;
                const auto expected = reference::decoder_step(model, states[r], rows[r], tokens[r], alpha, &embeddings[r]);
                for (int64_t v = 0; v < model.config.target_vocab_size; ++v) REQUIRE(close(log_probs.row(r)[v], expected[v]));
                double sum = 0;
                for (int64_t j = 0; j < batch.max_length; ++j) {
                    const float a = attention.row(r)[j];
                    if (j < int64_t(alpha.size()))
                        REQUIRE(close(a, alpha[j]));
                    else
                        REQUIRE(a == 0.0f);  // padding is masked exactly
                    sum += a;
                }
                REQUIRE(sum == doctest::Approx(1.0).epsilon(1e-5));
            }
        }
    }
}
