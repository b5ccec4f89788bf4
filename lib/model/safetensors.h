// The safetensors container: an 8-byte little-endian header length, a JSON
// header mapping tensor names to {dtype, shape, data_offsets}, an optional
// "__metadata__" object of strings, then the raw little-endian tensor bytes.
// Python's `safetensors` opens what we write, and we refuse anything malformed
// with a message naming the file and the problem. Every file we write stores
// a checksum of its tensor bytes (model/data_checksum.h) in __metadata__, and
// reading verifies it when a file has one.
#pragma once
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace nmt {

// I8 holds a weight matrix stored for int8 decoding (model/model.h), beside
// its F32 scales.
enum class DType { F32, F16, BF16, U8, I8, I32 };

std::string dtype_name(DType dtype);  // "F32", "F16", "BF16", "U8", "I8", "I32"
size_t dtype_size(DType dtype);

// Bit-level conversions, exposed so tests can pin them. Narrowing rounds to
// nearest, ties to even; NaN stays NaN and overflow becomes infinity.
uint16_t f32_to_f16(float value);
float f16_to_f32(uint16_t bits);
uint16_t f32_to_bf16(float value);
float bf16_to_f32(uint16_t bits);

struct StoredTensor {
    DType dtype = DType::F32;
    Shape shape;
    std::vector<uint8_t> bytes;  // raw little-endian, shape_size(shape) * dtype_size(dtype) bytes
    // A tensor read from a file is not copied into `bytes`: it points into the
    // file's memory map, which `mapping` keeps open (loading converts straight
    // from the map, and a model's raw bytes are never held twice).
    const uint8_t* mapped = nullptr;
    std::shared_ptr<const void> mapping;

    // The raw bytes, wherever they are.
    const uint8_t* data() const { return mapped ? mapped : bytes.data(); }
    size_t byte_size() const { return mapped ? mapped_size : bytes.size(); }
    size_t mapped_size = 0;

    // Float tensors of any stored float dtype, converted to f32.
    Tensor to_float() const;
    // Values [first, first + count) of a float tensor, converted into out.
    void to_float(int64_t first, int64_t count, float* out) const;
    // No NaN or infinity among the values of a float tensor: read from the
    // stored bits (a finite f16 or bf16 value converts to a finite float).
    bool all_finite() const;
    static StoredTensor from_float(const Tensor& tensor, DType dtype = DType::F32);
    static StoredTensor from_bytes(const std::string& bytes);  // U8, 1-D
    std::string as_string() const;                             // U8 bytes back to a string
    static StoredTensor from_ints(const std::vector<int32_t>& values, Shape shape);  // I32
    std::vector<int32_t> to_ints() const;                                           // I32 back to ints
    static StoredTensor from_int8(const int8_t* values, Shape shape);                 // I8
};

struct SafetensorsFile {
    // "__metadata__": string values only, per the format. Without the data
    // checksum, which the container writes and checks itself.
    std::map<std::string, std::string> metadata;
    std::map<std::string, StoredTensor> tensors;

    // Of a file read: whether its header stores a checksum of the data
    // section. read_safetensors has verified it, or with
    // ChecksumCheck::Overlapped is verifying it until wait_for_checksum().
    bool has_checksum = false;
    std::shared_future<void> checksum_verification;  // the check under way (Overlapped only)
    // Returns once the check under way has passed; throws nmt::Error "PATH:
    // the tensor data does not match its checksum..." if it failed. Returns
    // at once when none is under way.
    void wait_for_checksum() const;
};

// When read_safetensors verifies the data checksum: before it returns, or on
// another thread while the caller goes on to convert the tensors (hashing a
// 40 MB model costs 10-20 ms, a memory-bound pass over every byte). A caller
// that overlaps must call wait_for_checksum() before trusting a value, and
// should call it before reporting any other problem it finds in the data:
// then a damaged file is named as damaged, not by what the damage did.
enum class ChecksumCheck { BeforeReturning, Overlapped };

// Writes PATH as write_output_file does: a regular file through PATH.tmp and a
// rename, so a reader (or a killed writer) never sees a half-written file; a
// device or FIFO in place; through a symbolic link, its target. Tensors are laid out as
// Python's safetensors lays them out (widest dtype first, then by name), so
// every tensor starts aligned to its element size.
void write_safetensors(const std::string& path, const SafetensorsFile& file);

// Reads and validates: file size, header length, JSON, dtypes, shapes,
// offsets inside the data section, no overlaps or gaps, and the data
// checksum when the header stores one (files without one, written before nmt
// stored it or by other tools, still load). Throws nmt::Error "PATH: problem"
// on anything wrong.
//
// CHECK_TABLE, when given, sees the metadata and the tensor table (names,
// dtypes, shapes; bytes still empty) before the layout of the data section
// is checked and any tensor is read. A reader that knows which tensors it
// needs checks names there, so that a tensor missing from the table is
// reported by its name rather than as the bytes it leaves behind.
using TableCheck = std::function<void(const SafetensorsFile& table)>;
SafetensorsFile read_safetensors(const std::string& path, const TableCheck& check_table = nullptr,
                                 ChecksumCheck checksum = ChecksumCheck::BeforeReturning);

// The header's __metadata__ alone (empty when it has none), reading only the
// header: to tell what kind of file a path holds before loading all of it.
// Without the data checksum, as SafetensorsFile::metadata.
std::map<std::string, std::string> read_safetensors_metadata(const std::string& path);

}  // namespace nmt
