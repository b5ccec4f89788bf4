// nmt convert: rewrite a model with another weight storage type (f16 halves
// a model file; loading converts back to f32, so translations barely change),
// optionally recording the length penalty tuned for it.
#include <cmath>
#include <iostream>
#include <optional>

#include "architecture_options.h"
#include "commands.h"
#include "core/error.h"
#include "model/model.h"
#include "io/output_file.h"

namespace nmt::app {

void add_convert_command(CLI::App& app) {
    struct Options {
        std::string input, output, storage = "f16", tuned_on;
        std::optional<double> length_penalty;
        bool overwrite = false;
    };
    auto o = std::make_shared<Options>();
    auto* c = app.add_subcommand("convert", "Rewrite a model file with f32, f16 or bf16 weights");
    c->add_option("model", o->input, "Model file to read")->required();
    c->add_option("-o,--output", o->output, "Model file to write")->required();
    c->add_flag("--overwrite", o->overwrite, "Replace an existing -o file");
    c->add_option("--storage", o->storage, "Weight storage type")
        ->check(CLI::IsMember({"f32", "f16", "bf16"}))
        ->capture_default_str();
    c->add_option("--length-penalty", o->length_penalty,
                  "Record this length penalty as the model's default for nmt translate");
    c->add_option("--tuned-on", o->tuned_on, "Where that length penalty was tuned (recorded with it)");
    c->callback([o] {
        refuse_shared_files({{"-o", o->output}}, {{"the input", o->input}});
        if (!o->overwrite) refuse_existing_outputs({{"-o", o->output}});
        Model model = load_model(o->input);
        const DType storage = parse_storage(o->storage);
        model.provenance["converted"] = {{"from", o->input}, {"storage", o->storage}};
        if (o->length_penalty) {
            if (!std::isfinite(*o->length_penalty))
                throw Error("--length-penalty must be a finite number");
            model.decoding["length_penalty"] = *o->length_penalty;
            if (!o->tuned_on.empty()) model.decoding["tuned_on"] = o->tuned_on;
        }
        save_model(o->output, model, storage);
        std::cerr << "wrote " << o->output << " (" << o->storage << " weights)\n";
    });
}

}  // namespace nmt::app
