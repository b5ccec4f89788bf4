// Gradients against finite differences for every parameter of every
// architecture, and the training forward against the inference decoder.
#include <doctest/doctest.h>

#include <cmath>

#include "train/adam.h"
#include "train/cell_run.h"
#include "layers/decoder.h"
#include "core/error.h"
#include "layers/encoder.h"
#include "core/random.h"
#include "test_support.h"
#include "train/training_graph.h"

using namespace nmt;

namespace {

TrainingBatch tiny_batch(const Model& model) {
    const int eos = model.target_vocab.eos_id();
    TrainingBatch b;
    b.sources = {{5, 6, 7, eos}, {8, eos}, {9, 10, 11, 12, 13, eos}};
    b.targets = {{14, 15, eos}, {16, 17, 18, 19, eos}, {eos}};
    return b;
}

// Smaller weights keep the loss surface smooth at the finite-difference step.
Model half_weight_model(const ModelConfig& config, uint64_t seed) {
    Model model = testing::random_model(config, seed);
    for (auto& [name, t] : model.parameters)
        for (auto& v : t.values) v *= 0.5f;
    return model;
}

// The central difference of loss() at tensor[i] (step 1e-2) must match the
// analytic gradient; tensor[i] is restored.
template <class Loss>
void require_central_difference(Tensor& tensor, int64_t i, double analytic, Loss loss) {
    const float saved = tensor[i], h = 1e-2f;
    tensor[i] = saved + h;
    const double plus = loss();
    tensor[i] = saved - h;
    const double minus = loss();
    tensor[i] = saved;
    const double numeric = (plus - minus) / (2 * h);
    CAPTURE(i);
    CAPTURE(numeric);
    CAPTURE(analytic);
    REQUIRE(std::fabs(numeric - analytic) <= 2e-2 * std::max(std::fabs(numeric), std::fabs(analytic)) + 3e-4);
}

}  // namespace

TEST_CASE("training graph: gradients equal central finite differences, for every architecture") {
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = half_weight_model(config, 101);
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
                require_central_difference(tensor, i, gradients.at(name)[i],
                                           [&] { return evaluate_loss(model, batch, 0.1f).loss; });
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

TEST_CASE("training graph: with every dropout on, gradients equal finite differences of the same masked loss") {
    // The same Random seed draws the same masks, so the masked loss is a
    // deterministic function of the weights and its gradient can be checked.
    // Recurrent dropout is checked on both cell types, plain and layer-normalised,
    // in the encoder's layers and in both of the conditional decoder's cells.
    ModelConfig gru = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive);
    ModelConfig lstm_ln =
        testing::small_config(CellType::LSTM, CellType::LSTM, DecoderStyle::Conditional, AttentionType::Additive);
    lstm_ln.layer_norm = true;
    ModelConfig gru_ln = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    gru_ln.layer_norm = true;
    // The lexical model reads the source embeddings as dropout and word dropout left them.
    ModelConfig lexical = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    lexical.lexical_model = true;
    for (const ModelConfig& config : {gru, lstm_ln, gru_ln, lexical}) {
        CAPTURE(testing::describe(config));
        Model model = half_weight_model(config, 131);
        const TrainingBatch batch = tiny_batch(model);
        TrainingOptions options;
        options.dropout_embeddings = 0.2f;
        options.dropout_hidden = 0.3f;
        options.dropout_source_words = 0.3f;
        options.dropout_target_words = 0.3f;
        options.dropout_rnn = 0.3f;
        auto masked_loss = [&](Gradients& g) {
            Random random(9);
            return forward_backward(model, batch, options, random, g).loss;
        };
        Gradients gradients = zero_gradients(model), scratch = zero_gradients(model);
        masked_loss(gradients);
        Random pick(3);
        std::vector<std::string> names = {"source.embeddings", "target.embeddings", "encoder.0.forward.W",
                                          "encoder.0.forward.U", "encoder.0.backward.U", "encoder.1.U",
                                          "decoder.rnn.U"};
        if (config.decoder_style == DecoderStyle::Conditional) names.push_back("decoder.rnn2.U");
        for (const std::string& name : names) {
            CAPTURE(name);
            Tensor& tensor = model.parameters.at(name);
            for (int trial = 0; trial < 6; ++trial) {
                const int64_t i = pick.below(tensor.size());
                require_central_difference(tensor, i, gradients.at(name)[i], [&] { return masked_loss(scratch); });
            }
        }
    }
}

