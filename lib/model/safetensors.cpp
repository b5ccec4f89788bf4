#include "model/safetensors.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include <cpuid.h>
#include <immintrin.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/backed_memory.h"
#include "core/error.h"
#include "core/widest_vectors.h"
#include "io/output_file.h"
#include "model/data_checksum.h"

// The format stores little-endian bytes and we copy them straight into floats.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "nmt assumes a little-endian host");

namespace nmt {

namespace {

// Python's safetensors refuses headers above this size; so do we, before
// allocating anything for them.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// Our headers nest three deep; the limit stops a hostile "[[[[..." header from
// costing gigabytes of parser memory.
constexpr int kMaxJsonDepth = 16;

uint32_t float_bits(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return bits;
}

float bits_float(uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
}

// Drops the low `shift` bits of `value`, rounding to nearest, ties to even.
uint32_t shift_round_even(uint32_t value, int shift) {
    uint32_t kept = value >> shift;
    uint32_t rest = value & ((uint32_t{1} << shift) - 1);
    uint32_t half = uint32_t{1} << (shift - 1);
    if (rest > half || (rest == half && (kept & 1))) ++kept;
    return kept;
}

}  // namespace

std::string dtype_name(DType dtype) {
    switch (dtype) {
        case DType::F32: return "F32";
        case DType::F16: return "F16";
        case DType::BF16: return "BF16";
        case DType::U8: return "U8";
        case DType::I8: return "I8";
        case DType::I32: return "I32";
    }
    throw Error("unknown dtype");
}

size_t dtype_size(DType dtype) {
    switch (dtype) {
        case DType::F32: return 4;
        case DType::F16: return 2;
        case DType::BF16: return 2;
        case DType::U8: return 1;
        case DType::I8: return 1;
        case DType::I32: return 4;
    }
    throw Error("unknown dtype");
}

uint16_t f32_to_f16(float value) {
    uint32_t bits = float_bits(value);
    uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
    uint32_t magnitude = bits & 0x7fffffff;
    if (magnitude > 0x7f800000) return sign | 0x7e00 | ((magnitude >> 13) & 0x1ff);  // quiet NaN
    int exponent = static_cast<int>(magnitude >> 23) - 127;
    if (exponent > 15) return sign | 0x7c00;  // too large (or inf): infinity
    if (exponent >= -14) {
        // Normal: rebias the exponent from 127 to 15 and drop 13 mantissa bits;
        // a rounding carry bumps the exponent, up to infinity.
        return sign | static_cast<uint16_t>(shift_round_even(magnitude - (112u << 23), 13));
    }
    if (exponent < -25) return sign;  // below half the smallest subnormal: zero
    // Subnormal: count units of 2^-24, the implicit leading 1 now explicit.
    uint32_t mantissa = (magnitude & 0x7fffff) | 0x800000;
    return sign | static_cast<uint16_t>(shift_round_even(mantissa, -exponent - 1));
}

float f16_to_f32(uint16_t bits) {
    uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
    uint32_t exponent = (bits >> 10) & 0x1f;
    uint32_t mantissa = bits & 0x3ff;
    if (exponent == 0) {
        float magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // exact
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 31) return bits_float(sign | 0x7f800000 | (mantissa << 13));
    return bits_float(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

uint16_t f32_to_bf16(float value) {
    uint32_t bits = float_bits(value);
    if ((bits & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((bits >> 16) | 0x40);  // quiet NaN
    // bf16 is the top half of f32; a rounding carry bumps the exponent, up to infinity.
    return static_cast<uint16_t>(shift_round_even(bits, 16));
}

float bf16_to_f32(uint16_t bits) { return bits_float(static_cast<uint32_t>(bits) << 16); }

namespace {

void check_byte_count(const StoredTensor& tensor) {
    int64_t elements = shape_size(tensor.shape);
    if (elements < 0 || tensor.byte_size() != static_cast<uint64_t>(elements) * dtype_size(tensor.dtype))
        throw Error("stored tensor " + dtype_name(tensor.dtype) + " " + shape_to_string(tensor.shape) + " has " +
                    std::to_string(tensor.byte_size()) + " bytes, which does not match its shape");
}

}  // namespace

namespace {

// f16 to f32 for `n` values with the CPU's F16C conversion: exact, as
// f16_to_f32 is, eight values an instruction instead of one.
__attribute__((target("avx,f16c"))) void f16_to_f32_f16c(const uint8_t* in, float* out, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * i))));
    for (; i < n; ++i) {
        uint16_t half;
        std::memcpy(&half, in + 2 * i, 2);
        out[i] = f16_to_f32(half);
    }
}

// F16C, and AVX with the OS saving its registers (clang's
// __builtin_cpu_supports knows no "f16c", so CPUID says).
bool has_f16c() {
    static const bool yes = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        return __builtin_cpu_supports("avx") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
    }();
    return yes;
}

void convert_to_float(DType dtype, const uint8_t* in, float* out, int64_t n) {
    if (dtype == DType::F32) {
        if (n > 0) std::memcpy(out, in, static_cast<size_t>(n) * 4);
        return;
    }
    if (dtype == DType::F16 && has_f16c()) return f16_to_f32_f16c(in, out, n);
    for (int64_t i = 0; i < n; ++i) {
        uint16_t half;
        std::memcpy(&half, in + 2 * i, 2);
        out[i] = dtype == DType::F16 ? f16_to_f32(half) : bf16_to_f32(half);
    }
}

// Whether any of n stored values (`Bits` wide, little-endian) has every bit
// of `exponent` set: infinity or NaN in that float format. Branch-free, in
// the CPU's widest vectors (one clone per width): it reads every weight of a
// model at load.
template <typename Bits>
inline __attribute__((always_inline)) bool any_exponent_full(const uint8_t* in, int64_t n, Bits exponent) {
    Bits full = 0;
    for (int64_t i = 0; i < n; ++i) {
        Bits value;
        std::memcpy(&value, in + i * sizeof(Bits), sizeof(Bits));
        full |= static_cast<Bits>((value & exponent) == exponent);
    }
    return full != 0;
}

NMT_WIDEST_VECTORS bool any_exponent_full_16(const uint8_t* in, int64_t n, uint16_t exponent) {
    return any_exponent_full(in, n, exponent);
}

NMT_WIDEST_VECTORS bool any_exponent_full_32(const uint8_t* in, int64_t n, uint32_t exponent) {
    return any_exponent_full(in, n, exponent);
}

bool is_float_dtype(DType dtype) { return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16; }

void check_float_dtype(DType dtype) {
    if (!is_float_dtype(dtype))
        throw Error("tensor of " + dtype_name(dtype) + " cannot be read as floats");
}

}  // namespace

