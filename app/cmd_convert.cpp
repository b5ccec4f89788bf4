// nmt convert: rewrite a model with another weight storage type (f16 halves
// a model file; loading converts back to f32, so translations barely change).
#include <iostream>

#include "architecture_options.h"
#include "commands.h"
#include "model.h"

namespace nmt::app {

void add_convert_command(CLI::App& app) {
    struct Options {
        std::string input, output, storage = "f16";
    };
    auto o = std::make_shared<Options>();
    auto* c = app.add_subcommand("convert", "Rewrite a model file with f32, f16 or bf16 weights");
    c->add_option("model", o->input, "Model file to read")->required();
    c->add_option("-o,--output", o->output, "Model file to write")->required();
    c->add_option("--storage", o->storage, "Weight storage type")
        ->check(CLI::IsMember({"f32", "f16", "bf16"}))
        ->capture_default_str();
    c->callback([o] {
        Model model = load_model(o->input);
        const DType storage = parse_storage(o->storage);
        model.provenance["converted"] = {{"from", o->input}, {"storage", o->storage}};
        save_model(o->output, model, storage);
        std::cerr << "wrote " << o->output << " (" << o->storage << " weights)\n";
    });
}

}  // namespace nmt::app
