#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>

#include "core/error.h"
#include "model/data_checksum.h"
#include "model/safetensors.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace nmt;

namespace {

// A fresh directory per test case, removed afterwards.
struct TempDir {
    fs::path path;
    TempDir() {
        std::random_device entropy;
        path = fs::temp_directory_path() /
               ("nmt_test_safetensors_" + std::to_string(getpid()) + "_" + std::to_string(entropy()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

using Bytes = std::vector<uint8_t>;

Bytes read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const Bytes& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

Bytes as_bytes(const std::string& text) { return Bytes(text.begin(), text.end()); }

Bytes concat(std::initializer_list<Bytes> parts) {
    Bytes out;
    for (const Bytes& part : parts) out.insert(out.end(), part.begin(), part.end());
    return out;
}

Bytes length_prefix(uint64_t length) {
    Bytes out(8);
    for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(length >> (8 * i));
    return out;
}

// A file with this header text (unpadded) and data section.
Bytes file_with_header(const std::string& header, const Bytes& data) {
    return concat({length_prefix(header.size()), as_bytes(header), data});
}

// The message read_safetensors throws, or "" if it read the file.
std::string read_error(const std::string& path) {
    return testing::error_of([&] { read_safetensors(path); });
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Tensor make_tensor(Shape shape, std::vector<float> values) {
    Tensor t(std::move(shape));
    t.values = std::move(values);
    return t;
}

uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

float from_bits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// Two float tensors, an embedded byte blob and metadata: every part of the format.
SafetensorsFile sample_file() {
    SafetensorsFile file;
    file.metadata = {{"format", "nmt"}, {"config", "{\"dim\": 4}"}, {"note", "ünïcödé"}};
    file.tensors["encoder.weight"] = StoredTensor::from_float(make_tensor({2, 3}, {1, -2, 3.5f, 0.25f, -0.125f, 6}));
    file.tensors["decoder.bias"] = StoredTensor::from_float(make_tensor({3}, {1, 0.5f, -1}), DType::F16);
    file.tensors["decoder.scale"] = StoredTensor::from_float(make_tensor({1}, {2}), DType::BF16);
    file.tensors["spm.model"] = StoredTensor::from_bytes(std::string("abc\0\xff", 5));
    return file;
}

}  // namespace

TEST_CASE("safetensors: round trip of every dtype with metadata") {
    TempDir dir;
    SafetensorsFile file;
    file.metadata = {{"format", "nmt"}, {"note", "ünïcödé \"quoted\""}, {"empty", ""}};
    Tensor weights = make_tensor({2, 3}, {1.0f, -2.5f, 3.14159f, 1e-30f, -1e30f, 0.0f});
    Tensor halves = make_tensor({2, 2}, {1.0f, -0.5f, 65504.0f, std::ldexp(1.0f, -24)});
    Tensor brains = make_tensor({1, 3}, {1.0f, -3.0e38f, 0.15625f});
    file.tensors["enc.w"] = StoredTensor::from_float(weights);
    file.tensors["enc.scalar"] = StoredTensor::from_float(make_tensor({}, {42.0f}));
    file.tensors["enc.empty"] = StoredTensor::from_float(make_tensor({0, 3}, {}));
    file.tensors["dec.h"] = StoredTensor::from_float(halves, DType::F16);
    file.tensors["dec.b"] = StoredTensor::from_float(brains, DType::BF16);
    std::string blob("spm\0\x01\xfe\xff model", 13);
    file.tensors["spm"] = StoredTensor::from_bytes(blob);
    file.tensors["empty.bytes"] = StoredTensor::from_bytes("");
    const std::vector<int32_t> ids = {0, -1, 2147483647, -2147483647 - 1, 15999, 7};
    file.tensors["ids"] = StoredTensor::from_ints(ids, {2, 3});
    file.tensors["no.ids"] = StoredTensor::from_ints({}, {0});

    std::string path = dir.file("model.safetensors");
    write_safetensors(path, file);
    CHECK_FALSE(fs::exists(path + ".tmp"));
    SafetensorsFile back = read_safetensors(path);

    CHECK(back.metadata == file.metadata);
    REQUIRE(back.tensors.size() == file.tensors.size());
    for (const auto& [name, tensor] : file.tensors) {
        CAPTURE(name);
        REQUIRE(back.tensors.count(name) == 1);
        CHECK(back.tensors[name].dtype == tensor.dtype);
        CHECK(back.tensors[name].shape == tensor.shape);
        const StoredTensor& read = back.tensors[name];
        CHECK(std::vector<uint8_t>(read.data(), read.data() + read.byte_size()) == tensor.bytes);
    }
    CHECK(back.tensors["enc.w"].to_float().values == weights.values);
    CHECK(back.tensors["enc.scalar"].to_float().values == std::vector<float>{42.0f});
    CHECK(back.tensors["enc.empty"].to_float().shape == Shape{0, 3});
    CHECK(back.tensors["dec.h"].to_float().values == halves.values);  // all exactly representable in f16
    CHECK(back.tensors["dec.b"].to_float().values[0] == 1.0f);
    CHECK(back.tensors["dec.b"].to_float().values[2] == 0.15625f);
    CHECK(back.tensors["spm"].as_string() == blob);
    CHECK(back.tensors["spm"].shape == Shape{13});
    CHECK(back.tensors["empty.bytes"].as_string().empty());
    CHECK(back.tensors["ids"].to_ints() == ids);
    CHECK(back.tensors["no.ids"].to_ints().empty());
    CHECK(testing::error_of([&] { back.tensors["ids"].to_float(); }) == "tensor of I32 cannot be read as floats");
}

TEST_CASE("safetensors: writing replaces an existing file and leaves no temp file") {
    TempDir dir;
    std::string path = dir.file("model.safetensors");
    write_safetensors(path, sample_file());
    SafetensorsFile smaller;
    smaller.tensors["x"] = StoredTensor::from_float(make_tensor({1}, {7}));
    write_safetensors(path, smaller);
    CHECK(read_safetensors(path).tensors.size() == 1);
    CHECK(read_safetensors(path).tensors.at("x").to_float().values == std::vector<float>{7});
    CHECK_FALSE(fs::exists(path + ".tmp"));
}

TEST_CASE("safetensors: write errors name the file") {
    TempDir dir;
    std::string path = dir.file("no_such_dir/model.safetensors");
    try {
        write_safetensors(path, sample_file());
        FAIL("expected an error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()) == path + ": cannot write: No such file or directory");
    }

    SafetensorsFile bad;
    bad.tensors["w"] = StoredTensor::from_float(make_tensor({2}, {1, 2}));
    bad.tensors["w"].shape = {3};
    std::string good_path = dir.file("bad.safetensors");
    CHECK_THROWS_WITH_AS(write_safetensors(good_path, bad),
                         doctest::Contains((good_path + ": cannot write: tensor w").c_str()), Error);
    CHECK_FALSE(fs::exists(good_path));

    SafetensorsFile reserved;
    reserved.tensors["__metadata__"] = StoredTensor::from_bytes("x");
    CHECK_THROWS_WITH_AS(write_safetensors(good_path, reserved), doctest::Contains("reserved"), Error);
}

// HEADER padded with spaces to a multiple of 8 bytes, its length before it.
Bytes padded_header(std::string header) {
    header.append((8 - header.size() % 8) % 8, ' ');
    return concat({length_prefix(header.size()), as_bytes(header)});
}

// The first expected file is the one Hugging Face's own Rust tests pin
// (serialization with forced alignment), with the data checksum nmt adds to
// every file; the second pins metadata and the layout order of mixed dtypes.
// The checksums are XXH3-64 of the data section, as `xxhsum -H3` prints them:
// they pin the hash, not only that there is one.
TEST_CASE("safetensors: byte-exact files") {
    TempDir dir;
    std::string path = dir.file("exact.safetensors");

    SafetensorsFile one;
    one.tensors["attn0"] = StoredTensor::from_float(make_tensor({1, 1, 2, 3}, {0, 1, 2, 3, 4, 5}));
    write_safetensors(path, one);
    Bytes expected = concat({padded_header(R"({"__metadata__":{"data_xxh3_64":"dcd21c42ccaa9d2a"},)"
                                           R"("attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})"),
                             {0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64}});
    CHECK(read_bytes(path) == expected);

    SafetensorsFile mixed;
    mixed.metadata["format"] = "nmt-1";
    mixed.tensors["a"] = StoredTensor::from_bytes("\x01\x02\xff");
    mixed.tensors["b"] = StoredTensor::from_float(make_tensor({2}, {1.0f, -0.5f}), DType::F16);
    mixed.tensors["c"] = StoredTensor::from_float(make_tensor({1}, {1.0f}), DType::BF16);
    mixed.tensors["w"] = StoredTensor::from_float(make_tensor({1}, {-2.0f}));
    write_safetensors(path, mixed);
    expected = concat({padded_header(R"({"__metadata__":{"data_xxh3_64":"86eb68f5dab0e2af","format":"nmt-1"},)"
                                     R"("w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                     R"("c":{"dtype":"BF16","shape":[1],"data_offsets":[4,6]},)"
                                     R"("b":{"dtype":"F16","shape":[2],"data_offsets":[6,10]},)"
                                     R"("a":{"dtype":"U8","shape":[3],"data_offsets":[10,13]}})"),
                       {0, 0, 0, 0xc0, 0x80, 0x3f, 0x00, 0x3c, 0x00, 0xb8, 0x01, 0x02, 0xff}});
    CHECK(read_bytes(path) == expected);

    SafetensorsFile empty;  // XXH3-64 of no bytes: xxHash's published value
    write_safetensors(path, empty);
    CHECK(read_bytes(path) == padded_header(R"({"__metadata__":{"data_xxh3_64":"2d06800538d394c2"}})"));
    CHECK(read_safetensors(path).tensors.empty());
}

TEST_CASE("safetensors: f16 conversion") {
    CHECK(f32_to_f16(1.0f) == 0x3c00);
    CHECK(f32_to_f16(-2.0f) == 0xc000);
    CHECK(f32_to_f16(65504.0f) == 0x7bff);
    CHECK(f32_to_f16(65519.99f) == 0x7bff);  // just below the rounding point to infinity
    CHECK(f32_to_f16(65520.0f) == 0x7c00);   // tie between 65504 and 2^16: even is infinity
    CHECK(f32_to_f16(1e10f) == 0x7c00);
    CHECK(f32_to_f16(-1e10f) == 0xfc00);
    CHECK(f32_to_f16(std::ldexp(1.0f, -14)) == 0x0400);  // smallest normal
    CHECK(f32_to_f16(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
    CHECK(f32_to_f16(std::ldexp(3.0f, -24)) == 0x0003);
    CHECK(f32_to_f16(std::ldexp(1.0f, -25)) == 0x0000);   // tie: rounds to even zero
    CHECK(f32_to_f16(std::ldexp(1.5f, -25)) == 0x0001);   // above the tie
    CHECK(f32_to_f16(std::ldexp(3.0f, -25)) == 0x0002);   // 1.5 units: tie to even 2
    CHECK(f32_to_f16(std::ldexp(5.0f, -25)) == 0x0002);   // 2.5 units: tie to even 2
    CHECK(f32_to_f16(std::ldexp(1023.5f, -24)) == 0x0400);  // subnormal rounding up into the normals
    CHECK(f32_to_f16(std::ldexp(1.0f, -30)) == 0x0000);
    CHECK(f32_to_f16(-0.0f) == 0x8000);
    CHECK(f32_to_f16(0.0f) == 0x0000);
    CHECK(f32_to_f16(std::numeric_limits<float>::infinity()) == 0x7c00);
    CHECK(f32_to_f16(-std::numeric_limits<float>::infinity()) == 0xfc00);
    uint16_t nan = f32_to_f16(std::numeric_limits<float>::quiet_NaN());
    CHECK((nan & 0x7c00) == 0x7c00);
    CHECK((nan & 0x03ff) != 0);
    CHECK((f32_to_f16(from_bits(0x7f800001)) & 0x03ff) != 0);  // a signalling NaN stays NaN, not infinity
    // Ties to even in the normal range: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
    CHECK(f32_to_f16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);
    CHECK(f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
    CHECK(f32_to_f16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3c01);
    CHECK(f32_to_f16(0.1f) == 0x2e66);

    CHECK(f16_to_f32(0x3c00) == 1.0f);
    CHECK(f16_to_f32(0x7bff) == 65504.0f);
    CHECK(f16_to_f32(0x0001) == std::ldexp(1.0f, -24));
    CHECK(f16_to_f32(0x03ff) == std::ldexp(1023.0f, -24));
    CHECK(f16_to_f32(0x8001) == -std::ldexp(1.0f, -24));
    CHECK(bits(f16_to_f32(0x8000)) == 0x80000000u);
    CHECK(f16_to_f32(0x7c00) == std::numeric_limits<float>::infinity());
    CHECK(f16_to_f32(0xfc00) == -std::numeric_limits<float>::infinity());
    CHECK(std::isnan(f16_to_f32(0x7e00)));
    CHECK(std::isnan(f16_to_f32(0x7c01)));
    // Every finite half survives the trip through f32 and back.
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  // NaN payloads are not pinned
        CHECK_MESSAGE(f32_to_f16(f16_to_f32(static_cast<uint16_t>(h))) == h, "half bits ", h);
    }
}

// to_float converts F16 tensors eight values at a time where the CPU has
// F16C: every half (an odd count, so the scalar tail runs too) must come out
// as f16_to_f32 gives it, NaN staying NaN.
TEST_CASE("safetensors: an F16 tensor converts to exactly the values f16_to_f32 gives") {
    StoredTensor stored;
    stored.dtype = DType::F16;
    stored.shape = {0x10000 + 3};
    for (uint32_t i = 0; i < 0x10000 + 3; ++i) {
        const uint16_t h = static_cast<uint16_t>(i & 0xffff);
        stored.bytes.push_back(static_cast<uint8_t>(h & 0xff));
        stored.bytes.push_back(static_cast<uint8_t>(h >> 8));
    }
    const Tensor t = stored.to_float();
    REQUIRE(t.size() == 0x10000 + 3);
    for (uint32_t i = 0; i < 0x10000 + 3; ++i) {
        const float expected = f16_to_f32(static_cast<uint16_t>(i & 0xffff));
        if (std::isnan(expected))
            CHECK_MESSAGE(std::isnan(t[i]), "half bits ", i);
        else
            CHECK_MESSAGE(bits(t[i]) == bits(expected), "half bits ", i);
    }
    CHECK_FALSE(stored.all_finite());
}

// Every finite value of each float dtype, then one infinity or NaN put at
// each position in turn (the check runs in vectors: head, body and tail).
TEST_CASE("safetensors: all_finite finds an infinity or NaN at any position, in every float dtype") {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const float largest_half = 65504.0f, smallest_subnormal_half = 5.9604645e-8f;
    const std::vector<float> finite = {1.0f,           -0.0f, largest_half, -largest_half, smallest_subnormal_half,
                                       -3.5f,          0.0f,  1e-3f,        2.0f,          -1e4f,
                                       0.25f,          7.0f,  -8.0f,        100.0f,        0.5f,
                                       -0.125f,        3.0f,  -2.0f,        9.0f,          -11.0f,
                                       12.0f,          13.0f, -14.0f,       15.0f,         16.0f,
                                       largest_half,   -1.0f, 18.0f,        19.0f,         -20.0f,
                                       21.0f,          22.0f, 23.0f,        -24.0f,        25.0f,
                                       -largest_half,  26.0f};  // 37: past one 512-bit vector of either width
    for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
        CAPTURE(dtype_name(dtype));
        const Tensor clean = make_tensor({static_cast<int64_t>(finite.size())}, finite);
        CHECK(StoredTensor::from_float(clean, dtype).all_finite());
        for (float bad : {inf, -inf, nan, -nan}) {
            for (size_t at = 0; at < finite.size(); ++at) {
                Tensor damaged = clean;
                damaged[at] = bad;
                CHECK_MESSAGE(!StoredTensor::from_float(damaged, dtype).all_finite(), "value ", bad, " at ", at);
            }
        }
    }
    CHECK(StoredTensor::from_float(make_tensor({0}, {}), DType::F16).all_finite());
    CHECK_THROWS(StoredTensor::from_ints({1, 2}, {2}).all_finite());
    // The largest f32 is finite as f32; stored as f16 it rounds to infinity.
    const float largest = std::numeric_limits<float>::max();
    CHECK(StoredTensor::from_float(make_tensor({2}, {largest, -largest}), DType::F32).all_finite());
    CHECK_FALSE(StoredTensor::from_float(make_tensor({2}, {largest, -largest}), DType::F16).all_finite());
}

TEST_CASE("safetensors: bf16 conversion") {
    CHECK(f32_to_bf16(1.0f) == 0x3f80);
    CHECK(f32_to_bf16(-2.0f) == 0xc000);
    CHECK(f32_to_bf16(-0.0f) == 0x8000);
    CHECK(f32_to_bf16(std::numeric_limits<float>::infinity()) == 0x7f80);
    CHECK(f32_to_bf16(std::numeric_limits<float>::max()) == 0x7f80);  // rounds up to infinity
    CHECK(f32_to_bf16(from_bits(0x3f808000)) == 0x3f80);  // tie: even stays
    CHECK(f32_to_bf16(from_bits(0x3f818000)) == 0x3f82);  // tie: odd rounds up to even
    CHECK(f32_to_bf16(from_bits(0x3f808001)) == 0x3f81);  // above the tie
    CHECK(f32_to_bf16(from_bits(0x00000001)) == 0x0000);  // f32 subnormals round like any number
    CHECK(f32_to_bf16(from_bits(0x00008000)) == 0x0000);
    CHECK(f32_to_bf16(from_bits(0x00018000)) == 0x0002);
    uint16_t nan = f32_to_bf16(from_bits(0x7f800001));  // signalling NaN must not round to infinity
    CHECK((nan & 0x7f80) == 0x7f80);
    CHECK((nan & 0x007f) != 0);
    CHECK(bf16_to_f32(0x3f80) == 1.0f);
    CHECK(bf16_to_f32(0xc049) == from_bits(0xc0490000));
    CHECK(std::isnan(bf16_to_f32(0x7fc0)));
}

TEST_CASE("safetensors: conversions refuse the wrong dtype") {
    StoredTensor bytes = StoredTensor::from_bytes("abc");
    CHECK(bytes.dtype == DType::U8);
    CHECK_THROWS_AS(bytes.to_float(), Error);
    StoredTensor floats = StoredTensor::from_float(make_tensor({1}, {1}));
    CHECK_THROWS_AS(floats.as_string(), Error);
    CHECK_THROWS_AS(StoredTensor::from_float(make_tensor({1}, {1}), DType::U8), Error);
    floats.shape = {2};  // bytes no longer match the shape
    CHECK_THROWS_AS(floats.to_float(), Error);
}

TEST_CASE("safetensors: every truncation of a valid file is refused") {
    TempDir dir;
    std::string good = dir.file("good.safetensors");
    write_safetensors(good, sample_file());
    Bytes whole = read_bytes(good);
    std::string path = dir.file("cut.safetensors");
    for (size_t cut = 0; cut < whole.size(); ++cut) {
        write_bytes(path, Bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut)));
        std::string message = read_error(path);
        CAPTURE(cut);
        CHECK(message.rfind(path + ": ", 0) == 0);
    }
    write_bytes(path, Bytes(whole.begin(), whole.begin() + 20));
    CHECK(contains(read_error(path), "truncated: header says"));
    write_bytes(path, Bytes(whole.begin(), whole.end() - 1));
    CHECK(contains(read_error(path), ": truncated: tensor spm.model needs bytes up to"));
}

// Damaged bytes anywhere must give a clean error or a clean read; run under
// ASan this shows we never read outside the file.
TEST_CASE("safetensors: single damaged bytes never crash the reader") {
    TempDir dir;
    std::string good = dir.file("good.safetensors");
    write_safetensors(good, sample_file());
    Bytes whole = read_bytes(good);
    std::string path = dir.file("damaged.safetensors");
    for (size_t at = 0; at < whole.size(); ++at) {
        for (uint8_t value : {uint8_t{0x00}, uint8_t{0x22}, uint8_t{0x39}, uint8_t{0x7b}, uint8_t{0xff}}) {
            Bytes damaged = whole;
            damaged[at] = value;
            write_bytes(path, damaged);
            std::string message = read_error(path);
            CAPTURE(at);
            CHECK((message.empty() || message.rfind(path + ": ", 0) == 0));
        }
    }
}

TEST_CASE("safetensors: malformed files give messages naming the file and the problem") {
    TempDir dir;
    std::string path = dir.file("bad.safetensors");
    const Bytes eight(8, 0);
    auto error_for = [&](const Bytes& bytes) {
        write_bytes(path, bytes);
        return read_error(path);
    };
    auto error_for_header = [&](const std::string& header, const Bytes& data) {
        return error_for(file_with_header(header, data));
    };
    auto check = [&](const std::string& message, const std::string& problem) {
        CAPTURE(message);
        CHECK(message.rfind(path + ": ", 0) == 0);
        CHECK(contains(message, problem));
    };

    std::string missing = dir.file("missing.safetensors");
    CHECK(read_error(missing) == missing + ": cannot open: No such file or directory");
    check(error_for({}), "truncated");
    check(error_for({1, 0, 0}), "truncated");

    check(error_for(concat({length_prefix(100), as_bytes("{}")})),
          "truncated: header says 100 bytes but the file has 2");
    check(error_for(concat({length_prefix(uint64_t{1} << 63), as_bytes("{}")})), "over the 100000000-byte limit");
    check(error_for(concat({length_prefix(200'000'000), as_bytes("{}")})), "over the 100000000-byte limit");

    check(error_for_header("{not json", {}), "header is not valid JSON: ");
    check(error_for_header("\xff\xfe{}", {}), "header is not valid JSON");
    check(error_for_header("{\"a\":\"\xff\"}", {}), "header is not valid JSON");  // not UTF-8
    check(error_for_header("[1,2]", {}), "header is not a JSON object");
    check(error_for_header(std::string(5000, '[') + std::string(5000, ']'), {}), "header is not");
    check(error_for_header("{\"w\":[]}", {}), "tensor w: entry is not a JSON object");

    const std::string shape_and_offsets = R"("shape":[2],"data_offsets":[0,8])";
    check(error_for_header("{\"w\":{" + shape_and_offsets + "}}", eight), "tensor w: missing \"dtype\"");
    check(error_for_header(R"({"w":{"dtype":"F32","data_offsets":[0,8]}})", eight), "tensor w: missing \"shape\"");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":[2]}})", eight), "tensor w: missing \"data_offsets\"");
    check(error_for_header(R"({"w":{"dtype":"F64",)" + shape_and_offsets + "}}", eight),
          "tensor w: unsupported dtype \"F64\"");
    check(error_for_header(R"({"w":{"dtype":32,)" + shape_and_offsets + "}}", eight), "\"dtype\" is not a string");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})", eight), "not an array");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight),
          "has a dimension that is not a non-negative integer");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", eight),
          "has a dimension that is not a non-negative integer");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", eight),
          "too large");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight),
          "\"data_offsets\" [8,0] is not [begin, end]");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", eight), "is not [begin, end]");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,-8]}})", eight), "is not [begin, end]");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", eight),
          "truncated: tensor w needs bytes up to 16 but the data section has 8");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551615]}})", eight),
          "truncated: tensor w needs bytes up to 18446744073709551615");
    check(error_for_header(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight),
          "tensor w: F32 [3] needs 12 bytes but data_offsets hold 8");
    check(error_for_header(R"({"w":{"dtype":"F16","shape":[2],"data_offsets":[0,8]}})", eight),
          "F16 [2] needs 4 bytes");

    check(error_for_header(R"({"a":{"dtype":"U8","shape":[6],"data_offsets":[0,6]},)"
                           R"("b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
                           eight),
          "tensors a and b overlap in the data section (bytes 4 to 6)");
    check(error_for_header(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                           R"("b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
                           eight),
          "bytes 2 to 4 of the data section belong to no tensor");
    check(error_for_header(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", eight),
          "the data section has 8 bytes but the tensors end at 4");

    check(error_for_header(R"({"__metadata__":{"n":1}})", {}), "__metadata__ value for \"n\" is not a string");
    check(error_for_header(R"({"__metadata__":["x"]})", {}), "__metadata__ is not a JSON object");
    check(error_for(concat({length_prefix(0)})), "header is not valid JSON");

    CHECK(read_error(dir.path.string()) == dir.path.string() + ": is a directory, not a model file");
    CHECK(read_error("/dev/zero") == "/dev/zero: is not a regular file (a device or a pipe), not a model file");
}

