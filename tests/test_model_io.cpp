// Model files: round trip in every storage type, and refusal of anything that does not fit.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <cstring>
#include <functional>
#include <unistd.h>

#include "core/error.h"
#include "model/safetensors.h"
#include "decode/translator.h"
#include "test_support.h"

using namespace nmt;
namespace fs = std::filesystem;

namespace {

fs::path io_path(const std::string& name) { return testing::temp_path("model", name); }

using testing::error_of;

// The configuration of a plain model as JSON, as a file without the optional
// fields (written only when set) holds it.
nlohmann::json plain_config_json() {
    auto json = to_json(testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive));
    json["source_vocab_size"] = json["target_vocab_size"] = 60;
    return json;
}

}  // namespace

TEST_CASE("model io: save and load round trip keeps configuration, weights and vocabularies") {
    auto config = testing::small_config(CellType::LSTM, CellType::GRU, DecoderStyle::Luong, AttentionType::General);
    config.source_language = "en";
    config.target_language = "fr";
    Model model = testing::random_model(config, 81);
    model.provenance = {{"seed", 81}};
    model.decoding = {{"length_penalty", 1.25}, {"tuned_on", "val"}};
    for (DType storage : {DType::F32, DType::F16, DType::BF16}) {
        const auto path = io_path("model.nmt").string();
        save_model(path, model, storage);
        Model loaded = load_model(path);
        CHECK(to_json(loaded.config) == to_json(model.config));
        CHECK(loaded.provenance == model.provenance);
        CHECK(loaded.decoding == model.decoding);
        CHECK(with_model_defaults(SearchOptions{}, loaded).length_penalty == 1.25f);
        CHECK(loaded.source_vocab.serialized() == model.source_vocab.serialized());
        const float tolerance = storage == DType::F32 ? 0.0f : storage == DType::F16 ? 1e-3f : 8e-3f;
        for (const auto& [name, t] : model.parameters) {
            const Tensor& u = loaded.param(name);
            REQUIRE(u.shape == t.shape);
            for (int64_t i = 0; i < t.size(); ++i) REQUIRE(std::fabs(u[i] - t[i]) <= tolerance * std::max(1.0f, std::fabs(t[i])));
        }
    }
}

TEST_CASE("model io: tied source embeddings keep one table, survive a round trip, and need a joint vocabulary") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    config.tied_embeddings = config.tied_source_embeddings = true;
    Model model = testing::random_model(config, 83);
    CHECK(!model.has("source.embeddings"));
    CHECK(&model.param(model.config.source_embeddings()) == &model.param("target.embeddings"));
    const auto path = io_path("tied.nmt").string();
    save_model(path, model);
    Model loaded = load_model(path);
    CHECK(loaded.config.tied_source_embeddings);
    CHECK(loaded.parameters.size() == model.parameters.size());

    // Without the flag the configuration says nothing of it, so older files keep their bytes and still load.
    const auto untied = plain_config_json();
    CHECK(!untied.contains("tied_source_embeddings"));
    CHECK(!config_from_json(untied).tied_source_embeddings);

    // Two different SentencePiece models of the same size cannot share a table.
    // (The tiny corpus caps the unigram model's size: find a BPE model of the same size.)
    auto unigram = [] { return Vocabulary(testing::tiny_spm(60, "unigram"), "unigram"); };
    int bpe_size = 30;
    while (bpe_size < 60 && Vocabulary(testing::tiny_spm(bpe_size, "bpe"), "bpe").size() != unigram().size()) ++bpe_size;
    auto bpe = [&] { return Vocabulary(testing::tiny_spm(bpe_size, "bpe"), "bpe"); };
    REQUIRE(unigram().size() == bpe().size());
    REQUIRE(unigram().serialized() != bpe().serialized());
    config.source_vocab_size = config.target_vocab_size = unigram().size();
    CHECK(error_of([&] { init_model(config, 1, unigram(), bpe()); }).find("joint vocabulary") != std::string::npos);
    // A file written so by other means is refused on load, naming the file.
    Model handmade{model.config, model.parameters, bpe(), unigram()};
    handmade.config.source_vocab_size = handmade.config.target_vocab_size = unigram().size();
    save_model(path, handmade);
    const auto message = error_of([&] { load_model(path); });
    CHECK(message == path + ": vocab.source and vocab.target differ, but a model with tied source embeddings stores "
                            "one joint SentencePiece model twice: one of them is damaged");
    config.target_vocab_size += 1;
    CHECK(error_of([&] { config.validate(); }).find("joint vocabulary") != std::string::npos);
}

