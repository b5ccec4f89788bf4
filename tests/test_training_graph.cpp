// Gradients against finite differences for every parameter of every
// architecture, and the training forward against the inference decoder.
#include <doctest/doctest.h>

#include <cmath>

#include "decoder.h"
#include "encoder.h"
#include "random.h"
#include "test_support.h"
#include "training_graph.h"

using namespace nmt;

namespace {

TrainingBatch tiny_batch(const Model& model) {
    const int eos = model.target_vocab.eos_id();
    TrainingBatch b;
    b.sources = {{5, 6, 7, eos}, {8, eos}, {9, 10, 11, 12, 13, eos}};
    b.targets = {{14, 15, eos}, {16, 17, 18, 19, eos}, {eos}};
    return b;
}

}  // namespace

TEST_CASE("training graph: gradients equal central finite differences, for every architecture") {
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 101);
        // Smaller weights keep the loss surface smooth at the finite-difference step.
        for (auto& [name, t] : model.parameters)
            for (auto& v : t.values) v *= 0.5f;
        const TrainingBatch batch = tiny_batch(model);
        TrainingOptions options;
        options.label_smoothing = 0.1f;
        options.dropout_embeddings = options.dropout_hidden = 0.0f;
        Gradients gradients = zero_gradients(model);
        Random random(1);
        const BatchLoss base = forward_backward(model, batch, options, random, gradients);
        CHECK(base.loss == doctest::Approx(evaluate_loss(model, batch, 0.1f).loss).epsilon(1e-6));
        Random pick(7);
        for (auto& [name, tensor] : model.parameters) {
            CAPTURE(name);
            for (int trial = 0; trial < 4; ++trial) {
                const int64_t i = pick.below(tensor.size());
                const float saved = tensor[i], h = 1e-2f;
                tensor[i] = saved + h;
                const double plus = evaluate_loss(model, batch, 0.1f).loss;
                tensor[i] = saved - h;
                const double minus = evaluate_loss(model, batch, 0.1f).loss;
                tensor[i] = saved;
                const double numeric = (plus - minus) / (2 * h);
                const double analytic = gradients.at(name)[i];
                CAPTURE(i);
                CAPTURE(numeric);
                CAPTURE(analytic);
                REQUIRE(std::fabs(numeric - analytic) <= 2e-2 * std::max(std::fabs(numeric), std::fabs(analytic)) + 2e-3);
            }
        }
    }
}

TEST_CASE("training graph: the training forward pass gives the inference decoder's log-probabilities") {
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 111);
        const TrainingBatch batch = tiny_batch(model);
        Encoder encoder(model);
        Decoder decoder(model);
        const EncodedBatch encoded = encoder.encode(batch.sources);
        double nll = 0;
        for (size_t n = 0; n < batch.sources.size(); ++n) {
            DecoderState state = decoder.start(encoded);
            decoder.select_rows(state, {int(n)});
            int previous = model.target_vocab.bos_id();
            Tensor log_probs, attention;
            for (int gold : batch.targets[n]) {
                decoder.step(encoded, state, &previous, log_probs, attention);
                nll -= log_probs[gold];
                previous = gold;
            }
        }
        CHECK(evaluate_loss(model, batch).nll == doctest::Approx(nll).epsilon(1e-4));
    }
}

TEST_CASE("training graph: dropout changes the loss, and the same random state reproduces it") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive), 121);
    const TrainingBatch batch = tiny_batch(model);
    TrainingOptions options;
    Gradients g1 = zero_gradients(model), g2 = zero_gradients(model);
    Random r1(5), r2(5);
    const double a = forward_backward(model, batch, options, r1, g1).loss;
    const double b = forward_backward(model, batch, options, r2, g2).loss;
    CHECK(a == b);
    CHECK(a != doctest::Approx(evaluate_loss(model, batch, options.label_smoothing).loss));
    for (const auto& [name, t] : g1) CHECK(t.values == g2.at(name).values);
}