TEST_CASE("cell run: recurrent dropout drops the same units of the state at every step") {
    // One row: a unit dropped from the state the recurrent products see must
    // leave its row of U without gradient over the whole sequence, which holds
    // only if it is dropped at every step, and a kept one must not; the last
    // state must differ from the plain run's.
    for (CellType type : {CellType::GRU, CellType::LSTM}) {
        const char* cell = type == CellType::GRU ? "gru" : "lstm";
        CAPTURE(cell);
        const int64_t I = 5, H = 16, G = (type == CellType::GRU ? 3 : 4) * H, T = 6;
        Random init(21);
        Tensor W({I, G}), U({H, G}), b({G});
        for (Tensor* t : {&W, &U, &b})
            for (auto& v : t->values) v = init.uniform() - 0.5f;
        const CellWeights weights{W, U, b};
        auto run_with = [&](float p, Tensor& dU, std::vector<float>& last_state) {
            CellRun run(type, weights);
            run.reset(T, 1);
            run.drop_recurrent(p, DropoutMasks(4), kRecurrentSites);
            Random inputs(8);
            for (int64_t t = 0; t < T; ++t)
                for (int64_t k = 0; k < I; ++k) run.input(t)[k] = inputs.uniform() - 0.5f;
            run.forward_all();
            last_state.assign(run.h(T - 1), run.h(T - 1) + H);
            std::vector<float> dh(H, 1.0f), dc(H, 0.0f), dh_prev(H);
            for (int64_t t = T - 1; t >= 0; --t) {
                run.backward_step(t, dh.data(), dc.data(), dh_prev.data());
                dh = dh_prev;
            }
            Tensor dW({I, G}), db({G});
            dU = Tensor({H, G});
            run.accumulate_parameter_gradients({dW, dU, db});
        };
        Tensor dU_dropped, dU_plain;
        std::vector<float> h_dropped, h_plain;
        run_with(0.5f, dU_dropped, h_dropped);
        run_with(0.0f, dU_plain, h_plain);
        CHECK(h_dropped != h_plain);
        // A dropped unit's row of U has no gradient at all; a kept unit's row
        // has one in every column of the first gate (u or i). (Other columns
        // may be zero: a dropped unit's GRU reset gate multiplies only zeros.)
        int dropped = 0, kept = 0, plain_zeros = 0;
        for (int64_t k = 0; k < H; ++k) {
            int zeros = 0, first_gate_zeros = 0;
            for (int64_t j = 0; j < G; ++j) {
                zeros += dU_dropped.row(k)[j] == 0.0f;
                if (j < H) first_gate_zeros += dU_dropped.row(k)[j] == 0.0f;
                plain_zeros += dU_plain.row(k)[j] == 0.0f;
            }
            CAPTURE(k);
            CHECK((zeros == G || first_gate_zeros == 0));
            (zeros == G ? dropped : kept) += 1;
        }
        CHECK(plain_zeros == 0);
        CHECK(dropped > 0);
        CHECK(kept > 0);
    }
}