TEST_CASE("model io: layer-normalised cells get gains that start at one, survive a round trip, and are checked") {
    auto config = testing::small_config(CellType::GRU, CellType::LSTM, DecoderStyle::Conditional, AttentionType::Additive);
    config.layer_norm = true;
    Vocabulary source(testing::tiny_spm(60, "unigram"), "test"), target(testing::tiny_spm(60, "unigram"), "test");
    config.source_vocab_size = source.size();
    config.target_vocab_size = target.size();
    Model model = init_model(config, 5, std::move(source), std::move(target));
    for (const char* cell : {"encoder.0.forward", "encoder.0.backward", "encoder.1", "decoder.rnn", "decoder.rnn2"})
        for (const char* gain : {".ln_x", ".ln_h"}) {
            const std::string name = std::string(cell) + gain;
            CAPTURE(name);
            REQUIRE(model.has(name));
            CHECK(model.param(name).shape == model.param(std::string(cell) + ".b").shape);
            for (float g : model.param(name).values) REQUIRE(g == 1.0f);
        }
    const auto path = io_path("layer_norm.nmt").string();
    save_model(path, model);
    Model loaded = load_model(path);
    CHECK(loaded.config.layer_norm);
    CHECK(loaded.parameters.size() == model.parameters.size());

    // Without it the configuration says nothing of it (older files keep their bytes and load as plain cells).
    const auto plain = plain_config_json();
    CHECK(!plain.contains("layer_norm"));
    CHECK(!config_from_json(plain).layer_norm);

    // A file that says layer_norm but lacks a gain is refused, naming the file and the tensor.
    model.parameters.erase("decoder.rnn.ln_h");
    save_model(path, model);
    const auto message = error_of([&] { load_model(path); });
    CAPTURE(message);
    CHECK(message.find(path) != std::string::npos);
    CHECK(message.find("decoder.rnn.ln_h") != std::string::npos);
}

TEST_CASE("model io: a lexical model keeps its projection through a round trip, and needs a non-Luong decoder") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    config.lexical_model = true;
    Model model = testing::random_model(config, 9);
    REQUIRE(model.has("decoder.lexical.W"));
    CHECK(model.param("decoder.lexical.W").shape == Shape{config.dim_emb, config.dim_emb});
    const auto path = io_path("lexical.nmt").string();
    save_model(path, model);
    Model loaded = load_model(path);
    CHECK(loaded.config.lexical_model);
    CHECK(loaded.param("decoder.lexical.W").values == model.param("decoder.lexical.W").values);

    const auto plain = plain_config_json();
    CHECK(!plain.contains("lexical_model"));
    CHECK(!config_from_json(plain).lexical_model);

    ModelConfig luong = model.config;
    luong.decoder_style = DecoderStyle::Luong;
    CHECK(error_of([&] { luong.validate(); }).find("lexical model") != std::string::npos);
}

TEST_CASE("model io: a wrong shape, a missing tensor or a non-model file is refused with the file named") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive), 91);
    const auto path = io_path("broken.nmt").string();

    Model wrong_shape = testing::random_model(model.config, 91);
    wrong_shape.parameters["decoder.init.W"] = Tensor({3, 3});
    save_model(path, wrong_shape);
    auto message = error_of([&] { load_model(path); });
    CHECK(message.find(path) != std::string::npos);
    CHECK(message.find("decoder.init.W has shape [3,3]") != std::string::npos);

    Model missing = testing::random_model(model.config, 91);
    missing.parameters.erase("attention.v");
    save_model(path, missing);
    CHECK(error_of([&] { load_model(path); }).find("missing tensor attention.v") != std::string::npos);

    Model bad_decoding = testing::random_model(model.config, 91);
    bad_decoding.decoding = {{"length_penalty", "long"}};
    save_model(path, bad_decoding);
    message = error_of([&] { load_model(path); });
    CHECK(message.find(path) != std::string::npos);
    CHECK(message.find("length_penalty is a number") != std::string::npos);

    // A model without tuned settings searches with the defaults.
    save_model(path, model);
    CHECK(load_model(path).decoding.empty());
    CHECK(with_model_defaults(SearchOptions{}, load_model(path)).length_penalty == SearchOptions{}.length_penalty);

    // A file lacking its configuration is named once, not twice.
    SafetensorsFile no_config = read_safetensors(path);
    no_config.metadata.erase("config");
    write_safetensors(path, no_config);
    CHECK(error_of([&] { load_model(path); }) == path + ": not an nmt model (metadata lacks 'config')");

    std::ofstream(path) << "this is not a model";
    message = error_of([&] { load_model(path); });
    CHECK(message.find(path) != std::string::npos);

    CHECK(error_of([&] { load_model(path + ".does-not-exist"); }).find("does-not-exist") != std::string::npos);
}

