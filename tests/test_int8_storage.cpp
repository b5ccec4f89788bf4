// int8 storage (issue 65): a model file whose weight matrices are stored as
// int8 with their scales (nmt convert --storage int8) holds exactly what int8
// decoding quantises at load, takes it without copying, translates as the
// model quantised at load does, loads for f32 as values times scales, and a
// damaged or misplaced int8 tensor is refused naming the file and the tensor.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "core/int8_gemm.h"
#include "decode/precision.h"
#include "decode/translator.h"
#include "model/model.h"
#include "model/safetensors.h"
#include "test_support.h"

using namespace nmt;

namespace {

const std::vector<std::string> kStorageLines = {"the cat sat on the mat", "a dog runs in the park", "bird sings",
                                         "the bird and the cat run"};

// A random model of `config` written as f16 (what the shipped models were)
// and the same model converted to int8 storage, as nmt convert does it.
struct StoredPair {
    std::string f16_path, int8_path;
};

StoredPair stored_pair(const ModelConfig& config, uint64_t seed) {
    StoredPair paths{testing::temp_path("int8_storage", "f16.nmt").string(),
                     testing::temp_path("int8_storage", "int8.nmt").string()};
    save_model(paths.f16_path, testing::random_model(config, seed), DType::F16);
    save_model(paths.int8_path, load_model(paths.f16_path), DType::I8);
    return paths;
}

std::vector<TranslationResult> translate_with(const Model& model, size_t batch_size) {
    TranslateOptions options;
    options.search.beam_size = 3;
    options.batch_size = batch_size;
    return Translator(model).translate(kStorageLines, options);
}

}  // namespace

TEST_CASE("int8 storage: holds what loading quantises, mapped, and translates the same, batched and one by one") {
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        const StoredPair paths = stored_pair(config, 81);
        CHECK(std::filesystem::file_size(paths.int8_path) < std::filesystem::file_size(paths.f16_path));
        const Model at_load = load_model(paths.f16_path, true);
        const Model stored = load_model(paths.int8_path, true);
        REQUIRE(stored.int8.size() == at_load.int8.size());
        const std::set<std::string> storable = int8_stored_matrices(config);
        for (const auto& [name, q] : at_load.int8) {
            const std::string& matrix = name;  // CAPTURE cannot take a structured binding under clang
            CAPTURE(matrix);
            const QuantizedMatrix* same = stored.quantized(name);
            REQUIRE(same != nullptr);
            REQUIRE(same->K * same->N == q.K * q.N);
            CHECK(std::equal(q.data(), q.data() + q.K * q.N, same->data()));
            CHECK(same->scales == q.scales);
            CHECK(same->by_output == q.by_output);
            // Taken from the file's memory map, not copied; the embedding
            // table the output layer shares is quantised at load, as from f16.
            CHECK((same->mapped != nullptr) == (storable.count(name) > 0));
        }
        for (size_t batch_size : {size_t{1}, size_t{32}}) {
            CAPTURE(batch_size);
            const auto expected = translate_with(at_load, batch_size);
            const auto got = translate_with(stored, batch_size);
            for (size_t i = 0; i < kStorageLines.size(); ++i) {
                CHECK(got[i].hypotheses[0].target_ids == expected[i].hypotheses[0].target_ids);
                CHECK(got[i].hypotheses[0].score == expected[i].hypotheses[0].score);
            }
        }
        const auto one_by_one = translate_with(stored, 1), batched = translate_with(stored, 32);
        for (size_t i = 0; i < kStorageLines.size(); ++i)
            CHECK(batched[i].hypotheses[0].target_ids == one_by_one[i].hypotheses[0].target_ids);
    }
}

