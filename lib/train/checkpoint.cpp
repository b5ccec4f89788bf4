#include "train/checkpoint.h"

#include "core/error.h"

namespace nmt {

namespace {

constexpr const char* kFormat = "nmt-checkpoint";
constexpr int kFormatVersion = 1;

template <typename T>
T field(const nlohmann::json& json, const char* name) {
    if (!json.contains(name)) throw Error(std::string("training state lacks '") + name + "'");
    return json.at(name).get<T>();
}

}  // namespace

nlohmann::json TrainingState::to_json() const {
    return {{"step", step},
            {"epoch", position.epoch},
            {"batch", position.batch},
            // Strings: JSON numbers are often read as doubles by other tools,
            // which would lose the low bits of a 64-bit state word.
            {"random_state",
             {std::to_string(random_state[0]), std::to_string(random_state[1]), std::to_string(random_state[2]),
              std::to_string(random_state[3])}},
            {"lr_scale", lr_scale},
            {"has_best", has_best},
            {"best_score", best_score},
            {"best_ce", best_ce},
            {"best_step", best_step},
            {"stalled_validations", stalled_validations},
            {"elapsed_seconds", elapsed_seconds},
            {"skipped_updates", skipped_updates},
            {"window", {{"loss", window_loss}, {"nll", window_nll}, {"grad_norm", window_grad_norm}, {"tokens", window_tokens},
                        {"correct", window_correct}, {"steps", window_steps}, {"seconds", window_seconds},
                        {"risk", window_risk}, {"risk_sentences", window_risk_sentences}}},
            {"tokens_seen", tokens_seen},
            {"history", history},
            {"run", run}};
}

TrainingState TrainingState::from_json(const nlohmann::json& json) {
    TrainingState s;
    try {
        s.step = field<int64_t>(json, "step");
        s.position.epoch = field<int64_t>(json, "epoch");
        s.position.batch = field<int64_t>(json, "batch");
        const auto words = field<std::vector<std::string>>(json, "random_state");
        if (words.size() != 4) throw Error("training state: random_state must have 4 words");
        for (int i = 0; i < 4; ++i) s.random_state[i] = std::stoull(words[i]);
        s.lr_scale = field<double>(json, "lr_scale");
        s.has_best = field<bool>(json, "has_best");
        s.best_score = field<double>(json, "best_score");
        s.best_ce = field<double>(json, "best_ce");
        s.best_step = field<int64_t>(json, "best_step");
        s.stalled_validations = field<int64_t>(json, "stalled_validations");
        s.elapsed_seconds = field<double>(json, "elapsed_seconds");
        s.skipped_updates = field<int64_t>(json, "skipped_updates");
        const auto& w = json.at("window");
        s.window_loss = field<double>(w, "loss");
        s.window_nll = field<double>(w, "nll");
        s.window_grad_norm = field<double>(w, "grad_norm");
        s.window_tokens = field<int64_t>(w, "tokens");
        s.window_correct = field<int64_t>(w, "correct");
        s.window_steps = field<int64_t>(w, "steps");
        s.window_seconds = w.value("seconds", 0.0);
        s.window_risk = w.value("risk", 0.0);
        s.window_risk_sentences = w.value("risk_sentences", int64_t{0});
        s.tokens_seen = field<int64_t>(json, "tokens_seen");
        s.history = json.at("history");
        s.run = json.at("run");
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("training state: ") + e.what());
    } catch (const std::logic_error& e) {  // stoull
        throw Error(std::string("training state: bad random_state (") + e.what() + ")");
    }
    return s;
}

void save_checkpoint(const std::string& path, const Model& model, const Adam& adam, const ParameterAverage& average,
                     const TrainingState& state) {
    SafetensorsFile file;
    file.metadata["format"] = kFormat;
    file.metadata["format_version"] = std::to_string(kFormatVersion);
    file.metadata["config"] = to_json(model.config).dump();
    file.metadata["provenance"] = model.provenance.dump();
    file.metadata["training_state"] = state.to_json().dump();
    file.metadata["adam"] = nlohmann::json{{"beta1", adam.options().beta1},
                                           {"beta2", adam.options().beta2},
                                           {"epsilon", adam.options().epsilon},
                                           {"steps", adam.steps()}}
                                .dump();
    for (const auto& [name, t] : model.parameters) file.tensors[name] = StoredTensor::from_float(t);
    for (const auto& [name, t] : adam.first_moments) file.tensors["adam.m." + name] = StoredTensor::from_float(t);
    for (const auto& [name, t] : adam.second_moments) file.tensors["adam.v." + name] = StoredTensor::from_float(t);
    for (const auto& [name, t] : average.values) file.tensors["average." + name] = StoredTensor::from_float(t);
    file.tensors["vocab.source"] = StoredTensor::from_bytes(model.source_vocab.serialized());
    file.tensors["vocab.target"] = StoredTensor::from_bytes(model.target_vocab.serialized());
    write_safetensors(path, file);
}