namespace {

// A saved model's header and data section, to damage by hand as a disk or a
// careless tool would, then to write back.
struct RawModel {
    nlohmann::json header;
    std::string data;

    explicit RawModel(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), {});
        uint64_t length;
        std::memcpy(&length, bytes.data(), 8);
        header = nlohmann::json::parse(bytes.substr(8, length));
        data = bytes.substr(8 + length);
    }
    // A tensor appended after the others.
    void append(const std::string& name, const nlohmann::json& entry_without_offsets, const std::string& bytes) {
        nlohmann::json entry = entry_without_offsets;
        entry["data_offsets"] = {data.size(), data.size() + bytes.size()};
        header[name] = entry;
        data += bytes;
    }
    std::string bytes_of(const std::string& name) const {
        const auto begin = header[name]["data_offsets"][0].get<size_t>();
        const auto end = header[name]["data_offsets"][1].get<size_t>();
        return data.substr(begin, end - begin);
    }
    // As a version 1 file: the format version, and no data checksum (nmt
    // wrote version 1 before it stored one).
    void make_version_1() {
        header["__metadata__"]["format_version"] = "1";
        header["__metadata__"].erase("data_xxh3_64");
    }
    void write(const std::string& path) const {
        const std::string text = header.dump();
        const uint64_t length = text.size();
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(&length), 8);
        out << text << data;
    }
};

}  // namespace

TEST_CASE("model io: damage is named by the tensor it hits, not by the bytes or neighbours it disturbs") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    config.tied_embeddings = config.tied_source_embeddings = true;
    const auto path = io_path("damaged.nmt").string();
    save_model(path, testing::random_model(config, 84));
    const RawModel saved(path);

    // A tensor's table entry lost, its bytes left behind: named as missing.
    RawModel missing = saved;
    missing.header.erase("attention.v");
    missing.write(path);
    CHECK(error_of([&] { load_model(path); }) == path + ": missing tensor attention.v");

    // An entry that is no part of the model, laid over the first bytes: it
    // is named, and the valid tensor it overlaps is not blamed.
    RawModel bogus = saved;
    bogus.header["bogus"] = {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {0, 4}}};
    bogus.write(path);
    CHECK(error_of([&] { load_model(path); }) == path + ": tensor bogus is not part of a model of this configuration");

    // The embedded SentencePiece model as a matrix: said so, not "missing".
    RawModel matrix = saved;
    const auto bytes = matrix.header["vocab.target"]["shape"][0].get<int64_t>();
    REQUIRE(bytes % 2 == 0);
    matrix.header["vocab.target"]["shape"] = {2, bytes / 2};
    matrix.write(path);
    CHECK(error_of([&] { load_model(path); }) ==
          path + ": tensor vocab.target is U8 [2," + std::to_string(bytes / 2) +
              "], expected a 1-D U8 tensor (the embedded SentencePiece model)");

    // A version 1 file stores the joint vocabulary twice. One byte of a
    // piece changed inside vocab.source: still a valid SentencePiece model,
    // so only the joint copy in vocab.target shows it.
    RawModel flipped = saved;
    flipped.make_version_1();
    std::string source = saved.bytes_of("vocab.target");
    const size_t piece = source.find("\xe2\x96\x81");  // "▁", which starts word pieces
    REQUIRE(piece + 4 < source.size());
    source[piece + 3] = source[piece + 3] == 'q' ? 'z' : 'q';
    flipped.append("vocab.source", {{"dtype", "U8"}, {"shape", {source.size()}}}, source);
    flipped.write(path);
    CHECK(error_of([&] { load_model(path); }) ==
          path + ": vocab.source and vocab.target differ, but a model with tied source embeddings stores one joint "
                 "SentencePiece model twice: one of them is damaged");

    // And the undamaged bytes load.
    saved.write(path);
    CHECK(load_model(path).config.tied_source_embeddings);
}

