// How nmt translate and nmt align are told which model to use: -m FILE, or
// --from/--to (and for translate --domain) naming an installed one
// (resolve_model, model/model_catalog.h).
#pragma once
#include <string>

#include <CLI/CLI.hpp>

#include "model/model_config.h"

namespace nmt::app {

struct ModelChoice {
    std::string model, from, to, domain;
    std::string path() const;  // the file these name
    // Throws nmt::Error when -m named a model of other languages than
    // --from/--to (checked once it is loaded, from the languages it records).
    void check_languages(const ModelConfig& config, const std::string& path) const;
};

// -m/--model (described by `model_help`), --from and --to.
void add_model_choice(CLI::App* command, ModelChoice& choice, const std::string& model_help);

}  // namespace nmt::app
