// nmt shortlist: build a model's lexical shortlist from parallel text and
// write the model with it (model/shortlist.h); nmt translate then uses it
// unless told --no-shortlist.
#include <cstdio>
#include <iostream>

#include "align/shortlist_builder.h"
#include "architecture_options.h"
#include "commands.h"
#include "core/error.h"
#include "io/input_file.h"
#include "io/output_file.h"
#include "model/model.h"

namespace nmt::app {

namespace {

struct ShortlistCommand {
    std::string model, source, target, output, storage = "f16";
    bool overwrite = false;
    size_t lines = 0;
    ShortlistOptions shortlist;
};

void run(const ShortlistCommand& o) {
    refuse_shared_files({{"-o", o.output}}, {{"-m", o.model}, {"-s", o.source}, {"-t", o.target}});
    if (!o.overwrite) refuse_existing_outputs({{"-o", o.output}});
    Model model = load_model(o.model);
    const auto sources = read_clean_lines(o.source, o.lines), targets = read_clean_lines(o.target, o.lines);
    if (sources.size() != targets.size())
        throw Error(o.source + " has " + std::to_string(sources.size()) + " lines, " + o.target + " has " +
                    std::to_string(targets.size()));
    model.shortlist = build_shortlist(sources, targets, model.source_vocab, model.target_vocab, o.shortlist,
                                      [](const AlignerProgress& p) {
                                          std::fprintf(stderr, "shortlist: EM iteration %d of %d (%lld pairs)\n",
                                                       p.iteration, p.iterations, static_cast<long long>(p.pairs));
                                      });
    model.provenance["shortlist"] = {{"source", o.source},
                                     {"target", o.target},
                                     {"lines", sources.size()},
                                     {"per_source", o.shortlist.per_source},
                                     {"frequent", o.shortlist.frequent}};
    save_model(o.output, model, parse_storage(o.storage));
    std::cerr << "wrote " << o.output << ": " << o.shortlist.per_source << " candidates per source piece, "
              << model.shortlist.frequent.size() << " frequent target pieces\n";
}

}  // namespace

void add_shortlist_command(CLI::App& app) {
    auto o = std::make_shared<ShortlistCommand>();
    auto* c = app.add_subcommand("shortlist",
                                 "Build a lexical shortlist from parallel text and write the model with it, so that "
                                 "decoding scores only likely target pieces");
    c->add_option("-m,--model", o->model, "Model file to read")->required();
    c->add_option("-s,--source", o->source, "Source side of the training text, one sentence per line")->required();
    c->add_option("-t,--target", o->target, "Target side, line by line with the source")->required();
    c->add_option("-o,--output", o->output, "Model file to write, with the shortlist")->required();
    c->add_flag("--overwrite", o->overwrite, "Replace an existing -o file");
    c->add_option("-k,--per-source", o->shortlist.per_source, "Candidates kept per source piece")
        ->check(CLI::Range(1, 10000))
        ->capture_default_str();
    c->add_option("--frequent", o->shortlist.frequent, "Most frequent target pieces always kept")
        ->check(CLI::Range(0, 1000000))
        ->capture_default_str();
    c->add_option("--lines", o->lines, "Use only the first N line pairs (0 = all)")->capture_default_str();
    c->add_option("--iterations", o->shortlist.aligner.iterations, "EM iterations of the aligner")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    c->add_option("--storage", o->storage, "Weight storage type of the written model")
        ->check(CLI::IsMember({"f32", "f16", "bf16", "int8"}))
        ->capture_default_str();
    c->callback([o] { run(*o); });
}

}  // namespace nmt::app