TEST_CASE("safetensors: files from other writers are read") {
    TempDir dir;
    std::string path = dir.file("other.safetensors");
    // Unpadded header, keys in another order, tensors in name order, F16 data
    // before F32: all valid in the format.
    Bytes data = {0x00, 0x3c, 0x00, 0x00, 0x80, 0x3f};
    write_bytes(path, file_with_header(R"( {"b":{"data_offsets":[2,6],"shape":[],"dtype":"F32"},)"
                                       R"("a":{"shape":[1],"dtype":"F16","data_offsets":[0,2]}} )",
                                       data));
    SafetensorsFile file = read_safetensors(path);
    CHECK(file.metadata.empty());
    CHECK(file.tensors.at("a").to_float().values == std::vector<float>{1.0f});
    CHECK(file.tensors.at("b").to_float().values == std::vector<float>{1.0f});
    CHECK(file.tensors.at("b").shape.empty());
}

TEST_CASE("safetensors: the metadata alone is read from the header, which must be whole") {
    TempDir dir;
    const std::string good = dir.file("good.safetensors");
    write_safetensors(good, sample_file());
    CHECK(read_safetensors_metadata(good) == sample_file().metadata);

    // Only the header is read: a file cut inside its data still gives its metadata.
    const Bytes whole = read_bytes(good);
    uint64_t header = 0;
    for (int i = 0; i < 8; ++i) header |= uint64_t{whole[i]} << (8 * i);
    const std::string cut = dir.file("cut.safetensors");
    write_bytes(cut, Bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(8 + header + 1)));
    CHECK(read_safetensors_metadata(cut) == sample_file().metadata);

    for (size_t length : {size_t{0}, size_t{5}, size_t{8 + header - 1}}) {
        write_bytes(cut, Bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(length)));
        const std::string message = testing::error_of([&] { read_safetensors_metadata(cut); });
        CAPTURE(length);
        CHECK(message.rfind(cut + ": truncated", 0) == 0);
    }
    write_bytes(cut, file_with_header("{}", {}));
    CHECK(read_safetensors_metadata(cut).empty());
    write_bytes(cut, file_with_header("[1]", {}));
    CHECK(contains(testing::error_of([&] { read_safetensors_metadata(cut); }), "header is not a JSON object"));
    CHECK(contains(testing::error_of([&] { read_safetensors_metadata(dir.file("absent")); }), "cannot open"));
}