Tensor StoredTensor::to_float() const {
    Tensor out;
    out.shape = shape;
    const int64_t n = shape_size(shape);
    check_float_dtype(dtype);
    check_byte_count(*this);  // before allocating what a damaged shape claims (the range form checks again)
    reserve_backed(out.values, static_cast<size_t>(n));  // a model's worth of page faults cost more than converting it
    out.values.resize(static_cast<size_t>(n));
    to_float(0, n, out.data());
    return out;
}

void StoredTensor::to_float(int64_t first, int64_t count, float* out) const {
    check_float_dtype(dtype);
    check_byte_count(*this);
    if (first < 0 || count < 0 || first + count > shape_size(shape))
        throw Error("values " + std::to_string(first) + " to " + std::to_string(first + count) + " of a tensor of " +
                    std::to_string(shape_size(shape)) + " values");
    convert_to_float(dtype, data() + first * dtype_size(dtype), out, count);
}

bool StoredTensor::all_finite() const {
    check_float_dtype(dtype);
    check_byte_count(*this);
    const int64_t n = shape_size(shape);
    if (dtype == DType::F32) return !any_exponent_full_32(data(), n, 0x7f800000u);
    return !any_exponent_full_16(data(), n, dtype == DType::F16 ? 0x7c00u : 0x7f80u);  // F16 or BF16
}

StoredTensor StoredTensor::from_float(const Tensor& tensor, DType dtype) {
    if (!is_float_dtype(dtype)) throw Error("floats cannot be stored as " + dtype_name(dtype));
    StoredTensor out;
    out.dtype = dtype;
    out.shape = tensor.shape;
    out.bytes.resize(tensor.values.size() * dtype_size(dtype));
    uint8_t* dst = out.bytes.data();
    for (int64_t i = 0; i < tensor.size(); ++i) {
        if (dtype == DType::F32) {
            std::memcpy(dst + 4 * i, tensor.data() + i, 4);
            continue;
        }
        uint16_t half = dtype == DType::F16 ? f32_to_f16(tensor[i]) : f32_to_bf16(tensor[i]);
        std::memcpy(dst + 2 * i, &half, 2);
    }
    return out;
}

