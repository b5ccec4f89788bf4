// nmt average: the mean of model files and checkpoints, and refusal of files that are not snapshots of one model.
#include <doctest/doctest.h>

#include <fstream>

#include "train/checkpoint.h"
#include "train/model_averaging.h"
#include "test_support.h"
#include "train/trainer.h"

using namespace nmt;

namespace {

std::string averaging_path(const std::string& name) { return testing::temp_path("averaging", name).string(); }

ModelConfig averaging_config() {
    return testing::small_config(CellType::GRU, CellType::LSTM, DecoderStyle::Conditional, AttentionType::Additive);
}

std::string saved_model(const std::string& name, const Model& model) {
    const std::string path = averaging_path(name);
    save_model(path, model);
    return path;
}

}  // namespace

TEST_CASE("model averaging: the mean of model files, element by element") {
    Model a = testing::random_model(averaging_config(), 1);
    a.decoding = {{"length_penalty", 1.0}};
    const Model b = testing::random_model(averaging_config(), 2);
    const Model c = testing::random_model(averaging_config(), 3);
    const std::string pa = saved_model("a.nmt", a), pb = saved_model("b.nmt", b), pc = saved_model("c.nmt", c);

    const Model mean = average_model_files({pa, pb, pc});
    for (const auto& [name, t] : a.parameters)
        for (int64_t i = 0; i < t.size(); ++i) {
            const double expected = (double(t[i]) + b.param(name)[i] + c.param(name)[i]) / 3.0;
            REQUIRE(mean.param(name)[i] == static_cast<float>(expected));
        }
    CHECK(to_json(mean.config) == to_json(a.config));
    const auto& inputs = mean.provenance.at("averaged");
    REQUIRE(inputs.size() == 3);
    CHECK(inputs[1].at("path") == pb);
    CHECK(inputs[1].at("sha256").get<std::string>().size() == 64);
    CHECK(inputs[2].at("provenance") == c.provenance);
    CHECK(mean.decoding.empty());  // a penalty tuned for one snapshot is not the mean's

    // One file is its own mean.
    const Model alone = average_model_files({pb});
    for (const auto& [name, t] : b.parameters) CHECK(alone.param(name).values == t.values);
}

TEST_CASE("model averaging: a checkpoint gives its parameter average, or its raw weights without one") {
    const Model model = testing::random_model(averaging_config(), 4);
    ParameterAverage average(model);
    for (auto& [name, t] : average.values)
        for (float& v : t.values) v = 0.5f * v + 0.25f;
    const Adam adam(model, AdamOptions{});
    const TrainingState state = initial_training_state(4);
    const std::string with_average = averaging_path("with_average.checkpoint");
    const std::string without_average = averaging_path("without_average.checkpoint");
    save_checkpoint(with_average, model, adam, average, state);
    save_checkpoint(without_average, model, adam, ParameterAverage{}, state);

    const Model from_average = load_weights_for_averaging(with_average);
    const Model from_raw = load_weights_for_averaging(without_average);
    CHECK(from_average.provenance.at("checkpoint_step") == state.step);
    CHECK(from_average.provenance.at("checkpoint_weights") == "parameter average");
    CHECK(from_raw.provenance.at("checkpoint_weights") == "raw");
    for (const auto& [name, t] : model.parameters) {
        CHECK(from_average.param(name).values == average.values.at(name).values);
        CHECK(from_raw.param(name).values == t.values);
    }
    // A checkpoint and a model file of the same model average together.
    const Model mixed = average_model_files({with_average, saved_model("raw.nmt", model)});
    const auto& name = model.parameters.begin()->first;
    CHECK(mixed.param(name)[0] == static_cast<float>((double(average.values.at(name)[0]) + model.param(name)[0]) / 2.0));
}

TEST_CASE("model averaging: refuses files that are not snapshots of one model, naming them") {
    const Model model = testing::random_model(averaging_config(), 5);
    const std::string first = saved_model("first.nmt", model);

    ModelConfig wider = averaging_config();
    wider.dim_dec += 2;
    const std::string other_architecture = saved_model("wider.nmt", testing::random_model(wider, 5));
    std::string message = testing::error_of([&] { average_model_files({first, other_architecture}); });
    CHECK(message.find(other_architecture + ": its configuration differs from " + first) != std::string::npos);

    const Model bpe = testing::random_model(averaging_config(), 5, 40, "bpe");
    REQUIRE(to_json(bpe.config) == to_json(model.config));  // the same sizes, other pieces
    const std::string other_vocabulary = saved_model("bpe.nmt", bpe);
    message = testing::error_of([&] { average_model_files({first, other_vocabulary}); });
    CHECK(message.find(other_vocabulary + ": its vocabularies differ from " + first) != std::string::npos);

    const std::string garbage = averaging_path("garbage.nmt");
    std::ofstream(garbage) << "not a model";
    message = testing::error_of([&] { average_model_files({first, garbage}); });
    CHECK(message.find(garbage + ": ") != std::string::npos);
    CHECK(testing::error_of([&] { average_model_files({}); }) != "");
}
