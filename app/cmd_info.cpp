// nmt info: what a model file holds.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

#include "architecture_options.h"
#include "commands.h"
#include "model/model.h"
#include "model/safetensors.h"

namespace nmt::app {

namespace {

// What --verify found: loading verifies a stored checksum anyway (and
// refuses a mismatch), so this says whether there was one, over how much,
// and what checking it cost.
struct ChecksumReport {
    bool stored = false;
    uint64_t data_bytes = 0;
    double milliseconds = 0;

    std::string text() const {
        if (!stored) return "no checksum stored (an older file; `nmt convert MODEL -o OUT` writes a copy with one)";
        char cost[32];
        std::snprintf(cost, sizeof cost, "%.1f ms", milliseconds);
        return "verified: the " + std::to_string(data_bytes) + " bytes of tensor data match their XXH3-64 (" +
               cost + ")";
    }
    nlohmann::json json() const {
        nlohmann::json out = {{"stored", stored}};
        if (stored) out.update({{"verified", true}, {"data_bytes", data_bytes}, {"milliseconds", milliseconds}});
        return out;
    }
};

ChecksumReport verify_checksum(const std::string& path) {
    const auto start = std::chrono::steady_clock::now();
    const SafetensorsFile file = read_safetensors(path);  // throws on a mismatch
    ChecksumReport report;
    report.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    report.stored = file.has_checksum;
    for (const auto& [name, tensor] : file.tensors) report.data_bytes += tensor.byte_size();
    return report;
}

// How many weight values the file stores in each type ("f16", "int8", ...).
std::map<std::string, int64_t> weight_storage(const std::string& path, const ModelConfig& config) {
    const SafetensorsFile file = read_safetensors(path);
    std::map<std::string, int64_t> values;
    for (const auto& [name, shape] : parameter_shapes(config)) {
        values[storage_name(file.tensors.at(name).dtype)] += shape_size(shape);
    }
    return values;
}

std::string storage_text(const std::map<std::string, int64_t>& values) {
    std::string text;
    for (const auto& [type, count] : values)
        text += (text.empty() ? "" : ", ") + type + " " + std::to_string(count) +
                (type == "int8" ? " (a scale per output column)" : "");
    return text;
}

}  // namespace

void add_info_command(CLI::App& app) {
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto verify = std::make_shared<bool>(false);
    auto* c = app.add_subcommand("info", "Print a model's configuration, size, vocabularies and provenance");
    c->add_option("model", *path, "Model file")->required();
    c->add_flag("--json", *json, "Print one JSON object instead of text");
    c->add_flag("--verify", *verify,
                "Check the tensor data against the checksum the file stores, and say how it went "
                "(every load checks it; this reports it)");
    c->callback([path, json, verify] {
        std::optional<ChecksumReport> checksum;
        if (*verify) checksum = verify_checksum(*path);
        const Model model = load_model(*path);
        const std::map<std::string, int64_t> storage = weight_storage(*path, model.config);
        nlohmann::json out = {{"model", *path},
                              {"config", to_json(model.config)},
                              {"parameters", model.parameter_count()},
                              {"weights", storage},
                              {"source_vocab_size", model.source_vocab.size()},
                              {"target_vocab_size", model.target_vocab.size()},
                              {"decoding", model.decoding},
                              {"provenance", model.provenance}};
        if (!model.shortlist.empty())
            out["shortlist"] = {{"per_source", model.shortlist.per_source},
                                {"frequent", model.shortlist.frequent.size()}};
        if (checksum) out["checksum"] = checksum->json();
        if (*json) {
            std::cout << out.dump(2) << "\n";
            return;
        }
        const auto& cfg = model.config;
        std::cout << "model:       " << *path << "\n"
                  << "languages:   " << (cfg.source_language.empty() ? "?" : cfg.source_language) << " -> "
                  << (cfg.target_language.empty() ? "?" : cfg.target_language) << "\n"
                  << "parameters:  " << model.parameter_count() << "\n"
                  << "weights:     " << storage_text(storage) << "\n"
                  << "vocabulary:  " << model.source_vocab.size() << " source pieces, " << model.target_vocab.size()
                  << " target pieces\n"
                  << "encoder:     " << cfg.encoder_depth << " x " << to_string(cfg.encoder_cell) << " "
                  << cfg.dim_rnn << " (first layer bidirectional), embeddings " << cfg.dim_emb
                  << (cfg.tied_source_embeddings ? " (the target's table)" : "") << "\n"
                  << "decoder:     " << to_string(cfg.decoder_cell) << " " << cfg.dim_dec << ", "
                  << to_string(cfg.decoder_style) << " style, " << to_string(cfg.attention) << " attention"
                  << (cfg.decoder_style == DecoderStyle::Luong ? (cfg.input_feeding ? ", input feeding" : ", no input feeding") : "")
                  << (cfg.tied_embeddings ? ", tied embeddings" : "") << "\n"
                  << (cfg.layer_norm ? "cells:       layer-normalised (input and recurrent products, per gate)\n" : "")
                  << (cfg.lexical_model ? "output:      lexical model (attention-weighted source embeddings)\n" : "")
                  << (model.shortlist.empty() ? std::string()
                                              : "shortlist:   " + std::to_string(model.shortlist.per_source) +
                                                    " candidates per source piece, " +
                                                    std::to_string(model.shortlist.frequent.size()) +
                                                    " frequent target pieces\n")
                  << "decoding:    " << (model.decoding.empty() ? "(defaults)" : model.decoding.dump()) << "\n"
                  << "provenance:  " << model.provenance.dump() << "\n"
                  << (checksum ? "checksum:    " + checksum->text() + "\n" : std::string());
    });
}

}  // namespace nmt::app