StoredTensor StoredTensor::from_bytes(const std::string& bytes) {
    StoredTensor out;
    out.dtype = DType::U8;
    out.shape = {static_cast<int64_t>(bytes.size())};
    out.bytes.assign(bytes.begin(), bytes.end());
    return out;
}

std::string StoredTensor::as_string() const {
    if (dtype != DType::U8) throw Error("tensor of " + dtype_name(dtype) + " cannot be read as bytes");
    return std::string(reinterpret_cast<const char*>(data()), byte_size());
}

StoredTensor StoredTensor::from_ints(const std::vector<int32_t>& values, Shape shape) {
    StoredTensor out;
    out.dtype = DType::I32;
    out.shape = std::move(shape);
    if (shape_size(out.shape) != static_cast<int64_t>(values.size()))
        throw Error("I32 tensor of shape " + shape_to_string(out.shape) + " given " + std::to_string(values.size()) +
                    " values");
    out.bytes.resize(values.size() * 4);
    if (!values.empty()) std::memcpy(out.bytes.data(), values.data(), out.bytes.size());  // little-endian, as the format is
    return out;
}

std::vector<int32_t> StoredTensor::to_ints() const {
    if (dtype != DType::I32) throw Error("tensor of " + dtype_name(dtype) + " cannot be read as I32");
    check_byte_count(*this);
    std::vector<int32_t> out;
    reserve_backed(out, byte_size() / 4);
    out.resize(byte_size() / 4);
    if (!out.empty()) std::memcpy(out.data(), data(), byte_size());
    return out;
}

StoredTensor StoredTensor::from_int8(const int8_t* values, Shape shape) {
    StoredTensor out;
    out.dtype = DType::I8;
    out.shape = std::move(shape);
    out.bytes.resize(static_cast<size_t>(shape_size(out.shape)));
    if (!out.bytes.empty()) std::memcpy(out.bytes.data(), values, out.bytes.size());
    return out;
}

// ---- Writing -------------------------------------------------------------

namespace {

using Entry = std::pair<const std::string, StoredTensor>;

// Where a dtype sits in the Rust library's Dtype enum (increasing alignment).
int reference_rank(DType dtype) {
    switch (dtype) {
        case DType::U8: return 0;
        case DType::I8: return 1;
        case DType::F16: return 2;
        case DType::BF16: return 3;
        case DType::I32: return 4;
        case DType::F32: return 5;
    }
    return 0;
}

// Python's safetensors lays tensors out by descending dtype rank, then by
// name, so each starts at a multiple of its element size; we match it so our
// files are byte-identical to what Python would write.
std::vector<const Entry*> layout_order(const SafetensorsFile& file) {
    std::vector<const Entry*> order;
    for (const Entry& entry : file.tensors) order.push_back(&entry);  // by name already
    std::stable_sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
        return reference_rank(a->second.dtype) > reference_rank(b->second.dtype);
    });
    return order;
}

// The checksum of the data section as write_contents lays it out.
std::string data_section_checksum(const SafetensorsFile& file) {
    DataChecksum checksum;
    for (const Entry* entry : layout_order(file)) checksum.add(entry->second.data(), entry->second.byte_size());
    return checksum.hex();
}

// The JSON header, keys in the order Python writes them, padded with spaces
// to a multiple of 8 bytes so the data section starts aligned. The data
// checksum is always ours: one the caller's metadata carries over from a file
// it read and then changed would be stale.
std::string header_text(const std::string& path, const SafetensorsFile& file) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    std::map<std::string, std::string> metadata = file.metadata;
    metadata[kDataChecksumKey] = data_section_checksum(file);
    header["__metadata__"] = metadata;
    uint64_t offset = 0;
    for (const Entry* entry : layout_order(file)) {
        const auto& [name, tensor] = *entry;
        if (name == "__metadata__")
            throw Error(path + ": cannot write: \"__metadata__\" is reserved, not a tensor name");
        try {
            check_byte_count(tensor);
        } catch (const Error& e) {
            throw Error(path + ": cannot write: tensor " + name + ": " + e.what());
        }
        header[name] = {{"dtype", dtype_name(tensor.dtype)},
                        {"shape", tensor.shape},
                        {"data_offsets", {offset, offset + tensor.byte_size()}}};
        offset += tensor.byte_size();
    }
    std::string text;
    try {
        text = header.dump();
    } catch (const nlohmann::json::exception&) {
        throw Error(path + ": cannot write: a tensor name or metadata string is not valid UTF-8");
    }
    text.append((8 - text.size() % 8) % 8, ' ');
    return text;
}

