#include "architecture_options.h"

#include "core/error.h"

namespace nmt::app {

void ArchitectureOptions::add_to(CLI::App& c) {
    auto* g = c.add_option_group("Architecture");
    g->add_option("--enc-cell", encoder_cell, "Encoder RNN cell")->check(CLI::IsMember({"gru", "lstm"}))->capture_default_str();
    g->add_option("--enc-depth", config.encoder_depth, "Encoder layers (the first is bidirectional)")->capture_default_str();
    g->add_option("--dec-cell", decoder_cell, "Decoder RNN cell")->check(CLI::IsMember({"gru", "lstm"}))->capture_default_str();
    g->add_option("--dec-style", decoder_style,
                  "bahdanau: attend from the previous state, context fed into the RNN; "
                  "luong: RNN first, then attend from the new state; "
                  "conditional: Nematus' cGRU, an RNN on the previous word, attention from its state, "
                  "a second RNN on the context")
        ->check(CLI::IsMember({"bahdanau", "luong", "conditional"}))
        ->capture_default_str();
    g->add_option("--attention", attention, "Attention score")
        ->check(CLI::IsMember({"additive", "dot", "general", "scaled-dot"}))
        ->capture_default_str();
    g->add_flag("!--no-input-feeding", config.input_feeding, "Luong style: do not feed the attentional state back");
    g->add_flag("--tied-embeddings", config.tied_embeddings, "Output projection shares the target embeddings");
    g->add_flag("--tied-embeddings-src", config.tied_source_embeddings,
                "Source embeddings share the target embeddings (needs one joint vocabulary, --vocab)");
    g->add_flag_callback(
        "--tied-embeddings-all", [this] { config.tied_embeddings = config.tied_source_embeddings = true; },
        "Both of the above: one table for source, target and output");
    g->add_flag("--layer-normalization,--layer-norm", config.layer_norm,
                "Layer-normalise every RNN cell's input and recurrent products, per gate");
    g->add_flag("--lexical-model", config.lexical_model,
                "Add the attention-weighted source embeddings to the deep output through a learnt matrix (after "
                "Nguyen & Chiang 2018; bahdanau and conditional decoders)");
    g->add_option("--dim-emb", config.dim_emb, "Embedding size (and deep output size)")->capture_default_str();
    g->add_option("--dim-rnn", config.dim_rnn, "Encoder state size per direction")->capture_default_str();
    g->add_option("--dim-dec", config.dim_dec, "Decoder state size")->capture_default_str();
    g->add_option("--dim-attention", config.dim_attention, "Additive attention hidden size")->capture_default_str();
    g->add_option("--max-source-pieces", config.max_source_pieces, "Longer inputs are cropped, with a warning")
        ->capture_default_str();
    g->add_option("--source-lang", config.source_language, "Source language code, e.g. en");
    g->add_option("--target-lang", config.target_language, "Target language code, e.g. fr");
}

ModelConfig ArchitectureOptions::resolve() const {
    ModelConfig c = config;
    c.encoder_cell = parse_cell(encoder_cell);
    c.decoder_cell = parse_cell(decoder_cell);
    c.decoder_style = parse_decoder_style(decoder_style);
    c.attention = parse_attention(attention);
    return c;
}

void VocabularyOptions::add_to(CLI::App& c) {
    auto* joint_option = c.add_option("--vocab", joint, "Joint SentencePiece model for both languages")->check(CLI::ExistingFile);
    c.add_option("--source-vocab", source, "Source SentencePiece model")->check(CLI::ExistingFile)->excludes(joint_option);
    c.add_option("--target-vocab", target, "Target SentencePiece model")->check(CLI::ExistingFile)->excludes(joint_option);
}

std::pair<std::string, std::string> VocabularyOptions::paths() const {
    if (!joint.empty()) return {joint, joint};
    if (source.empty() || target.empty()) throw Error("give --vocab SPM, or both --source-vocab and --target-vocab");
    return {source, target};
}

DType parse_storage(const std::string& name) {
    return name == "f16" ? DType::F16 : name == "bf16" ? DType::BF16 : name == "int8" ? DType::I8 : DType::F32;
}

std::string storage_name(DType storage) {
    return storage == DType::F16 ? "f16" : storage == DType::BF16 ? "bf16" : storage == DType::I8 ? "int8" : "f32";
}

}  // namespace nmt::app
