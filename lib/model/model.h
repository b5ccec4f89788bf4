// A model: its configuration, its named parameters and its vocabularies.
// Parameter names and shapes are derived from the configuration alone
// (parameter_shapes), so loading can check a file completely and say
// exactly what does not fit.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/int8_gemm.h"
#include "model/model_config.h"
#include "model/safetensors.h"
#include "model/shortlist.h"
#include "core/tensor.h"
#include "model/vocabulary.h"

namespace nmt {

std::map<std::string, Shape> parameter_shapes(const ModelConfig& config);

// An embedding table, read a row at a time: its f32 values, or for a model
// loaded for int8 decoding its stored values, each row converted as it is
// looked up (a sentence reads a few hundred rows of the 16,000).
struct EmbeddingTable {
    const Tensor* values = nullptr;        // f32, or
    const StoredTensor* stored = nullptr;  // as stored in the file
    int64_t dim = 0;
    void row(int64_t id, float* out) const;
};

struct Model {
    ModelConfig config;
    std::map<std::string, Tensor> parameters;  // std::map: references stay valid
    Vocabulary source_vocab;
    Vocabulary target_vocab;
    nlohmann::json provenance = nlohmann::json::object();  // how it was made: command, data checksums, seed
    // Search settings the model was tuned for, which nmt translate uses unless
    // told otherwise: {"length_penalty": alpha, "tuned_on": ...} (optional).
    nlohmann::json decoding = nlohmann::json::object();
    // The decoder's weight matrices quantised for int8 decoding, by parameter
    // name (decode/precision.h); empty: every product runs in f32.
    std::map<std::string, QuantizedMatrix> int8 = {};
    // The lexical shortlist decoding restricts the output to, if the file has one.
    Shortlist shortlist = {};
    // Embedding tables a model loaded for int8 decoding keeps as stored, by
    // parameter name (their parameters have a shape and no values).
    std::map<std::string, StoredTensor> stored_tables = {};

    const Tensor& param(const std::string& name) const;
    Tensor& param(const std::string& name);
    bool has(const std::string& name) const { return parameters.count(name) > 0; }
    // The int8 form of parameter `name`, or null when it runs in f32.
    const QuantizedMatrix* quantized(const std::string& name) const;
    EmbeddingTable embedding_table(const std::string& name) const;
    int64_t parameter_count() const;
};

// Glorot-uniform matrices, small uniform embeddings, zero biases; reproducible for a seed.
Model init_model(const ModelConfig& config, uint64_t seed, Vocabulary source_vocab, Vocabulary target_vocab);
// The same for an architecture whose vocabulary sizes come from the
// SentencePiece models at these paths (what `nmt init` writes and a new
// training run starts from).
Model new_model(ModelConfig architecture, const std::string& source_vocab_path, const std::string& target_vocab_path,
                uint64_t seed);

// The weight matrices int8 decoding multiplies (decode/precision.h), by name.
struct Int8Matrix {
    bool transposed = false;  // stored [N, K], out = x·Wᵀ: the tied output embeddings, by vocabulary entry
    bool looked_up = false;   // an embedding table, also read a row at a time, not only multiplied
};

std::map<std::string, Int8Matrix> int8_matrices(const ModelConfig& config);

// The int8_matrices a model file may store as int8 (`nmt convert --storage
// int8`): every one but the embedding table the output layer shares, whose
// rows are also looked up as embeddings and stay f16 (the output layer
// quantises it as it loads, as it does from an f16 file).
std::set<std::string> int8_stored_matrices(const ModelConfig& config);

// Weights stored as F32, F16 or BF16; loading converts to f32. I8 stores the
// int8_stored_matrices as int8 with a scale per output column (NAME.scales),
// quantised as int8 decoding quantises them, and the rest as F16: loading
// for int8 decoding takes those values as they are (mapped, not copied), and
// otherwise converts them to f32 (values times scales). A joint
// vocabulary (the same SentencePiece model on both sides) is stored once.
// Written as write_output_file writes (atomically, for a regular file).
void save_model(const std::string& path, const Model& model, DType storage = DType::F32);
// With `int8`, for int8 decoding alone: fills model.int8 with the
// int8_matrices, quantised straight from the stored values, and makes no f32
// values for them (their parameters keep their shapes, with no values; the
// embedding tables stay as stored, in stored_tables): what
// set_decoding_precision(model, Int8) does to a model loaded without, at a
// fraction of the memory traffic and time; and compiles oneDNN's int8
// kernels (compile_int8_kernels), so that the first product does not wait.
Model load_model(const std::string& path, bool int8 = false);

// What a model file and a training checkpoint share, for both readers: the
// embedded vocabularies ("vocab.source", "vocab.target": sizes as the
// configuration says, the same bytes when source embeddings are tied;
// load_model supplies vocab.source for a model file that stores a joint
// vocabulary once) and every parameter of `config` (present, of its shape, a float
// type, finite), taken out of `file` as they are converted. Throws
// nmt::Error naming `path` and the problem.
// `int8`: the matrices to put into model.int8, as load_model says (not
// empty: the int8 kernels compiled too).
Model take_model(const std::string& path, const ModelConfig& config, nlohmann::json provenance,
                 nlohmann::json decoding, SafetensorsFile& file, const std::map<std::string, Int8Matrix>& int8 = {});

}  // namespace nmt