TEST_CASE("int8 storage: loads for f32 as values times scales, and converts back to the same int8") {
    const ModelConfig config = testing::all_architectures().front();
    const StoredPair paths = stored_pair(config, 82);
    const Model f32 = load_model(paths.int8_path);
    CHECK(f32.int8.empty());
    const SafetensorsFile file = read_safetensors(paths.int8_path);
    for (const std::string& name : int8_stored_matrices(config)) {
        CAPTURE(name);
        const StoredTensor& values = file.tensors.at(name);
        REQUIRE(values.dtype == DType::I8);
        const Tensor scales = file.tensors.at(name + ".scales").to_float();
        const Tensor& W = f32.param(name);
        const auto* v = reinterpret_cast<const int8_t*>(values.data());
        int64_t mismatches = 0;
        for (int64_t k = 0; k < W.rows(); ++k)
            for (int64_t n = 0; n < W.cols(); ++n)
                mismatches += W[k * W.cols() + n] != static_cast<float>(v[k * W.cols() + n]) * scales[n];
        CHECK(mismatches == 0);
    }
    // Every other weight is f16.
    for (const auto& [name, tensor] : file.tensors)
        if (file.tensors.count(name + ".scales") == 0 && name.find(".scales") == std::string::npos &&
            f32.has(name))
            CHECK(tensor.dtype == DType::F16);
    // f32 weights that came from int8 quantise back to the same values and scales.
    const std::string again = testing::temp_path("int8_storage", "again.nmt").string();
    save_model(again, f32, DType::I8);
    const SafetensorsFile second = read_safetensors(again);
    for (const std::string& name : int8_stored_matrices(config)) {
        CAPTURE(name);
        const StoredTensor &a = file.tensors.at(name), &b = second.tensors.at(name);
        CHECK(std::equal(a.data(), a.data() + a.byte_size(), b.data(), b.data() + b.byte_size()));
        CHECK(file.tensors.at(name + ".scales").to_float().values == second.tensors.at(name + ".scales").to_float().values);
    }
}

TEST_CASE("int8 storage: a misplaced or damaged int8 tensor is refused, naming the file and the tensor") {
    const ModelConfig config = testing::all_architectures().front();
    const StoredPair paths = stored_pair(config, 83);
    const std::string damaged = testing::temp_path("int8_storage", "damaged.nmt").string();
    auto rewrite = [&](const std::function<void(SafetensorsFile&)>& damage) {
        SafetensorsFile file = read_safetensors(paths.int8_path);
        damage(file);
        write_safetensors(damaged, file);
    };
    const std::string matrix = "decoder.rnn.U";
    REQUIRE(int8_stored_matrices(config).count(matrix));

    rewrite([&](SafetensorsFile& file) { file.tensors.erase(matrix + ".scales"); });
    CHECK(testing::error_of([&] { load_model(damaged); }) ==
          damaged + ": tensor " + matrix + " is I8 but " + matrix + ".scales is missing");

    rewrite([&](SafetensorsFile& file) {
        Tensor scales = file.tensors.at(matrix + ".scales").to_float();
        scales[3] = -scales[3];
        file.tensors[matrix + ".scales"] = StoredTensor::from_float(scales);
    });
    for (bool int8 : {false, true})
        CHECK(testing::error_of([&] { load_model(damaged, int8); }) ==
              damaged + ": tensor " + matrix + ".scales holds a scale that is not a positive finite number");

    rewrite([&](SafetensorsFile& file) {
        file.tensors[matrix + ".scales"] = StoredTensor::from_float(Tensor({3}, 1.0f));
    });
    CHECK(testing::error_of([&] { load_model(damaged); }).rfind(damaged + ": tensor " + matrix + ".scales is F32 [3]", 0) ==
          0);

    // Embeddings stay f16: an I8 embedding table is not a model nmt wrote.
    rewrite([&](SafetensorsFile& file) {
        const StoredTensor& table = file.tensors.at("target.embeddings");
        std::vector<int8_t> zeros(static_cast<size_t>(shape_size(table.shape)), 0);
        file.tensors["target.embeddings"] = StoredTensor::from_int8(zeros.data(), table.shape);
    });
    CHECK(testing::error_of([&] { load_model(damaged); }).rfind(damaged + ": tensor target.embeddings is I8", 0) == 0);

    // A flipped bit in the int8 values: the data checksum names the file.
    rewrite([](SafetensorsFile&) {});
    {
        std::FILE* f = std::fopen(damaged.c_str(), "r+b");
        REQUIRE(f != nullptr);
        const auto size = static_cast<long>(std::filesystem::file_size(damaged));
        std::fseek(f, size - 1000, SEEK_SET);
        const int byte = std::fgetc(f);
        std::fseek(f, size - 1000, SEEK_SET);
        std::fputc(byte ^ 0x10, f);
        std::fclose(f);
    }
    CHECK(testing::error_of([&] { load_model(damaged, true); }).find(damaged + ": the tensor data does not match its checksum") ==
          0);
}
