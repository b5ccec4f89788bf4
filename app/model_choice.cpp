#include "model_choice.h"

#include <tuple>

#include "core/error.h"
#include "model/model_catalog.h"

namespace nmt::app {

std::string ModelChoice::path() const { return resolve_model(model, from, to, domain); }

void ModelChoice::check_languages(const ModelConfig& config, const std::string& path) const {
    for (const auto& [option, asked, recorded] : {std::tuple{"--from", from, config.source_language},
                                                  std::tuple{"--to", to, config.target_language}})
        if (!asked.empty() && !recorded.empty() && asked != recorded)
            throw Error(path + " translates " + config.source_language + "->" + config.target_language + ", not " +
                        option + " " + asked + ": drop -m to pick the installed model, or give the right languages");
}

void add_model_choice(CLI::App* command, ModelChoice& choice, const std::string& model_help) {
    command->add_option("-m,--model", choice.model, model_help);
    command->add_option("--from", choice.from, "Source language code, to pick an installed model; translate: auto detects it per line (per document) "
                        "among the installed models' languages");
    command->add_option("--to", choice.to, "Target language code, to pick an installed model (default: the one language the installed "
                        "models translate --from into; with --from auto, en)");
}

}  // namespace nmt::app
