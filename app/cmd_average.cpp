// nmt average: the element-wise mean of several snapshots of one run (model
// files, or training checkpoints, whose parameter average is taken when the
// run kept one), written as one model file.
#include <iostream>

#include "architecture_options.h"
#include "commands.h"
#include "train/model_averaging.h"
#include "io/output_file.h"

namespace nmt::app {

void add_average_command(CLI::App& app) {
    struct Options {
        std::vector<std::string> inputs;
        std::string output, storage = "f32";
        bool overwrite = false;
    };
    auto o = std::make_shared<Options>();
    auto* c = app.add_subcommand("average", "Average the weights of snapshots of one run into one model file");
    c->add_option("models", o->inputs, "Model files or training checkpoints of one model")->required();
    c->add_option("-o,--output", o->output, "Model file to write")->required();
    c->add_flag("--overwrite", o->overwrite, "Replace an existing -o file");
    c->add_option("--storage", o->storage, "Weight storage type")
        ->check(CLI::IsMember({"f32", "f16", "bf16"}))
        ->capture_default_str();
    c->callback([o] {
        std::vector<NamedFile> inputs;
        for (const std::string& input : o->inputs) inputs.push_back({"the input", input});
        refuse_shared_files({{"-o", o->output}}, inputs);
        if (!o->overwrite) refuse_existing_outputs({{"-o", o->output}});
        Model model = average_model_files(o->inputs);
        model.provenance["created_by"] = std::string("nmt average ") + NMT_VERSION;
        save_model(o->output, model, parse_storage(o->storage));
        const size_t n = o->inputs.size();
        std::cerr << "wrote " << o->output << ": "
                  << (n == 1 ? std::string("one snapshot") : "the mean of " + std::to_string(n) + " snapshots") << " ("
                  << o->storage << " weights)\n";
    });
}

}  // namespace nmt::app