void write_all(std::FILE* out, const void* data, size_t size, const std::string& path) {
    if (size && std::fwrite(data, 1, size, out) != size) throw_write_error(path, errno);
}

void write_contents(std::FILE* out, const std::string& path, const std::string& header, const SafetensorsFile& file) {
    uint64_t length = header.size();  // little-endian host: the bytes are already in file order
    write_all(out, &length, 8, path);
    write_all(out, header.data(), header.size(), path);
    for (const Entry* entry : layout_order(file))
        write_all(out, entry->second.data(), entry->second.byte_size(), path);
}

}  // namespace

void write_safetensors(const std::string& path, const SafetensorsFile& file) {
    const std::string header = header_text(path, file);
    write_output_file(path, [&](std::FILE* out) { write_contents(out, path, header, file); });
}

// ---- Reading -------------------------------------------------------------

namespace {

using Json = nlohmann::json;

struct Span {  // where one tensor's bytes lie in the data section
    std::string name;
    uint64_t begin = 0, end = 0;
};

// A model file, mapped read-only, so that the header is checked against the
// file's size before any of it is read, and pages are read once, as the
// tensors are copied out. Only a regular file is mapped: /dev/zero or a FIFO
// named as a model would otherwise be read without end. (Models are replaced
// by rename, never rewritten in place, so a mapped file does not change.)
class MappedFile {
public:
    explicit MappedFile(const std::string& path) {
        // O_NONBLOCK: opening a FIFO would otherwise wait for a writer.
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd_ < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
        struct stat st;
        if (::fstat(fd_, &st) != 0) fail(path + ": cannot read: " + std::strerror(errno));
        if (S_ISDIR(st.st_mode)) fail(path + ": is a directory, not a model file");
        if (!S_ISREG(st.st_mode)) fail(path + ": is not a regular file (a device or a pipe), not a model file");
        size_ = static_cast<uint64_t>(st.st_size);
        if (size_ == 0) return;
        void* data = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
        if (data == MAP_FAILED) fail(path + ": cannot map into memory: " + std::strerror(errno));
        data_ = static_cast<const uint8_t*>(data);
        ::madvise(data, size_, MADV_SEQUENTIAL);
    }
    ~MappedFile() { release(); }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const uint8_t* data() const { return data_; }
    uint64_t size() const { return size_; }

private:
    [[noreturn]] void fail(const std::string& message) {
        release();
        throw Error(message);
    }
    void release() {
        if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
        if (fd_ >= 0) ::close(fd_);
        data_ = nullptr;
        fd_ = -1;
    }