namespace {

// Where the data section of the safetensors file BYTES starts.
size_t data_start(const Bytes& bytes) {
    uint64_t header = 0;
    for (int i = 0; i < 8; ++i) header |= uint64_t{bytes[i]} << (8 * i);
    return 8 + header;
}

}  // namespace

TEST_CASE("safetensors: the data checksum round-trips and is kept out of the metadata") {
    TempDir dir;
    const std::string path = dir.file("checked.safetensors");
    SafetensorsFile file = sample_file();
    file.metadata[kDataChecksumKey] = "0000000000000000";  // a stale one from a file read before: replaced
    write_safetensors(path, file);
    const SafetensorsFile back = read_safetensors(path);
    CHECK(back.has_checksum);
    CHECK(back.metadata == sample_file().metadata);
    CHECK(read_safetensors_metadata(path) == sample_file().metadata);
    // What the header stores is XXH3-64 of the bytes after it.
    const Bytes whole = read_bytes(path);
    const size_t start = data_start(whole);
    const std::string header(whole.begin() + 8, whole.begin() + static_cast<std::ptrdiff_t>(start));
    CHECK(contains(header, std::string("\"data_xxh3_64\":\"") +
                               data_checksum(whole.data() + start, whole.size() - start) + "\""));
    // Verified in the background too, and then waited for.
    const SafetensorsFile overlapped = read_safetensors(path, nullptr, ChecksumCheck::Overlapped);
    CHECK(overlapped.has_checksum);
    CHECK_NOTHROW(overlapped.wait_for_checksum());
}

