#include "model/model.h"

#include <cmath>
#include <cstring>
#include <future>
#include <optional>
#include <set>
#include <utility>

#include "core/error.h"
#include "core/random.h"

namespace nmt {

namespace {

constexpr const char* kFormat = "nmt-model";
// Version 2 stores a joint vocabulary once (vocab.target alone: half a
// megabyte less for a 16,000-piece model); version 1 files, which store it
// twice, still load.
constexpr int kFormatVersion = 2;
constexpr int kOldestFormatVersion = 1;
// An int8-stored matrix NAME (I8) has its per-column scales in NAME.scales (F32).
constexpr const char* kScalesSuffix = ".scales";

void add_cell(std::map<std::string, Shape>& shapes, const std::string& prefix, int64_t input, int64_t hidden,
              int gates, bool layer_norm) {
    shapes[prefix + ".W"] = {input, gates * hidden};
    shapes[prefix + ".U"] = {hidden, gates * hidden};
    shapes[prefix + ".b"] = {gates * hidden};
    if (layer_norm) {  // the gains of the normalised input and recurrent products
        shapes[prefix + ".ln_x"] = {gates * hidden};
        shapes[prefix + ".ln_h"] = {gates * hidden};
    }
}

bool is_layer_norm_gain(const std::string& name) {
    auto ends_with = [&](const std::string& suffix) {
        return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends_with(".ln_x") || ends_with(".ln_h");
}

// One embedding table serves both sides only if both sides cut text into the
// same pieces. `where` prefixes the message (the file, when loading).
void require_joint_vocabulary(const ModelConfig& c, const Vocabulary& source, const Vocabulary& target,
                              const std::string& where = "") {
    if (c.tied_source_embeddings && source.serialized() != target.serialized())
        throw Error(where + "tied source embeddings need one joint vocabulary; the source and target SentencePiece "
                            "models differ");
}

}  // namespace

std::map<std::string, Shape> parameter_shapes(const ModelConfig& c) {
    std::map<std::string, Shape> s;
    const int64_t E = c.dim_emb, H = c.dim_rnn, C = c.dim_context(), D = c.dim_dec, A = c.dim_attention;
    if (!c.tied_source_embeddings) s["source.embeddings"] = {c.source_vocab_size, E};
    s["target.embeddings"] = {c.target_vocab_size, E};
    const int eg = c.gates(c.encoder_cell);
    const bool ln = c.layer_norm;
    add_cell(s, "encoder.0.forward", E, H, eg, ln);
    add_cell(s, "encoder.0.backward", E, H, eg, ln);
    for (int l = 1; l < c.encoder_depth; ++l) add_cell(s, "encoder." + std::to_string(l), C, C, eg, ln);
    s["decoder.init.W"] = {C, D};
    s["decoder.init.b"] = {D};
    switch (c.attention) {
        case AttentionType::Additive:
            s["attention.Wq"] = {D, A};
            s["attention.Wk"] = {C, A};
            s["attention.b"] = {A};
            s["attention.v"] = {A};
            break;
        case AttentionType::General: s["attention.Wa"] = {D, C}; break;
        case AttentionType::ScaledDot:
            if (D != C) s["attention.Wa"] = {D, C};
            break;
        case AttentionType::Dot: break;
    }
    // Bahdanau and conditional share the deep output [s_t; c_t; E y_{t−1}].
    const bool luong = c.decoder_style == DecoderStyle::Luong;
    const bool conditional = c.decoder_style == DecoderStyle::Conditional;
    const int64_t rnn_input = conditional ? E : luong ? E + (c.input_feeding ? E : 0) : E + C;
    add_cell(s, "decoder.rnn", rnn_input, D, c.gates(c.decoder_cell), ln);
    if (conditional) add_cell(s, "decoder.rnn2", C, D, c.gates(c.decoder_cell), ln);
    s["decoder.output.W"] = {luong ? C + D : D + C + E, E};
    s["decoder.output.b"] = {E};
    if (c.lexical_model) s["decoder.lexical.W"] = {E, E};
    if (!c.tied_embeddings) s["decoder.vocab.W"] = {E, c.target_vocab_size};
    s["decoder.vocab.b"] = {c.target_vocab_size};
    return s;
}

std::map<std::string, Int8Matrix> int8_matrices(const ModelConfig& c) {
    std::map<std::string, Int8Matrix> matrices;
    // The encoder's cells and the products over its states too: then decoding
    // never calls oneDNN's fp32 gemm, whose kernels take 36–41 ms to compile
    // at a process's first product (int8's: 6–10 ms).
    std::vector<std::string> cells = {"encoder.0.forward", "encoder.0.backward"};
    for (int l = 1; l < c.encoder_depth; ++l) cells.push_back("encoder." + std::to_string(l));
    cells.push_back("decoder.rnn");
    if (c.decoder_style == DecoderStyle::Conditional) cells.push_back("decoder.rnn2");
    for (const std::string& cell : cells) {
        matrices[cell + ".W"] = {};
        matrices[cell + ".U"] = {};
    }
    matrices["decoder.init.W"] = {};
    if (c.attention == AttentionType::Additive) {
        matrices["attention.Wk"] = {};
        matrices["attention.Wq"] = {};
    }
    matrices["decoder.output.W"] = {};
    if (c.lexical_model) matrices["decoder.lexical.W"] = {};
    if (c.tied_embeddings)  // the output projection is x·Eᵀ: quantised per vocabulary entry
        matrices["target.embeddings"] = {.transposed = true, .looked_up = true};
    else
        matrices["decoder.vocab.W"] = {};
    return matrices;
}

std::set<std::string> int8_stored_matrices(const ModelConfig& config) {
    std::set<std::string> names;
    for (const auto& [name, matrix] : int8_matrices(config))
        if (!matrix.looked_up && !matrix.transposed) names.insert(name);
    return names;
}

const QuantizedMatrix* Model::quantized(const std::string& name) const {
    const auto it = int8.find(name);
    return it == int8.end() ? nullptr : &it->second;
}

EmbeddingTable Model::embedding_table(const std::string& name) const {
    const Tensor& values = param(name);
    const auto stored = stored_tables.find(name);
    if (stored != stored_tables.end()) return {nullptr, &stored->second, values.cols()};
    return {&values, nullptr, values.cols()};
}

void EmbeddingTable::row(int64_t id, float* out) const {
    if (values)
        std::memcpy(out, values->row(id), dim * sizeof(float));
    else
        stored->to_float(id * dim, dim, out);
}

const Tensor& Model::param(const std::string& name) const {
    auto it = parameters.find(name);
    if (it == parameters.end()) throw Error("model has no parameter " + name);
    return it->second;
}

Tensor& Model::param(const std::string& name) {
    return const_cast<Tensor&>(static_cast<const Model&>(*this).param(name));
}

int64_t Model::parameter_count() const {
    int64_t n = 0;
    for (const auto& [name, t] : parameters) n += t.size();
    return n;
}

Model init_model(const ModelConfig& config, uint64_t seed, Vocabulary source_vocab, Vocabulary target_vocab) {
    config.validate();
    if (source_vocab.size() != config.source_vocab_size || target_vocab.size() != config.target_vocab_size)
        throw Error("vocabulary sizes do not match the configuration");
    require_joint_vocabulary(config, source_vocab, target_vocab);
    Model model{config, {}, std::move(source_vocab), std::move(target_vocab)};
    Random random(seed);
    for (const auto& [name, shape] : parameter_shapes(config)) {
        Tensor t(shape);
        if (is_layer_norm_gain(name)) {  // start as the plain normalisation
            t.fill(1.0f);
            model.parameters.emplace(name, std::move(t));
            continue;
        }
        const bool is_bias = shape.size() == 1 && name != "attention.v";
        const bool is_embedding = name.find("embeddings") != std::string::npos;
        if (!is_bias) {
            const float fan = shape.size() == 2 ? static_cast<float>(shape[0] + shape[1]) : 2.0f * shape[0];
            const float limit = is_embedding ? 0.1f : std::sqrt(6.0f / fan);
            for (auto& v : t.values) v = random.uniform(-limit, limit);
        }
        model.parameters.emplace(name, std::move(t));
    }
    return model;
}

Model new_model(ModelConfig architecture, const std::string& source_vocab_path, const std::string& target_vocab_path,
                uint64_t seed) {
    Vocabulary source(Vocabulary::read_file(source_vocab_path), source_vocab_path);
    Vocabulary target(Vocabulary::read_file(target_vocab_path), target_vocab_path);
    architecture.source_vocab_size = source.size();
    architecture.target_vocab_size = target.size();
    return init_model(architecture, seed, std::move(source), std::move(target));
}

void save_model(const std::string& path, const Model& model, DType storage) {
    SafetensorsFile file;
    file.metadata["format"] = kFormat;
    file.metadata["format_version"] = std::to_string(kFormatVersion);
    file.metadata["config"] = to_json(model.config).dump();
    file.metadata["provenance"] = model.provenance.dump();
    if (!model.decoding.empty()) file.metadata["decoding"] = model.decoding.dump();
    const std::set<std::string> as_int8 =
        storage == DType::I8 ? int8_stored_matrices(model.config) : std::set<std::string>{};
    for (const auto& [name, t] : model.parameters) {
        const QuantizedMatrix* loaded = model.quantized(name);
        const bool has_values = t.size() == shape_size(t.shape);
        if (!has_values && !(loaded && as_int8.count(name)))
            throw Error("cannot save " + path + ": weight " + name +
                        " was loaded for int8 decoding alone (load the model without int8 to convert it)");
        if (as_int8.count(name)) {
            // Quantised from f32 where the model has them: int8 weights loaded
            // as f32 (values times scales) give back their own values and
            // scales (tests/test_int8_storage.cpp).
            const QuantizedMatrix q = has_values ? quantize_columns(t, false) : *loaded;
            file.tensors[name] = StoredTensor::from_int8(q.data(), t.shape);
            Tensor scales({q.N});
            std::copy(q.scales.begin(), q.scales.end(), scales.values.begin());
            file.tensors[name + kScalesSuffix] = StoredTensor::from_float(scales);
            continue;
        }
        file.tensors[name] = StoredTensor::from_float(t, storage == DType::I8 ? DType::F16 : storage);
    }
    if (model.source_vocab.serialized() != model.target_vocab.serialized())
        file.tensors["vocab.source"] = StoredTensor::from_bytes(model.source_vocab.serialized());
    file.tensors["vocab.target"] = StoredTensor::from_bytes(model.target_vocab.serialized());
    if (!model.shortlist.empty()) {
        const Shortlist& s = model.shortlist;
        file.tensors["shortlist.by_source"] =
            StoredTensor::from_ints(s.by_source, {model.config.source_vocab_size, s.per_source});
        file.tensors["shortlist.frequent"] =
            StoredTensor::from_ints(s.frequent, {static_cast<int64_t>(s.frequent.size())});
    }
    write_safetensors(path, file);
}

namespace {

// The metadata of a model file, parsed and checked.
struct ModelHeader {
    int format_version = 0;  // 0: not (yet) one this nmt reads
    ModelConfig config;
    nlohmann::json provenance;
    nlohmann::json decoding = nlohmann::json::object();
};

ModelHeader parse_model_metadata(const std::string& path, const std::map<std::string, std::string>& metadata) {
    auto meta = [&](const std::string& key) -> const std::string& {
        auto it = metadata.find(key);
        if (it == metadata.end()) throw Error(path + ": not an nmt model (metadata lacks '" + key + "')");
        return it->second;
    };
    if (meta("format") != kFormat) throw Error(path + ": not an nmt model (format is '" + meta("format") + "')");
    ModelHeader header;
    for (int version = kOldestFormatVersion; version <= kFormatVersion; ++version)
        if (meta("format_version") == std::to_string(version)) header.format_version = version;
    if (header.format_version == 0)
        throw Error(path + ": model format version " + meta("format_version") + " is not supported (this nmt reads " +
                    std::to_string(kOldestFormatVersion) + " to " + std::to_string(kFormatVersion) + ")");
    // Looked up before the try below, whose errors get the path prepended:
    // meta() names the path itself.
    const std::string& config_text = meta("config");
    const std::string& provenance_text = meta("provenance");
    try {
        header.config = config_from_json(nlohmann::json::parse(config_text));
        header.provenance = nlohmann::json::parse(provenance_text);
        if (metadata.count("decoding")) header.decoding = nlohmann::json::parse(metadata.at("decoding"));
        if (!header.decoding.is_object() ||
            (header.decoding.contains("length_penalty") && !header.decoding.at("length_penalty").is_number()))
            throw Error("metadata 'decoding' must be an object whose length_penalty is a number");
    } catch (const nlohmann::json::exception& e) {
        throw Error(path + ": model metadata is not valid JSON (" + e.what() + ")");
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
    return header;
}

bool is_float(DType dtype) { return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16; }

bool is_shortlist(const std::string& name) { return name == "shortlist.by_source" || name == "shortlist.frequent"; }

// A shortlist is optional, but whole: both I32 tensors, by_source one row per source piece.
void check_shortlist_table(const std::string& path, const SafetensorsFile& table) {
    const auto by_source = table.tensors.find("shortlist.by_source");
    const auto frequent = table.tensors.find("shortlist.frequent");
    const bool has_rows = by_source != table.tensors.end(), has_frequent = frequent != table.tensors.end();
    if (!has_rows && !has_frequent) return;
    if (has_rows != has_frequent)
        throw Error(path + ": the shortlist needs both shortlist.by_source and shortlist.frequent");
    if (by_source->second.dtype != DType::I32 || by_source->second.shape.size() != 2 ||
        frequent->second.dtype != DType::I32 || frequent->second.shape.size() != 1)
        throw Error(path + ": the shortlist tensors must be I32, by_source 2-D and frequent 1-D");
}

// Every tensor the configuration needs, by name, shape and kind, and nothing
// else: checked on the table before any byte is read, so that damage is named
// by the tensor it hits. A weight matrix int8 decoding multiplies may be I8,
// with its scales beside it.
void check_model_table(const std::string& path, const SafetensorsFile& table,
                       const std::map<std::string, Shape>& shapes, const std::set<std::string>& int8_storable,
                       int format_version) {
    std::set<std::string> scales_names;
    for (const auto& [name, shape] : shapes) {
        auto it = table.tensors.find(name);
        if (it == table.tensors.end()) throw Error(path + ": missing tensor " + name);
        if (it->second.shape != shape)
            throw Error(path + ": tensor " + name + " has shape " + shape_to_string(it->second.shape) +
                        ", the configuration expects " + shape_to_string(shape));
        if (it->second.dtype == DType::I8) {
            if (!int8_storable.count(name))
                throw Error(path + ": tensor " + name +
                            " is I8, which only the weight matrices of int8 products may be (not embeddings, biases "
                            "or gains)");
            const std::string scales_name = name + kScalesSuffix;
            const auto scales = table.tensors.find(scales_name);
            if (scales == table.tensors.end())
                throw Error(path + ": tensor " + name + " is I8 but " + scales_name + " is missing");
            if (scales->second.dtype != DType::F32 || scales->second.shape != Shape{shape[1]})
                throw Error(path + ": tensor " + scales_name + " is " + dtype_name(scales->second.dtype) + " " +
                            shape_to_string(scales->second.shape) + ", expected F32 " +
                            shape_to_string(Shape{shape[1]}));
            scales_names.insert(scales_name);
        } else if (!is_float(it->second.dtype)) {
            throw Error(path + ": tensor " + name + " is " + dtype_name(it->second.dtype) + ", expected a float type");
        }
    }
    for (const char* name : {"vocab.source", "vocab.target"}) {
        auto it = table.tensors.find(name);
        if (it == table.tensors.end() && format_version >= 2 && name == std::string("vocab.source"))
            continue;  // a joint vocabulary, stored once as vocab.target
        if (it == table.tensors.end())
            throw Error(path + ": missing tensor " + name + " (the embedded SentencePiece model)");
        if (it->second.dtype != DType::U8 || it->second.shape.size() != 1)
            throw Error(path + ": tensor " + name + " is " + dtype_name(it->second.dtype) + " " +
                        shape_to_string(it->second.shape) +
                        ", expected a 1-D U8 tensor (the embedded SentencePiece model)");
    }
    check_shortlist_table(path, table);
    for (const auto& [name, tensor] : table.tensors)
        if (!shapes.count(name) && !scales_names.count(name) && name != "vocab.source" && name != "vocab.target" &&
            !is_shortlist(name))
            throw Error(path + ": tensor " + name + " is not part of a model of this configuration");
}

// An int8-stored weight matrix (I8 [K, N]) and its scales, as the int8
// products take it: its values where they are (the file's memory map), its
// scales finite and positive.
QuantizedMatrix take_int8_matrix(const std::string& path, const std::string& name, const StoredTensor& values,
                                 const SafetensorsFile& file) {
    const std::string scales_name = name + kScalesSuffix;
    const auto scales = file.tensors.find(scales_name);
    if (values.shape.size() != 2 || scales == file.tensors.end() || scales->second.dtype != DType::F32 ||
        scales->second.shape != Shape{values.shape[1]})
        throw Error(path + ": tensor " + name + " is I8 without F32 scales of its columns in " + scales_name);
    QuantizedMatrix q;
    q.K = values.shape[0];
    q.N = values.shape[1];
    q.scales = scales->second.to_float().values;
    for (float scale : q.scales)
        if (!(std::isfinite(scale) && scale > 0.0f))
            throw Error(path + ": tensor " + scales_name + " holds a scale that is not a positive finite number");
    if (values.byte_size() != static_cast<size_t>(q.K * q.N))
        throw Error(path + ": tensor " + name + " has " + std::to_string(values.byte_size()) + " bytes for " +
                    std::to_string(q.K * q.N) + " values");
    if (values.mapped) {
        q.mapped = reinterpret_cast<const int8_t*>(values.mapped);
        q.mapping = values.mapping;
    } else {
        const auto* first = reinterpret_cast<const int8_t*>(values.bytes.data());
        q.values.assign(first, first + q.K * q.N);
    }
    return q;
}

// The f32 weights an int8-stored matrix stands for: values times scales.
Tensor dequantized(const QuantizedMatrix& q) {
    Tensor out({q.K, q.N});
    const int8_t* values = q.data();
    for (int64_t k = 0; k < q.K; ++k)
        for (int64_t n = 0; n < q.N; ++n) out[k * q.N + n] = static_cast<float>(values[k * q.N + n]) * q.scales[n];
    return out;
}

// The shortlist of a model file (checked by check_shortlist_table), its ids
// checked against the vocabularies; empty when the file has none.
Shortlist take_shortlist(const std::string& path, const ModelConfig& config, const SafetensorsFile& file) {
    Shortlist shortlist;
    const auto by_source = file.tensors.find("shortlist.by_source");
    const auto frequent = file.tensors.find("shortlist.frequent");
    if (by_source == file.tensors.end() || frequent == file.tensors.end()) return shortlist;
    if (by_source->second.shape[0] != config.source_vocab_size)
        throw Error(path + ": shortlist.by_source has " + std::to_string(by_source->second.shape[0]) +
                    " rows, the source vocabulary " + std::to_string(config.source_vocab_size) + " pieces");
    shortlist.per_source = by_source->second.shape[1];
    shortlist.by_source = by_source->second.to_ints();
    shortlist.frequent = frequent->second.to_ints();
    const auto valid = [&](int32_t id, bool padding_allowed) {
        return (id >= 0 && id < config.target_vocab_size) || (padding_allowed && id == -1);
    };
    for (int32_t id : shortlist.by_source)
        if (!valid(id, true)) throw Error(path + ": shortlist.by_source holds " + std::to_string(id) + ", not a target id");
    for (int32_t id : shortlist.frequent)
        if (!valid(id, false)) throw Error(path + ": shortlist.frequent holds " + std::to_string(id) + ", not a target id");
    return shortlist;
}

}  // namespace

Model load_model(const std::string& path, bool int8) {
    ModelHeader header;
    std::map<std::string, Shape> shapes;
    // The data checksum is verified on a thread of its own while the weights
    // are converted: alone, hashing the 40 MB of a shipped model added 10-20
    // ms to a start-up of 50-130.
    SafetensorsFile file = read_safetensors(
        path,
        [&](const SafetensorsFile& table) {
            header = parse_model_metadata(path, table.metadata);
            shapes = parameter_shapes(header.config);
            check_model_table(path, table, shapes, int8_stored_matrices(header.config), header.format_version);
        },
        ChecksumCheck::Overlapped);
    // take_model, shared with checkpoints, reads both vocabularies by name.
    if (!file.tensors.count("vocab.source")) file.tensors["vocab.source"] = file.tensors.at("vocab.target");
    std::optional<Model> model;
    try {
        model.emplace(take_model(path, header.config, header.provenance, header.decoding, file,
                                 int8 ? int8_matrices(header.config) : std::map<std::string, Int8Matrix>{}));
    } catch (const Error&) {
        // A flipped bit can make a weight NaN or a vocabulary unreadable: name
        // the damage rather than what it did.
        file.wait_for_checksum();
        throw;
    }
    file.wait_for_checksum();
    return std::move(*model);
}

Model take_model(const std::string& path, const ModelConfig& config, nlohmann::json provenance,
                 nlohmann::json decoding, SafetensorsFile& file, const std::map<std::string, Int8Matrix>& int8) {
    auto vocab_bytes = [&](const char* name) {
        auto it = file.tensors.find(name);
        if (it == file.tensors.end() || it->second.dtype != DType::U8 || it->second.shape.size() != 1)
            throw Error(path + ": missing byte tensor " + name + " (the embedded SentencePiece model)");
        return it->second.as_string();
    };
    const std::string source_bytes = vocab_bytes("vocab.source");
    const std::string target_bytes = vocab_bytes("vocab.target");
    // A model with tied source embeddings has one joint vocabulary; where it
    // is stored twice (checkpoints, version 1 model files), two different
    // blobs mean one of them was damaged since.
    if (config.tied_source_embeddings && source_bytes != target_bytes)
        throw Error(path + ": vocab.source and vocab.target differ, but a model with tied source embeddings stores "
                           "one joint SentencePiece model twice: one of them is damaged");
    // SentencePiece builds its tries (a third of loading a model) on the other
    // core while this one converts the weights; a joint vocabulary is built once.
    std::future<std::pair<Vocabulary, Vocabulary>> vocabularies = std::async(std::launch::async, [&] {
        Vocabulary source(source_bytes, path + ": vocab.source");
        Vocabulary target = source_bytes == target_bytes ? source : Vocabulary(target_bytes, path + ": vocab.target");
        return std::make_pair(std::move(source), std::move(target));
    });
    std::map<std::string, Tensor> parameters;
    std::map<std::string, QuantizedMatrix> quantized;
    std::map<std::string, StoredTensor> stored_tables;
    for (const auto& [name, shape] : parameter_shapes(config)) {
        auto it = file.tensors.find(name);
        if (it == file.tensors.end()) throw Error(path + ": missing tensor " + name);
        if (it->second.shape != shape)
            throw Error(path + ": tensor " + name + " has shape " + shape_to_string(it->second.shape) +
                        ", the configuration expects " + shape_to_string(shape));
        const auto q = int8.find(name);
        if (it->second.dtype == DType::I8) {  // int8-stored: taken as it is, or dequantised for f32
            QuantizedMatrix stored = take_int8_matrix(path, name, it->second, file);
            if (q != int8.end()) {
                prepare_small_batches(stored);
                quantized.emplace(name, std::move(stored));
                Tensor shape_only;
                shape_only.shape = shape;
                parameters.emplace(name, std::move(shape_only));
            } else {
                parameters.emplace(name, dequantized(stored));
            }
            file.tensors.erase(name + kScalesSuffix);
            file.tensors.erase(it);
            continue;
        }
        if (!is_float(it->second.dtype))
            throw Error(path + ": tensor " + name + " is " + dtype_name(it->second.dtype) + ", expected a float type");
        if (!it->second.all_finite()) throw Error(path + ": tensor " + name + " contains NaN or infinity");
        if (q != int8.end()) {  // int8 alone: quantised row by row from the file
            const StoredTensor& stored = it->second;
            const int64_t cols = shape[1];  // a matrix: int8_matrices names only those
            const MatrixRows row = [&stored, cols](int64_t r, float* scratch) {
                stored.to_float(r * cols, cols, scratch);
                return static_cast<const float*>(scratch);
            };
            quantized.emplace(name, quantize_columns(row, shape, q->second.transposed));
            prepare_small_batches(quantized.at(name));
            Tensor shape_only;
            shape_only.shape = shape;
            parameters.emplace(name, std::move(shape_only));
            if (q->second.looked_up) stored_tables.emplace(name, std::move(it->second));  // holds the mapping open
        } else {
            parameters.emplace(name, it->second.to_float());
        }
        file.tensors.erase(it);  // free the raw copy as we go
    }
    // Before waiting for the vocabularies, which the other core is still
    // building: the int8 products' kernels (their JIT compilation on a third
    // thread, started before loading, had held the vocabularies back: 4 ms
    // later at the median of `echo … | nmt translate`), and the shortlist.
    if (!int8.empty()) compile_int8_kernels();
    Shortlist shortlist = take_shortlist(path, config, file);
    auto [source, target] = vocabularies.get();
    if (source.size() != config.source_vocab_size || target.size() != config.target_vocab_size)
        throw Error(path + ": embedded vocabularies have " + std::to_string(source.size()) + " and " +
                    std::to_string(target.size()) + " pieces, the configuration says " +
                    std::to_string(config.source_vocab_size) + " and " + std::to_string(config.target_vocab_size));
    Model model{config, std::move(parameters), std::move(source), std::move(target), std::move(provenance),
                std::move(decoding), std::move(quantized)};
    model.shortlist = std::move(shortlist);
    model.stored_tables = std::move(stored_tables);
    return model;
}

}  // namespace nmt
