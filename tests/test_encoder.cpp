// The oneDNN RNN layers and the batched, padded encoder against the plain-loop reference.
#include <doctest/doctest.h>

#include "layers/encoder.h"
#include "layers/onednn_rnn.h"
#include "reference.h"
#include "core/random.h"
#include "test_support.h"

using namespace nmt;
using nmt::testing::close;

namespace {

// `layer`'s output for a random [T, N, I] input against the reference cell
// loop over each sentence, the state starting at zero.
void check_against_reference(OnednnRnnLayer& layer, CellType cell, const Tensor& W, const Tensor& U, const Tensor& b,
                             int64_t T, int64_t N, uint64_t seed) {
    const int64_t I = W.shape[0], H = U.shape[0];
    const auto input = testing::random_vector(T * N * I, seed);
    std::vector<float> output(T * N * H);
    layer.forward(input.data(), T, N, output.data());
    for (int64_t n = 0; n < N; ++n) {
        reference::Vec h(H, 0.0f), c(H, 0.0f);
        for (int64_t t = 0; t < T; ++t) {
            reference::Vec x(input.begin() + (t * N + n) * I, input.begin() + (t * N + n + 1) * I);
            h = reference::cell(cell, W, U, b, x, h, c);
            for (int64_t k = 0; k < H; ++k) REQUIRE(close(output[(t * N + n) * H + k], h[k]));
        }
    }
}

// A cell's random input weights W [I, G·H], recurrent weights U [H, G·H] and
// bias b [G·H] (G = 3 gates for a GRU, 4 for an LSTM), from seeds SEED..SEED+2.
struct CellWeights {
    Tensor W, U, b;
};

CellWeights random_cell_weights(CellType cell, int64_t I, int64_t H, uint64_t seed) {
    const int64_t G = cell == CellType::GRU ? 3 : 4;
    CellWeights weights{Tensor({I, G * H}), Tensor({H, G * H}), Tensor({G * H})};
    weights.W.values = testing::random_vector(weights.W.size(), seed);
    weights.U.values = testing::random_vector(weights.U.size(), seed + 1);
    weights.b.values = testing::random_vector(weights.b.size(), seed + 2);
    return weights;
}

}  // namespace

TEST_CASE("encoder: a oneDNN RNN layer equals the reference cell loop (GRU and LSTM)") {
    for (CellType cell : {CellType::GRU, CellType::LSTM}) {
        const auto [W, U, b] = random_cell_weights(cell, 5, 7, 1);
        OnednnRnnLayer layer(cell, W, U, b);
        check_against_reference(layer, cell, W, U, b, 6, 3, 4);
    }
}

// One layer meets many (T, N) shapes in a stream: a primitive for each, the
// scratchpad shared between them, and a large batch run in slices. I = H, so
// that W and U have the same shape and cannot be told apart by it.
TEST_CASE("encoder: a oneDNN RNN layer stays exact across shapes, a shared scratchpad and slices") {
    for (CellType cell : {CellType::GRU, CellType::LSTM}) {
        CAPTURE(static_cast<int>(cell));
        const auto [W, U, b] = random_cell_weights(cell, 6, 6, 5);
        OnednnRnnLayer layer(cell, W, U, b);
        uint64_t seed = 10;
        // 40 × 30 rows pass the 1,024 that one primitive call takes: it runs in slices of 25 and 5 sentences.
        for (auto [T, N] : {std::pair<int64_t, int64_t>{9, 4}, {1, 1}, {3, 7}, {9, 4}, {40, 30}, {12, 2}, {2, 3}}) {
            CAPTURE(T);
            CAPTURE(N);
            check_against_reference(layer, cell, W, U, b, T, N, seed++);
        }
    }
}

TEST_CASE("encoder: batched and padded encoding equals one sentence at a time, for every architecture") {
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 11);
        Encoder encoder(model);
        Random random(3);
        std::vector<std::vector<int>> sentences;
        for (int len : {5, 1, 9, 3}) {  // lengths include EOS; padded to 9 in the batch
            std::vector<int> ids;
            for (int i = 0; i + 1 < len; ++i) ids.push_back(3 + random.below(model.config.source_vocab_size - 3));
            ids.push_back(model.source_vocab.eos_id());
            sentences.push_back(ids);
        }
        const EncodedBatch batch = encoder.encode(sentences);
        REQUIRE(batch.max_length == 9);
        for (size_t s = 0; s < sentences.size(); ++s) {
            const auto states = reference::encode(model, sentences[s]);
            for (size_t j = 0; j < states.size(); ++j)
                for (size_t k = 0; k < states[j].size(); ++k) REQUIRE(close(batch.state(s, j)[k], states[j][k]));
            const auto init = reference::initial_state(model, states);
            for (size_t k = 0; k < init.size(); ++k) REQUIRE(close(batch.init_state.row(s)[k], init[k]));
        }
    }
}
