#include "decode/precision.h"

#include "core/error.h"
#include "core/int8_gemm.h"

namespace nmt {

Precision parse_precision(const std::string& name) {
    if (name == "fp32") return Precision::FP32;
    if (name == "int8") return Precision::Int8;
    if (name == "auto") return default_precision();
    throw Error("unknown precision '" + name + "' (fp32, int8 or auto)");
}

Precision default_precision() { return int8_has_vnni() ? Precision::Int8 : Precision::FP32; }

std::string to_string(Precision precision) { return precision == Precision::Int8 ? "int8" : "fp32"; }

void set_decoding_precision(Model& model, Precision precision) {
    model.int8.clear();
    if (precision == Precision::FP32) return;
    const ModelConfig& c = model.config;
    auto quantize = [&](const std::string& name) {
        if (model.has(name)) model.int8.emplace(name, quantize_columns(model.param(name), false));
    };
    // The encoder's cells and the products over its states too: then decoding
    // never calls oneDNN's fp32 gemm, whose kernels take 36–41 ms to compile
    // at a process's first product (int8's: 6–10 ms).
    std::vector<std::string> cells = {"encoder.0.forward", "encoder.0.backward"};
    for (int l = 1; l < c.encoder_depth; ++l) cells.push_back("encoder." + std::to_string(l));
    cells.insert(cells.end(), {"decoder.rnn", "decoder.rnn2"});
    for (const std::string& cell : cells) {
        quantize(cell + ".W");
        quantize(cell + ".U");
    }
    quantize("decoder.init.W");
    if (c.attention == AttentionType::Additive) {
        quantize("attention.Wk");
        quantize("attention.Wq");
    }
    quantize("decoder.output.W");
    quantize("decoder.lexical.W");
    if (c.tied_embeddings)  // the output projection is x·Eᵀ: quantised per vocabulary entry
        model.int8.emplace("target.embeddings", quantize_columns(model.param("target.embeddings"), true));
    else
        quantize("decoder.vocab.W");
}

}  // namespace nmt