TEST_CASE("training graph: a tied source table gets the sum of what separate source and target tables would get") {
    // The same weights with the source table a separate copy: the loss must be
    // the same, and the shared table's gradient the sum of the two tables'.
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    config.tied_embeddings = config.tied_source_embeddings = true;
    Model tied = testing::random_model(config, 151);
    config.tied_source_embeddings = false;
    Model separate = testing::random_model(config, 151);
    for (const auto& [name, t] : tied.parameters) separate.param(name) = t;
    separate.param("source.embeddings") = tied.param("target.embeddings");
    const TrainingBatch batch = tiny_batch(tied);
    TrainingOptions options;
    options.dropout_embeddings = options.dropout_hidden = 0.0f;
    Gradients g_tied = zero_gradients(tied), g_separate = zero_gradients(separate);
    Random r1(1), r2(1);
    const double loss_tied = forward_backward(tied, batch, options, r1, g_tied).loss;
    CHECK(loss_tied == forward_backward(separate, batch, options, r2, g_separate).loss);
    const Tensor& shared = g_tied.at("target.embeddings");
    const Tensor &source = g_separate.at("source.embeddings"), &target = g_separate.at("target.embeddings");
    float largest_source = 0;
    for (int64_t i = 0; i < shared.size(); ++i) {
        CAPTURE(i);
        CAPTURE(shared[i]);
        CAPTURE(source[i] + target[i]);
        REQUIRE(std::fabs(shared[i] - (source[i] + target[i])) <= 1e-5f * (std::fabs(source[i]) + std::fabs(target[i])) + 1e-8f);
        largest_source = std::max(largest_source, std::fabs(source[i]));
    }
    CHECK(largest_source > 1e-3f);  // the source side did contribute
}

TEST_CASE("training graph: source word dropout removes whole words") {
    // Without element dropout, a source word that occurs once gets either no
    // embedding gradient at all (dropped) or a gradient in every component.
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive), 141);
    const TrainingBatch batch = tiny_batch(model);
    TrainingOptions options;
    options.dropout_embeddings = options.dropout_hidden = 0.0f;
    options.dropout_source_words = 0.5f;
    Gradients gradients = zero_gradients(model);
    Random random(4);
    forward_backward(model, batch, options, random, gradients);
    const Tensor& g = gradients.at("source.embeddings");
    int dropped = 0, kept = 0;
    for (int id = 5; id <= 13; ++id) {
        int zeros = 0;
        for (int64_t k = 0; k < g.cols(); ++k) zeros += g.row(id)[k] == 0.0f;
        CAPTURE(id);
        CHECK((zeros == 0 || zeros == g.cols()));
        (zeros == 0 ? kept : dropped) += 1;
    }
    CHECK(dropped > 0);
    CHECK(kept > 0);
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

TEST_CASE("training graph: sentence weights scale each sentence's loss and gradient, negative ones included") {
    // Minimum risk training relies on this: the weighted batch must give
    // Σ_n w_n·(loss, gradient of sentence n alone).
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    const Model model = testing::random_model(config, 171);
    TrainingBatch batch = tiny_batch(model);
    batch.weights = {0.7f, -1.3f, 0.0f};
    TrainingOptions options;
    options.dropout_embeddings = options.dropout_hidden = 0.0f;
    Gradients weighted = zero_gradients(model), expected = zero_gradients(model);
    Random random(1);
    const BatchLoss loss = forward_backward(model, batch, options, random, weighted);
    double expected_loss = 0, expected_nll = 0;
    for (size_t n = 0; n < batch.sources.size(); ++n) {
        TrainingBatch one;
        one.sources = {batch.sources[n]};
        one.targets = {batch.targets[n]};
        Gradients g = zero_gradients(model);
        const BatchLoss alone = forward_backward(model, one, options, random, g);
        expected_loss += batch.weights[n] * alone.loss;
        expected_nll += alone.nll;  // statistics stay unweighted
        for (auto& [name, t] : expected)
            for (int64_t i = 0; i < t.size(); ++i) t[i] += batch.weights[n] * g.at(name)[i];
    }
    CHECK(loss.loss == doctest::Approx(expected_loss).epsilon(1e-5));
    CHECK(loss.nll == doctest::Approx(expected_nll).epsilon(1e-5));
    CHECK(loss.tokens == batch.target_tokens());
    for (const auto& [name, t] : expected) {
        CAPTURE(name);
        const Tensor& got = weighted.at(name);
        float largest = 0;
        for (int64_t i = 0; i < t.size(); ++i) {
            CAPTURE(i);
            REQUIRE(std::fabs(got[i] - t[i]) <= 1e-4f * std::fabs(t[i]) + 1e-6f);
            largest = std::max(largest, std::fabs(t[i]));
        }
        CHECK(largest > 0);
    }
    batch.weights = {1.0f};
    CHECK_THROWS_WITH_AS(forward_backward(model, batch, options, random, weighted),
                         "training batch: 1 sentence weights for 3 sentences", Error);
}

