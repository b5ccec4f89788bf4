// nmt info: what a model file holds.
#include <iostream>

#include "commands.h"
#include "model/model.h"

namespace nmt::app {

void add_info_command(CLI::App& app) {
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto* c = app.add_subcommand("info", "Print a model's configuration, size, vocabularies and provenance");
    c->add_option("model", *path, "Model file")->required();
    c->add_flag("--json", *json, "Print one JSON object instead of text");
    c->callback([path, json] {
        const Model model = load_model(*path);
        nlohmann::json out = {{"model", *path},
                              {"config", to_json(model.config)},
                              {"parameters", model.parameter_count()},
                              {"source_vocab_size", model.source_vocab.size()},
                              {"target_vocab_size", model.target_vocab.size()},
                              {"decoding", model.decoding},
                              {"provenance", model.provenance}};
        if (!model.shortlist.empty())
            out["shortlist"] = {{"per_source", model.shortlist.per_source},
                                {"frequent", model.shortlist.frequent.size()}};
        if (*json) {
            std::cout << out.dump(2) << "\n";
            return;
        }
        const auto& cfg = model.config;
        std::cout << "model:       " << *path << "\n"
                  << "languages:   " << (cfg.source_language.empty() ? "?" : cfg.source_language) << " -> "
                  << (cfg.target_language.empty() ? "?" : cfg.target_language) << "\n"
                  << "parameters:  " << model.parameter_count() << "\n"
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
                  << "provenance:  " << model.provenance.dump() << "\n";
    });
}

}  // namespace nmt::app
