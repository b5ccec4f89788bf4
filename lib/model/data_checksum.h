// The checksum of a safetensors file's data section (every tensor's bytes, in
// file order) that nmt stores in the header's __metadata__, so that a flipped
// bit in the weights is refused instead of translated with: XXH3-64 from
// xxHash, as 16 lowercase hex digits (what `xxhsum -H3` prints for the same
// bytes). One hash of the whole section rather than one per tensor: the
// loader reads every tensor anyway, one value is all a header needs, and any
// tool can check it over the bytes after the header. XXH3 hashes at memory
// speed (6-9 ms of CPU for the 40 MB of models/en-fr.nmt); core/sha256.h took
// 470 ms over the same file, and a check against accidental damage needs no
// cryptographic hash.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace nmt {

// The __metadata__ key. Python's safetensors keeps it as any other string.
inline constexpr const char* kDataChecksumKey = "data_xxh3_64";

// Hashes the data section as it is written, a tensor at a time.
class DataChecksum {
public:
    DataChecksum();
    ~DataChecksum();
    DataChecksum(const DataChecksum&) = delete;
    DataChecksum& operator=(const DataChecksum&) = delete;

    void add(const void* data, size_t size);
    std::string hex() const;  // of everything added so far

private:
    struct State;
    std::unique_ptr<State> state_;
};

// The checksum of SIZE bytes in one piece, as DataChecksum::hex writes it.
std::string data_checksum(const void* data, size_t size);

// Whether TEXT is a checksum as written: 16 lowercase hex digits.
bool is_data_checksum(const std::string& text);

}  // namespace nmt
