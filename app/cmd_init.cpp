// nmt init: a randomly initialised model, for tests and benchmarks.
#include <iostream>

#include "architecture_options.h"
#include "commands.h"
#include "core/error.h"
#include "model/model.h"
#include "io/output_file.h"

namespace nmt::app {

namespace {

struct InitOptions {
    ArchitectureOptions architecture;
    VocabularyOptions vocab;
    uint64_t seed = 1;
    std::string output, storage = "f32";
    bool overwrite = false;
};

void run(const InitOptions& o) {
    std::vector<NamedFile> vocabularies;
    for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--vocab", o.vocab.joint},
                                       {"--source-vocab", o.vocab.source}, {"--target-vocab", o.vocab.target}})
        if (!path.empty()) vocabularies.push_back({option, path});
    refuse_shared_files({{"-o", o.output}}, vocabularies);
    if (!o.overwrite) refuse_existing_outputs({{"-o", o.output}});
    const auto [source_vocab, target_vocab] = o.vocab.paths();
    Model model = new_model(o.architecture.resolve(), source_vocab, target_vocab, o.seed);
    model.provenance = {{"created_by", std::string("nmt init ") + NMT_VERSION}, {"seed", o.seed}, {"trained", false}};
    save_model(o.output, model, parse_storage(o.storage));
    std::cerr << "wrote " << o.output << ": " << model.parameter_count() << " parameters (random weights)\n";
}

}  // namespace

void add_init_command(CLI::App& app) {
    auto options = std::make_shared<InitOptions>();
    auto* c = app.add_subcommand("init", "Write a model with random weights (for tests and benchmarks)");
    options->architecture.add_to(*c);
    options->vocab.add_to(*c);
    c->add_option("--seed", options->seed, "Random seed")->capture_default_str();
    c->add_option("--storage", options->storage, "Weight storage type in the file")
        ->check(CLI::IsMember({"f32", "f16", "bf16"}))
        ->capture_default_str();
    c->add_option("-o,--output", options->output, "Model file to write")->required();
    c->add_flag("--overwrite", options->overwrite, "Replace an existing -o file");
    c->callback([options] { run(*options); });
}

}  // namespace nmt::app
