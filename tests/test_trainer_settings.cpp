// The training settings' table (lib/train/trainer_settings): one name per
// setting, from which its flag and its record come; parsed settings read
// and record what they were given; optional ones are recorded when set.
#include <doctest/doctest.h>

#include <set>

#include "test_support.h"
#include "train/trainer_settings.h"

using namespace nmt;

namespace {

const TrainerSetting& setting(const std::string& name) {
    for (const TrainerSetting& s : trainer_settings())
        if (s.name == name) return s;
    FAIL("no setting " << name);
    throw;
}

std::set<std::string> keys(const nlohmann::json& json) {
    std::set<std::string> out;
    for (const auto& [key, value] : json.items()) out.insert(key);
    return out;
}

}  // namespace

TEST_CASE("trainer settings: names are unique snake_case, flags their dashed form, each filled one way") {
    std::set<std::string> names;
    for (const TrainerSetting& s : trainer_settings()) {
        CAPTURE(s.name);
        CHECK(names.insert(s.name).second);
        CHECK(s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos);
        CHECK(static_cast<bool>(s.field) != static_cast<bool>(s.parse));
        CHECK(!s.group.empty());
        CHECK(!s.help.empty());
    }
    CHECK(setting_flag("guided_alignment_weight") == "--guided-alignment-weight");
}

// The keys a run records for its options (the log's start record and the
// model's provenance): the same as before the table existed, so that the
// provenance of old and new models reads alike.
TEST_CASE("trainer settings: a default run records the same option keys as before the table") {
    const std::set<std::string> always = {
        "train_source", "train_target", "valid_source", "valid_target", "max_length", "output", "checkpoint",
        "storage", "seed", "batch_tokens", "maxi_batch", "label_smoothing", "dropout_emb", "dropout_hidden",
        "dropout_src", "dropout_trg", "adam_beta1", "adam_beta2", "adam_eps", "lr", "warmup", "lr_decay",
        "lr_decay_factor", "clip_norm", "exponential_smoothing", "disp_freq", "valid_every", "save_every",
        "valid_metric", "valid_beam", "valid_lines", "patience", "max_time", "max_steps", "max_epochs"};
    TrainerOptions options;
    options.output = "model.nmt";
    const nlohmann::json json = options.to_json();
    CHECK(keys(json) == always);
    CHECK(json["checkpoint"] == "model.nmt.checkpoint");
    CHECK(json["storage"] == "F32");
    CHECK(json["label_smoothing"] == 0.1);  // as typed, not 0.10000000149011612
    CHECK(json["lr_decay"] == "invsqrt");
    CHECK(json["valid_metric"] == "bleu");
}

TEST_CASE("trainer settings: optional settings are recorded only when set") {
    TrainerOptions options;
    options.graph.dropout_rnn = 0.25f;
    options.guided_alignment = "links.txt";
    options.graph.guided_alignment_weight = 0.3f;
    options.risk.candidates = 4;
    options.subword_sampling.source_alpha = 0.1f;
    const nlohmann::json json = options.to_json();
    CHECK(json["dropout_rnn"] == 0.25);
    CHECK(json["guided_alignment"] == "links.txt");
    CHECK(json["guided_alignment_weight"] == 0.3);
    CHECK(json["mrt_candidates"] == 4);
    CHECK(json["mrt_length_penalty"] == 0.6);
    CHECK(json["sentencepiece_alphas"] == nlohmann::json{0.1, 0.0});
    CHECK(json["sentencepiece_nbest"] == 64);
    CHECK(keys(json).size() == trainer_settings().size());  // with all of them set, every setting is recorded
}

TEST_CASE("trainer settings: parsed settings read text and record what they read") {
    TrainerOptions options;
    setting("lr_decay").parse(options, {"invsqrt+plateau"});
    setting("valid_metric").parse(options, {"ce"});
    setting("storage").parse(options, {"f16"});
    setting("max_time").parse(options, {"90m"});
    setting("sentencepiece_alphas").parse(options, {"0.2"});
    CHECK(options.lr.decay == LrDecay::InverseSqrtPlateau);
    CHECK(options.metric == ValidMetric::CrossEntropy);
    CHECK(options.storage == DType::F16);
    CHECK(options.max_time == 5400);
    CHECK(options.subword_sampling.source_alpha == 0.2f);
    CHECK(options.subword_sampling.target_alpha == 0.2f);  // one alpha: both sides
    setting("sentencepiece_alphas").parse(options, {"0.1", "0"});
    CHECK(options.subword_sampling.target_alpha == 0.0f);
    const nlohmann::json json = options.to_json();
    CHECK(json["lr_decay"] == "invsqrt+plateau");
    CHECK(json["valid_metric"] == "ce");
    CHECK(json["storage"] == "F16");
    CHECK(json["max_time"] == 5400);
    CHECK(testing::error_of([&] { setting("max_time").parse(options, {"soon"}); }) != "");
}