bool is_checkpoint_file(const std::string& path) {
    const auto metadata = read_safetensors_metadata(path);
    const auto format = metadata.find("format");
    return format != metadata.end() && format->second == kFormat;
}

Checkpoint load_checkpoint(const std::string& path) {
    SafetensorsFile file = read_safetensors(path);
    auto meta = [&](const std::string& key) -> const std::string& {
        auto it = file.metadata.find(key);
        if (it == file.metadata.end())
            throw Error(path + ": not an nmt training checkpoint (metadata lacks '" + key + "')");
        return it->second;
    };
    if (meta("format") != kFormat)
        throw Error(path + ": not an nmt training checkpoint (format is '" + meta("format") + "')");
    if (meta("format_version") != std::to_string(kFormatVersion))
        throw Error(path + ": checkpoint format version " + meta("format_version") +
                    " is not supported (this nmt reads " + std::to_string(kFormatVersion) + ")");
    ModelConfig config;
    nlohmann::json provenance, adam_json;
    TrainingState state;
    try {
        config = config_from_json(nlohmann::json::parse(meta("config")));
        provenance = nlohmann::json::parse(meta("provenance"));
        adam_json = nlohmann::json::parse(meta("adam"));
        state = TrainingState::from_json(nlohmann::json::parse(meta("training_state")));
    } catch (const nlohmann::json::exception& e) {
        throw Error(path + ": checkpoint metadata is not valid JSON (" + e.what() + ")");
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
    auto take_float = [&](const std::string& name, const Shape& shape) {
        auto it = file.tensors.find(name);
        if (it == file.tensors.end()) throw Error(path + ": missing tensor " + name);
        if (it->second.shape != shape)
            throw Error(path + ": tensor " + name + " has shape " + shape_to_string(it->second.shape) +
                        ", the configuration expects " + shape_to_string(shape));
        if (it->second.dtype != DType::F32)
            throw Error(path + ": tensor " + name + " is " + dtype_name(it->second.dtype) + ", a checkpoint holds F32");
        Tensor t = it->second.to_float();
        file.tensors.erase(it);
        return t;
    };
    // Checked as F32 here: a checkpoint keeps full precision, which
    // take_model, shared with model files, does not ask of them.
    for (const auto& [name, shape] : parameter_shapes(config)) {
        auto it = file.tensors.find(name);
        if (it != file.tensors.end() && it->second.dtype != DType::F32)
            throw Error(path + ": tensor " + name + " is " + dtype_name(it->second.dtype) + ", a checkpoint holds F32");
    }
    Model model = take_model(path, config, provenance, nlohmann::json::object(), file);
    AdamOptions options;
    Adam adam;
    try {
        options.beta1 = adam_json.at("beta1").get<double>();
        options.beta2 = adam_json.at("beta2").get<double>();
        options.epsilon = adam_json.at("epsilon").get<double>();
        adam.set_steps(adam_json.at("steps").get<int64_t>());
    } catch (const nlohmann::json::exception& e) {
        throw Error(path + ": checkpoint optimiser metadata: " + e.what());
    }
    adam.set_options(options);
    // All parameters averaged or none (a run that did not average).
    const bool averaged = file.tensors.count("average." + parameter_shapes(config).begin()->first) > 0;
    ParameterAverage average;
    for (const auto& [name, shape] : parameter_shapes(config)) {
        adam.first_moments.emplace(name, take_float("adam.m." + name, shape));
        adam.second_moments.emplace(name, take_float("adam.v." + name, shape));
        if (averaged) average.values.emplace(name, take_float("average." + name, shape));
    }
    return Checkpoint{std::move(model), std::move(adam), std::move(average), std::move(state)};
}

}  // namespace nmt
