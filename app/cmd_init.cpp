// nmt init: a randomly initialised model, for tests and benchmarks.
#include <iostream>

#include "architecture_options.h"
#include "commands.h"
#include "error.h"
#include "model.h"

namespace nmt::app {

namespace {

struct InitOptions {
    ArchitectureOptions architecture;
    VocabularyOptions vocab;
    uint64_t seed = 1;
    std::string output, storage = "f32";
};

DType parse_storage(const std::string& s) { return s == "f16" ? DType::F16 : s == "bf16" ? DType::BF16 : DType::F32; }

void run(const InitOptions& o) {
    const auto [source_path, target_path] = o.vocab.paths();
    Vocabulary source(Vocabulary::read_file(source_path), source_path);
    Vocabulary target(Vocabulary::read_file(target_path), target_path);
    ModelConfig config = o.architecture.resolve();
    config.source_vocab_size = source.size();
    config.target_vocab_size = target.size();
    Model model = init_model(config, o.seed, std::move(source), std::move(target));
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
    c->callback([options] { run(*options); });
}

}  // namespace nmt::app