TEST_CASE("model io: a joint vocabulary is stored once, two different ones twice, and version 1 files still load") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    const auto path = io_path("vocabularies.nmt").string();

    // The same SentencePiece model on both sides: one copy, read back for both.
    const Model joint = testing::random_model(config, 85);
    REQUIRE(joint.source_vocab.serialized() == joint.target_vocab.serialized());
    save_model(path, joint);
    const RawModel once(path);
    CHECK(once.header["__metadata__"]["format_version"] == "2");
    CHECK(!once.header.contains("vocab.source"));
    CHECK(once.bytes_of("vocab.target") == joint.target_vocab.serialized());
    const Model loaded = load_model(path);
    CHECK(loaded.source_vocab.serialized() == joint.source_vocab.serialized());
    CHECK(loaded.target_vocab.serialized() == joint.target_vocab.serialized());
    CHECK(loaded.source_vocab.encode("a man") == joint.source_vocab.encode("a man"));

    // A version 1 file stores it twice, and loads; one without vocab.source is damaged.
    RawModel twice = once;
    twice.make_version_1();
    const std::string vocabulary = once.bytes_of("vocab.target");
    RawModel lacking = twice;
    twice.append("vocab.source", {{"dtype", "U8"}, {"shape", {vocabulary.size()}}}, vocabulary);
    twice.write(path);
    CHECK(load_model(path).source_vocab.serialized() == joint.source_vocab.serialized());
    lacking.write(path);
    CHECK(error_of([&] { load_model(path); }) ==
          path + ": missing tensor vocab.source (the embedded SentencePiece model)");

    // Different models on the two sides: both stored, each read back as itself.
    Vocabulary source(testing::tiny_spm(60, "unigram"), "unigram"), target(testing::tiny_spm(40, "bpe"), "bpe");
    REQUIRE(source.serialized() != target.serialized());
    config.source_vocab_size = source.size();
    config.target_vocab_size = target.size();
    const Model separate = init_model(config, 86, source, target);
    save_model(path, separate);
    const RawModel both(path);
    CHECK(both.bytes_of("vocab.source") == source.serialized());
    CHECK(both.bytes_of("vocab.target") == target.serialized());
    const Model loaded_separate = load_model(path);
    CHECK(loaded_separate.source_vocab.serialized() == source.serialized());
    CHECK(loaded_separate.target_vocab.serialized() == target.serialized());
}

TEST_CASE("model io: every truncation of a model file is refused, never crashes") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive), 92);
    const auto path = io_path("whole.nmt").string();
    save_model(path, model);
    const auto size = fs::file_size(path);
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    const auto cut = io_path("cut.nmt").string();
    for (size_t length : {size_t(0), size_t(4), size_t(8), size_t(100), size / 2, size - 1}) {
        std::ofstream(cut, std::ios::binary).write(bytes.data(), length);
        CAPTURE(length);
        CHECK(error_of([&] { load_model(cut); }).find(cut) != std::string::npos);
    }
}

TEST_CASE("model io: configuration sizes must be integers in range, named with the value as written") {
    auto error_with = [](const char* key, const nlohmann::json& value) {
        nlohmann::json config = plain_config_json();
        config[key] = value;
        return error_of([&] { config_from_json(config); });
    };
    CHECK(error_with("dim_rnn", 2147483648ull) == "model configuration: 'dim_rnn' is 2147483648, far out of range");
    CHECK(error_with("dim_rnn", 1ull << 40) == "model configuration: 'dim_rnn' is 1099511627776, far out of range");
    CHECK(error_with("dim_rnn", -5000000000ll) == "model configuration: 'dim_rnn' is -5000000000, far out of range");
    CHECK(error_with("dim_rnn", 1e300).find("'dim_rnn' is 1e+300, not an integer") != std::string::npos);
    CHECK(error_with("dim_emb", 256.5) == "model configuration: 'dim_emb' is 256.5, not an integer");
    CHECK(error_with("dim_dec", "512") == "model configuration: 'dim_dec' is \"512\", not an integer");
    CHECK(error_with("dim_rnn", 9000) == "model configuration: dim_rnn = 9000 is outside [1, 8192]");
    CHECK(error_with("max_source_pieces", 1) == "model configuration: max_source_pieces = 1 is outside [2, 65536]");
    CHECK_NOTHROW(config_from_json(plain_config_json()));
}

