// Minimum risk training: the candidate weights are the risk's gradient, the
// weighted candidate batch gives the gradient of the risk itself, and the
// candidates come from the beam as the trainer will use them.
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "train/minimum_risk.h"
#include "core/random.h"
#include "test_support.h"
#include "train/training_graph.h"
#include "decode/translator.h"

using namespace nmt;

TEST_CASE("minimum risk: the weights are minus the expected cost's derivatives in the log-probabilities") {
    // Log-probabilities of long sentences (−60 and below) must not underflow Q.
    const std::vector<double> log_probs = {-61.0, -62.5, -60.2, -70.0};
    const std::vector<double> costs = {0.4, 0.9, 0.55, 0.1};
    for (double sharpness : {1.0, 0.3, 2.0}) {
        CAPTURE(sharpness);
        const std::vector<double> weights = risk_gradient_weights(log_probs, costs, sharpness);
        REQUIRE(weights.size() == log_probs.size());
        CHECK(std::accumulate(weights.begin(), weights.end(), 0.0) == doctest::Approx(0.0).epsilon(1e-12));
        for (size_t c = 0; c < log_probs.size(); ++c) {
            CAPTURE(c);
            std::vector<double> plus = log_probs, minus = log_probs;
            plus[c] += 1e-5;
            minus[c] -= 1e-5;
            const double derivative =
                (expected_cost(plus, costs, sharpness) - expected_cost(minus, costs, sharpness)) / 2e-5;
            CHECK(weights[c] == doctest::Approx(-derivative).epsilon(1e-6));
        }
    }
    // The best candidate's weight is positive (made likelier), the worst's negative.
    const std::vector<double> weights = risk_gradient_weights(log_probs, costs, 1.0);
    CHECK(weights[3] > 0);
    CHECK(weights[1] < 0);
    // Equal costs: nothing to learn.
    for (double w : risk_gradient_weights(log_probs, {0.5, 0.5, 0.5, 0.5}, 1.0)) CHECK(w == doctest::Approx(0.0));
    CHECK(expected_cost(log_probs, {0.5, 0.5, 0.5, 0.5}, 1.0) == doctest::Approx(0.5));
}

TEST_CASE("minimum risk: the cost is 1 − sentence BLEU") {
    CHECK(translation_cost("Ein Mann fährt Fahrrad.", "Ein Mann fährt Fahrrad.") == doctest::Approx(0.0));
    CHECK(translation_cost("Zwei Hunde", "Ein Mann fährt Fahrrad.") == doctest::Approx(1.0));
    const double partial = translation_cost("Ein Mann fährt Auto.", "Ein Mann fährt Fahrrad.");
    CHECK(partial > 0.1);
    CHECK(partial < 0.9);
    CHECK(translation_cost("ein Mann fährt Auto.", "Ein Mann fährt Fahrrad.") > partial);  // cased
}

TEST_CASE("minimum risk: the weighted candidate batch's gradient is the risk's, by finite differences") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    Model model = testing::random_model(config, 191);
    for (auto& [name, t] : model.parameters)
        for (auto& v : t.values) v *= 0.5f;  // a smooth loss surface at the finite-difference step
    const int eos = model.target_vocab.eos_id();
    TrainingBatch candidates;
    candidates.sources = {{5, 6, 7, eos}, {5, 6, 7, eos}, {5, 6, 7, eos}};
    candidates.targets = {{14, 15, eos}, {16, 17, 18, eos}, {14, eos}};
    const std::vector<double> costs = {0.2, 0.7, 0.5};
    const double sharpness = 0.8;
    // R(θ) = Σ_c Q_c Δ_c with log p_c = −NLL_c from the training graph.
    auto risk = [&] {
        std::vector<double> log_probs;
        for (size_t c = 0; c < costs.size(); ++c) {
            TrainingBatch one;
            one.sources = {candidates.sources[c]};
            one.targets = {candidates.targets[c]};
            log_probs.push_back(-evaluate_loss(model, one).nll);
        }
        return std::make_pair(expected_cost(log_probs, costs, sharpness), log_probs);
    };
    for (double w : risk_gradient_weights(risk().second, costs, sharpness)) candidates.weights.push_back(float(w));
    TrainingOptions options;
    options.label_smoothing = 0.0f;
    options.dropout_embeddings = options.dropout_hidden = 0.0f;
    Gradients gradients = zero_gradients(model);
    Random random(1);
    forward_backward(model, candidates, options, random, gradients);
    Random pick(3);
    int checked = 0;
    for (auto& [name, tensor] : model.parameters) {
        CAPTURE(name);
        for (int trial = 0; trial < 3; ++trial) {
            const int64_t i = pick.below(tensor.size());
            const float saved = tensor[i], h = 1e-2f;
            tensor[i] = saved + h;
            const double plus = risk().first;
            tensor[i] = saved - h;
            const double minus = risk().first;
            tensor[i] = saved;
            const double numeric = (plus - minus) / (2 * h), analytic = gradients.at(name)[i];
            CAPTURE(numeric);
            CAPTURE(analytic);
            REQUIRE(std::fabs(numeric - analytic) <= 2e-2 * std::max(std::fabs(numeric), std::fabs(analytic)) + 2e-5);
            checked += std::fabs(analytic) > 1e-4;
        }
    }
    CHECK(checked > 10);  // not a comparison of zeros
}

TEST_CASE("minimum risk: candidates are the beam's n-best, each weighted by its risk gradient") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    const Model model = testing::random_model(config, 193);
    const int eos = model.target_vocab.eos_id();
    MinimumRiskOptions options;
    options.candidates = 4;
    options.risk_weight = 0.5f;
    options.sharpness = 0.7f;
    TranslateOptions search;
    search.search.beam_size = search.search.n_best = options.candidates;
    search.search.length_penalty = options.length_penalty;
    TrainingBatch references;
    references.sources = {{5, 6, 7, eos}, {8, 9, eos}};
    // The references are the beam's best translations, so each sentence has
    // a candidate of cost 0 and the others cost more.
    const auto nbest = Translator(model).translate_ids(references.sources, search);
    for (const auto& result : nbest) {
        REQUIRE(result.hypotheses.size() == 4);
        references.targets.push_back(result.hypotheses[0].target_ids);
        references.targets.back().push_back(eos);
    }
    const RiskCandidates out = risk_candidates(model, references, options);
    CHECK(out.sentences == 2);
    CHECK(out.best_cost == doctest::Approx(0.0));
    CHECK(out.expected_cost > 0);
    REQUIRE(out.batch.sources.size() == 8);
    REQUIRE(out.batch.weights.size() == 8);
    for (size_t n = 0; n < 2; ++n) {
        CAPTURE(n);
        std::vector<double> scores, costs;
        for (const auto& h : nbest[n].hypotheses) {
            scores.push_back(h.score);
            costs.push_back(translation_cost(h.translation, model.target_vocab.decode(nbest[n].hypotheses[0].target_ids)));
        }
        const std::vector<double> expected = risk_gradient_weights(scores, costs, options.sharpness);
        for (size_t c = 0; c < 4; ++c) {
            CAPTURE(c);
            const size_t row = 4 * n + c;
            CHECK(out.batch.sources[row] == references.sources[n]);
            std::vector<int> target = nbest[n].hypotheses[c].target_ids;
            target.push_back(eos);
            CHECK(out.batch.targets[row] == target);
            CHECK(out.batch.weights[row] == doctest::Approx(0.5 * expected[c]).epsilon(1e-5));
        }
        CHECK(out.batch.weights[4 * n] > 0);  // the reference itself is made likelier
    }
}