TEST_CASE("safetensors: every single flipped bit of the data section is refused, naming the file") {
    TempDir dir;
    const std::string good = dir.file("good.safetensors");
    write_safetensors(good, sample_file());
    const Bytes whole = read_bytes(good);
    const std::string path = dir.file("flipped.safetensors");
    const std::string expected = path + ": the tensor data does not match its checksum: the file is damaged "
                                        "(re-download or re-convert it)";
    for (size_t at = data_start(whole); at < whole.size(); ++at) {
        for (int bit = 0; bit < 8; ++bit) {
            Bytes damaged = whole;
            damaged[at] ^= static_cast<uint8_t>(1u << bit);
            write_bytes(path, damaged);
            CAPTURE(at);
            CAPTURE(bit);
            CHECK(read_error(path) == expected);
            const SafetensorsFile overlapped = read_safetensors(path, nullptr, ChecksumCheck::Overlapped);
            CHECK(testing::error_of([&] { overlapped.wait_for_checksum(); }) == expected);
        }
    }
}

TEST_CASE("safetensors: a damaged checksum in the header is refused, and a file without one is read") {
    TempDir dir;
    const std::string path = dir.file("header.safetensors");
    const Bytes data = {0x00, 0x3c};
    const std::string table = R"("a":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}})";
    const std::string right = data_checksum(data.data(), data.size());

    write_bytes(path, file_with_header(R"({"__metadata__":{"data_xxh3_64":")" + right + R"("},)" + table, data));
    CHECK(read_error(path).empty());
    CHECK(read_safetensors(path).has_checksum);

    // Not 16 lowercase hex digits: the header is damaged, and says so.
    for (const std::string& bad : {right.substr(1), right + "0", "G" + right.substr(1), std::string(16, 'A')}) {
        write_bytes(path, file_with_header(R"({"__metadata__":{"data_xxh3_64":")" + bad + R"("},)" + table, data));
        CAPTURE(bad);
        CHECK(read_error(path) == path + ": __metadata__ \"data_xxh3_64\" is not 16 lowercase hex digits: the "
                                         "header is damaged (re-download or re-convert the file)");
    }
    // Another well-formed value: the data does not match it.
    std::string other = right;
    other[15] = other[15] == '0' ? '1' : '0';
    write_bytes(path, file_with_header(R"({"__metadata__":{"data_xxh3_64":")" + other + R"("},)" + table, data));
    CHECK(contains(read_error(path), "the tensor data does not match its checksum"));

    // No checksum at all, as in every file written before nmt stored one.
    write_bytes(path, file_with_header("{" + table, data));
    CHECK(read_error(path).empty());
    CHECK_FALSE(read_safetensors(path).has_checksum);
    CHECK_NOTHROW(read_safetensors(path, nullptr, ChecksumCheck::Overlapped).wait_for_checksum());
}
