#include "model_choice.h"

#include "model/model_catalog.h"

namespace nmt::app {

std::string ModelChoice::path() const { return resolve_model(model, from, to, domain); }

void add_model_choice(CLI::App* command, ModelChoice& choice, const std::string& model_help) {
    command->add_option("-m,--model", choice.model, model_help);
    command->add_option("--from", choice.from, "Source language code, to pick an installed model");
    command->add_option("--to", choice.to, "Target language code, to pick an installed model");
}

}  // namespace nmt::app