    int fd_ = -1;
    const uint8_t* data_ = nullptr;
    uint64_t size_ = 0;
};

uint64_t header_length(const std::string& path, const MappedFile& file) {
    if (file.size() < 8)
        throw Error(path + ": truncated: " + std::to_string(file.size()) +
                    " bytes, shorter than the 8-byte header length of a safetensors file");
    uint64_t length;
    std::memcpy(&length, file.data(), 8);
    if (length > kMaxHeaderBytes)
        throw Error(path + ": header length " + std::to_string(length) + " is over the " +
                    std::to_string(kMaxHeaderBytes) + "-byte limit; not a safetensors file?");
    if (length > file.size() - 8)
        throw Error(path + ": truncated: header says " + std::to_string(length) + " bytes but the file has " +
                    std::to_string(file.size() - 8) + " after the 8-byte length");
    return length;
}

// nlohmann's messages start with "[json.exception.parse_error.101] " and
// quote the input, which may be binary garbage of any length; keep a short,
// printable part a person can read on one line.
std::string brief_json_message(const std::string& what) {
    size_t start = what.find("] ");
    std::string message = start == std::string::npos ? what : what.substr(start + 2);
    if (message.size() > 200) message = message.substr(0, 200) + "...";
    for (char& c : message)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    return message;
}

Json parse_header(const std::string& path, const MappedFile& file, uint64_t length) {
    auto limit_depth = [&](int depth, Json::parse_event_t, Json&) {
        if (depth > kMaxJsonDepth) throw Error(path + ": header is not a safetensors header: JSON nested too deeply");
        return true;
    };
    Json header;
    try {
        header = Json::parse(file.data() + 8, file.data() + 8 + length, limit_depth);
    } catch (const Json::exception& e) {
        throw Error(path + ": header is not valid JSON: " + brief_json_message(e.what()));
    }
    if (!header.is_object()) throw Error(path + ": header is not a JSON object");
    return header;
}

std::map<std::string, std::string> parse_metadata(const std::string& path, const Json& value) {
    if (!value.is_object()) throw Error(path + ": __metadata__ is not a JSON object");
    std::map<std::string, std::string> metadata;
    for (const auto& [key, item] : value.items()) {
        if (!item.is_string()) throw Error(path + ": __metadata__ value for \"" + key + "\" is not a string");
        metadata[key] = item.get<std::string>();
    }
    return metadata;
}

// Takes the data checksum out of METADATA: empty when the file has none.
std::string take_checksum(const std::string& path, std::map<std::string, std::string>& metadata) {
    auto found = metadata.find(kDataChecksumKey);
    if (found == metadata.end()) return "";
    std::string checksum = std::move(found->second);
    metadata.erase(found);
    if (!is_data_checksum(checksum))
        throw Error(path + ": __metadata__ \"" + kDataChecksumKey + "\" is not 16 lowercase hex digits: the header "
                           "is damaged (re-download or re-convert the file)");
    return checksum;
}

// Hashes the data section and compares: a memory-bound pass over every byte.
// MAPPING keeps the bytes mapped while another thread runs this.
void verify_checksum(const std::string& path, const std::string& expected, const uint8_t* data, uint64_t size,
                     const std::shared_ptr<const MappedFile>& mapping) {
    (void)mapping;
    if (data_checksum(data, size) != expected)
        throw Error(path + ": the tensor data does not match its checksum: the file is damaged (re-download or "
                           "re-convert it)");
}

// A JSON value for a message: the file may hold a huge one.
std::string brief_dump(const Json& value) {
    std::string text = value.dump();
    return text.size() > 80 ? text.substr(0, 80) + "..." : text;
}

const Json& field(const std::string& path, const std::string& name, const Json& entry, const char* key) {
    auto found = entry.find(key);
    if (found == entry.end()) throw Error(path + ": tensor " + name + ": missing \"" + key + "\"");
    return *found;
}

DType parse_dtype(const std::string& path, const std::string& name, const Json& value) {
    if (!value.is_string()) throw Error(path + ": tensor " + name + ": \"dtype\" is not a string");
    for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::U8, DType::I8, DType::I32})
        if (value.get<std::string>() == dtype_name(dtype)) return dtype;
    throw Error(path + ": tensor " + name + ": unsupported dtype \"" + value.get<std::string>() +
                "\" (nmt reads F32, F16, BF16, U8, I8, I32)");
}

// The shape, and its size in bytes; fails rather than overflow.
Shape parse_shape(const std::string& path, const std::string& name, const Json& value, DType dtype,
                  uint64_t& byte_count) {
    std::string problem = path + ": tensor " + name + ": ";
    if (!value.is_array()) throw Error(problem + "\"shape\" is not an array");
    Shape shape;
    byte_count = dtype_size(dtype);
    for (const Json& dim : value) {
        if (!dim.is_number_unsigned())
            throw Error(problem + "shape " + brief_dump(value) + " has a dimension that is not a non-negative integer");
        uint64_t size = dim.get<uint64_t>();
        if (size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
            (size && byte_count > std::numeric_limits<uint64_t>::max() / size))
            throw Error(problem + "shape " + brief_dump(value) + " is too large");
        byte_count *= size;
        shape.push_back(static_cast<int64_t>(size));
    }
    return shape;
}

Span parse_offsets(const std::string& path, const std::string& name, const Json& value, uint64_t data_size) {
    bool pair = value.is_array() && value.size() == 2 && value[0].is_number_unsigned() && value[1].is_number_unsigned();
    if (!pair || value[0].get<uint64_t>() > value[1].get<uint64_t>())
        throw Error(path + ": tensor " + name + ": \"data_offsets\" " + brief_dump(value) +
                    " is not [begin, end] with 0 <= begin <= end");
    Span span{name, value[0].get<uint64_t>(), value[1].get<uint64_t>()};
    if (span.end > data_size)
        throw Error(path + ": truncated: tensor " + name + " needs bytes up to " + std::to_string(span.end) +
                    " but the data section has " + std::to_string(data_size));
    return span;
}