TEST_CASE("model io: a flipped bit in the weights is refused by the data checksum, naming the file") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive);
    Model model = testing::random_model(config, 87);
    model.param("decoder.init.W")[0] = 1.0f;  // flipping bit 30 of 1.0f gives infinity
    const auto path = io_path("checked.nmt").string();
    const std::string damaged_message = path + ": the tensor data does not match its checksum: the file is damaged "
                                               "(re-download or re-convert it)";
    for (DType storage : {DType::F32, DType::F16}) {
        CAPTURE(dtype_name(storage));
        save_model(path, model, storage);
        const RawModel saved(path);
        REQUIRE(saved.header["__metadata__"].contains("data_xxh3_64"));
        CHECK(read_safetensors(path).has_checksum);
        CHECK(load_model(path).parameter_count() == model.parameter_count());

        // A bit in the middle of the data section, and the last one: refused,
        // in f32 and in int8 loading alike.
        for (size_t at : {saved.data.size() / 2, saved.data.size() - 1}) {
            RawModel flipped = saved;
            flipped.data[at] = static_cast<char>(flipped.data[at] ^ 0x10);
            flipped.write(path);
            CAPTURE(at);
            CHECK(error_of([&] { load_model(path); }) == damaged_message);
            CHECK(error_of([&] { load_model(path, true); }) == damaged_message);
        }
    }

    // A flip that makes a weight infinite is named as damage, not as the
    // infinity it made.
    save_model(path, model);
    RawModel infinite(path);
    const size_t first = infinite.header["decoder.init.W"]["data_offsets"][0].get<size_t>();
    infinite.data[first + 3] = static_cast<char>(infinite.data[first + 3] ^ 0x40);
    infinite.write(path);
    CHECK(error_of([&] { load_model(path); }) == damaged_message);
    // The same file without its checksum, as an older one: the infinity is all that shows.
    infinite.header["__metadata__"].erase("data_xxh3_64");
    infinite.write(path);
    CHECK(error_of([&] { load_model(path); }) == path + ": tensor decoder.init.W contains NaN or infinity");
}

TEST_CASE("model io: a flipped bit in the header is refused as before, and a file without a checksum loads") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive);
    const Model model = testing::random_model(config, 88);
    const auto path = io_path("header.nmt").string();
    save_model(path, model, DType::F16);
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    // The first byte of the first TEXT in the file, one bit changed.
    auto flipped_at = [&](const std::string& text, char mask) {
        std::string damaged = bytes;
        const size_t at = damaged.find(text);
        REQUIRE(at != std::string::npos);
        damaged[at] = static_cast<char>(damaged[at] ^ mask);
        std::ofstream(path, std::ios::binary) << damaged;
        return error_of([&] { load_model(path); });
    };
    CHECK(flipped_at("{\"__metadata__\"", 0x01).rfind(path + ": header is not valid JSON", 0) == 0);
    CHECK(flipped_at("F16\"", 0x02) ==
          path + ": tensor attention.Wk: unsupported dtype \"D16\" (nmt reads F32, F16, BF16, U8, I8, I32)");

    // Every file written before the checksum: the header without it loads.
    std::ofstream(path, std::ios::binary) << bytes;
    RawModel older(path);
    older.header["__metadata__"].erase("data_xxh3_64");
    older.write(path);
    CHECK_FALSE(read_safetensors(path).has_checksum);
    const Model loaded = load_model(path);
    CHECK(loaded.parameter_count() == model.parameter_count());
    CHECK(load_model(path, true).int8.size() > 0);
}
