// The architecture flags shared by `nmt init` and `nmt train`.
#pragma once
#include <string>

#include <CLI/CLI.hpp>

#include "model/model.h"
#include "model/model_config.h"

namespace nmt::app {

struct ArchitectureOptions {
    std::string encoder_cell = "gru", decoder_cell = "gru", decoder_style = "bahdanau", attention = "additive";
    ModelConfig config;  // dimensions and flags are bound directly

    void add_to(CLI::App& command);
    ModelConfig resolve() const;  // parses the names; vocab sizes are filled in by the caller
};

struct VocabularyOptions {
    std::string joint, source, target;
    void add_to(CLI::App& command);
    // Paths of the source and target SentencePiece models; throws when neither form was given.
    std::pair<std::string, std::string> paths() const;
    bool given() const { return !joint.empty() || !source.empty() || !target.empty(); }
};

// "f16" / "bf16" / "int8" / anything else (the option checks it): "f32".
DType parse_storage(const std::string& name);
// The name --storage gives a weight type: "f32", "f16", "bf16" or "int8".
std::string storage_name(DType storage);

}  // namespace nmt::app