// The table entry: dtype, shape and where its bytes lie; the tensor is pointed
// at its bytes only once the whole table has been checked.
StoredTensor parse_tensor(const std::string& path, const std::string& name, const Json& entry, uint64_t data_size,
                          Span& span) {
    if (!entry.is_object()) throw Error(path + ": tensor " + name + ": entry is not a JSON object");
    StoredTensor tensor;
    tensor.dtype = parse_dtype(path, name, field(path, name, entry, "dtype"));
    uint64_t byte_count = 0;
    tensor.shape = parse_shape(path, name, field(path, name, entry, "shape"), tensor.dtype, byte_count);
    span = parse_offsets(path, name, field(path, name, entry, "data_offsets"), data_size);
    if (span.end - span.begin != byte_count)
        throw Error(path + ": tensor " + name + ": " + dtype_name(tensor.dtype) + " " + shape_to_string(tensor.shape) +
                    " needs " + std::to_string(byte_count) + " bytes but data_offsets hold " +
                    std::to_string(span.end - span.begin));
    return tensor;
}

// Like Python's reader: tensors must tile the data section exactly, with no
// overlap, gap or trailing bytes, so a damaged offset cannot go unnoticed.
void check_tiling(const std::string& path, std::vector<Span> spans, uint64_t data_size) {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    uint64_t covered = 0;
    const Span* previous = nullptr;
    for (const Span& span : spans) {
        // Which of the two is damaged cannot be told from the offsets alone.
        if (span.begin < covered)
            throw Error(path + ": tensors " + previous->name + " and " + span.name +
                        " overlap in the data section (bytes " + std::to_string(span.begin) + " to " +
                        std::to_string(std::min(covered, span.end)) + ")");
        if (span.begin > covered)
            throw Error(path + ": bytes " + std::to_string(covered) + " to " + std::to_string(span.begin) +
                        " of the data section belong to no tensor");
        covered = span.end;
        previous = &span;
    }
    if (covered != data_size)
        throw Error(path + ": the data section has " + std::to_string(data_size) + " bytes but the tensors end at " +
                    std::to_string(covered));
}

}  // namespace

SafetensorsFile read_safetensors(const std::string& path, const TableCheck& check_table, ChecksumCheck checksum_check) {
    const auto mapped = std::make_shared<const MappedFile>(path);
    const uint64_t length = header_length(path, *mapped);
    const Json header = parse_header(path, *mapped, length);
    const uint8_t* data = mapped->data() + 8 + length;
    const uint64_t data_size = mapped->size() - 8 - length;

    SafetensorsFile file;
    std::string checksum;
    std::map<std::string, Span> spans;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            file.metadata = parse_metadata(path, entry);
            checksum = take_checksum(path, file.metadata);
            continue;
        }
        file.tensors[name] = parse_tensor(path, name, entry, data_size, spans[name]);
    }
    if (check_table) check_table(file);
    std::vector<Span> layout;
    for (const auto& [name, span] : spans) layout.push_back(span);
    check_tiling(path, std::move(layout), data_size);
    for (auto& [name, tensor] : file.tensors) {
        const Span& span = spans.at(name);
        tensor.mapped = data + span.begin;
        tensor.mapped_size = span.end - span.begin;
        tensor.mapping = mapped;
    }
    file.has_checksum = !checksum.empty();
    if (file.has_checksum && checksum_check == ChecksumCheck::BeforeReturning)
        verify_checksum(path, checksum, data, data_size, mapped);
    else if (file.has_checksum)
        file.checksum_verification =
            std::async(std::launch::async, verify_checksum, path, checksum, data, data_size, mapped).share();
    return file;
}

void SafetensorsFile::wait_for_checksum() const {
    if (checksum_verification.valid()) checksum_verification.get();
}

std::map<std::string, std::string> read_safetensors_metadata(const std::string& path) {
    const MappedFile mapped(path);  // reads the header's pages only
    const uint64_t length = header_length(path, mapped);
    const Json header = parse_header(path, mapped, length);
    auto found = header.find("__metadata__");
    if (found == header.end()) return {};
    std::map<std::string, std::string> metadata = parse_metadata(path, *found);
    take_checksum(path, metadata);
    return metadata;
}

}  // namespace nmt