namespace {

// The guided-alignment term alone: the loss with it minus the loss without.
double guided_term(const Model& model, const TrainingBatch& batch, float weight) {
    TrainingOptions options;
    options.dropout_embeddings = options.dropout_hidden = 0.0f;
    Gradients g = zero_gradients(model);
    Random r1(1), r2(1);
    const double plain = forward_backward(model, batch, options, r1, g).loss;
    options.guided_alignment_weight = weight;
    return forward_backward(model, batch, options, r2, g).loss - plain;
}

}  // namespace

TEST_CASE("training graph: guided alignment's gradient equals finite differences, for every attention and decoder") {
    for (DecoderStyle style : {DecoderStyle::Bahdanau, DecoderStyle::Luong, DecoderStyle::Conditional})
        for (AttentionType attention :
             {AttentionType::Additive, AttentionType::Dot, AttentionType::General, AttentionType::ScaledDot}) {
            ModelConfig config = testing::small_config(CellType::GRU, CellType::LSTM, style, attention);
            config.lexical_model = style != DecoderStyle::Luong;  // the lexical model reads α too
            CAPTURE(testing::describe(config));
            Model model = half_weight_model(config, 151);
            TrainingBatch batch = tiny_batch(model);
            batch.alignments = {{{0, 0}, {1, 1}, {0, 1}}, {{0, 0}, {0, 2}, {1, 3}}, {}};
            TrainingOptions options;
            options.dropout_embeddings = 0.2f;  // with dropout, as training runs it
            options.dropout_hidden = 0.2f;
            options.guided_alignment_weight = 0.7f;
            REQUIRE(guided_term(model, batch, 0.7f) > 0.05);  // the term is there
            auto loss = [&](Gradients& g) {
                Random random(9);
                return forward_backward(model, batch, options, random, g).loss;
            };
            Gradients gradients = zero_gradients(model), scratch = zero_gradients(model);
            loss(gradients);
            Random pick(5);
            for (const char* name : {"source.embeddings", "encoder.0.forward.U", "encoder.1.W", "decoder.rnn.U",
                                            "attention.Wq", "attention.Wk", "attention.v", "attention.Wa"}) {
                if (!model.parameters.count(name)) continue;
                CAPTURE(name);
                Tensor& tensor = model.parameters.at(name);
                for (int trial = 0; trial < 5; ++trial) {
                    const int64_t i = pick.below(tensor.size());
                    require_central_difference(tensor, i, gradients.at(name)[i], [&] { return loss(scratch); });
                }
            }
        }
}

TEST_CASE("training graph: training with guided alignment moves the attention onto the given links") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive), 161);
    TrainingBatch batch = tiny_batch(model);
    // Crossed links, which nothing but the guidance would teach.
    batch.alignments = {{{0, 1}, {1, 0}}, {{1, 0}, {0, 1}, {0, 2}}, {{0, 0}}};
    const double before = guided_term(model, batch, 1.0f);
    TrainingOptions options;
    options.guided_alignment_weight = 1.0f;
    Adam adam(model, AdamOptions{});
    Random random(3);
    for (int step = 0; step < 60; ++step) {
        Gradients g = zero_gradients(model);
        const BatchLoss loss = forward_backward(model, batch, options, random, g);
        scale_and_clip(g, 1.0 / loss.tokens, 5.0);
        adam.update(model, g, 0.01);
    }
    const double after = guided_term(model, batch, 1.0f);
    CAPTURE(before);
    CAPTURE(after);
    CHECK(after < 0.3 * before);
}
