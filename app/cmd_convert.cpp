// nmt convert: rewrite a model with another weight storage type (f16 halves
// a model file; loading converts back to f32, so translations barely change;
// int8 stores the matrices of int8 decoding as it uses them: about half of
// f16 again, and the same int8 translations as quantising at load),
// optionally recording the length penalty tuned for it. Without --storage the
// weights keep their type and their bytes (f16 and bf16 convert to f32 and
// back exactly), so rewriting an older model only adds what this nmt writes:
// the data checksum.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>

#include "architecture_options.h"
#include "commands.h"
#include "core/error.h"
#include "model/model.h"
#include "model/safetensors.h"
#include "io/output_file.h"

namespace nmt::app {

namespace {

// The one type the weights of the model file PATH are stored in: I8 for a
// file of int8 storage (whose other weights are F16).
DType stored_weight_type(const std::string& path, const ModelConfig& config) {
    const SafetensorsFile file = read_safetensors(path);
    std::vector<DType> types;
    for (const auto& [name, shape] : parameter_shapes(config)) types.push_back(file.tensors.at(name).dtype);
    if (std::count(types.begin(), types.end(), DType::I8)) return DType::I8;
    const bool one_type = std::all_of(types.begin(), types.end(), [&](DType type) { return type == types.front(); });
    if (!one_type)
        throw Error(path + ": its weights are stored in several types; choose one with --storage f32, f16, bf16 or int8");
    return types.front();
}

}  // namespace

void add_convert_command(CLI::App& app) {
    struct Options {
        std::string input, output, storage = "keep", tuned_on;
        std::optional<double> length_penalty;
        bool overwrite = false;
    };
    auto o = std::make_shared<Options>();
    auto* c = app.add_subcommand("convert", "Rewrite a model file with f32, f16, bf16 or int8 weights");
    c->add_option("model", o->input, "Model file to read")->required();
    c->add_option("-o,--output", o->output, "Model file to write")->required();
    c->add_flag("--overwrite", o->overwrite, "Replace an existing -o file");
    c->add_option("--storage", o->storage,
                  "Weight storage type (keep: as the input stores them, bytes unchanged; int8: the matrices of int8 "
                  "products as int8 with a scale per column, the rest f16)")
        ->check(CLI::IsMember({"keep", "f32", "f16", "bf16", "int8"}))
        ->capture_default_str();
    c->add_option("--length-penalty", o->length_penalty,
                  "Record this length penalty as the model's default for nmt translate");
    c->add_option("--tuned-on", o->tuned_on, "Where that length penalty was tuned (recorded with it)");
    c->callback([o] {
        refuse_shared_files({{"-o", o->output}}, {{"the input", o->input}});
        if (!o->overwrite) refuse_existing_outputs({{"-o", o->output}});
        Model model = load_model(o->input);
        const DType stored = stored_weight_type(o->input, model.config);
        const DType storage = o->storage == "keep" ? stored : parse_storage(o->storage);
        // Only a change of type is a conversion worth recording: a rewrite
        // that keeps the weights' bytes leaves the provenance as it was.
        if (storage != stored) model.provenance["converted"] = {{"from", o->input}, {"storage", storage_name(storage)}};
        if (o->length_penalty) {
            if (!std::isfinite(*o->length_penalty))
                throw Error("--length-penalty must be a finite number");
            model.decoding["length_penalty"] = *o->length_penalty;
            if (!o->tuned_on.empty()) model.decoding["tuned_on"] = o->tuned_on;
        }
        save_model(o->output, model, storage);
        std::cerr << "wrote " << o->output << " (" << storage_name(storage) << " weights)\n";
    });
}

}  // namespace nmt::app
