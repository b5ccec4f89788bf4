// The safetensors container: an 8-byte little-endian header length, a JSON
// header mapping tensor names to {dtype, shape, data_offsets}, an optional
// "__metadata__" object of strings, then the raw little-endian tensor bytes.
// Python's `safetensors` opens what we write, and we refuse anything malformed
// with a message naming the file and the problem.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace nmt {

enum class DType { F32, F16, BF16, U8, I32 };

std::string dtype_name(DType dtype);  // "F32", "F16", "BF16", "U8", "I32"
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
};

struct SafetensorsFile {
    std::map<std::string, std::string> metadata;  // "__metadata__": string values only, per the format
    std::map<std::string, StoredTensor> tensors;
};

// Writes PATH as write_output_file does: a regular file through PATH.tmp and a
// rename, so a reader (or a killed writer) never sees a half-written file; a
// device or FIFO in place; through a symbolic link, its target. Tensors are laid out as
// Python's safetensors lays them out (widest dtype first, then by name), so
// every tensor starts aligned to its element size.
void write_safetensors(const std::string& path, const SafetensorsFile& file);

// Reads and validates: file size, header length, JSON, dtypes, shapes,
// offsets inside the data section, no overlaps or gaps. Throws nmt::Error
// "PATH: problem" on anything wrong.
//
// CHECK_TABLE, when given, sees the metadata and the tensor table (names,
// dtypes, shapes; bytes still empty) before the layout of the data section
// is checked and any tensor is read. A reader that knows which tensors it
// needs checks names there, so that a tensor missing from the table is
// reported by its name rather than as the bytes it leaves behind.
using TableCheck = std::function<void(const SafetensorsFile& table)>;
SafetensorsFile read_safetensors(const std::string& path, const TableCheck& check_table = nullptr);

// The header's __metadata__ alone (empty when it has none), reading only the
// header: to tell what kind of file a path holds before loading all of it.
std::map<std::string, std::string> read_safetensors_metadata(const std::string& path);

}  // namespace nmt
