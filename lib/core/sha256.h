// SHA-256 (FIPS 180-4), small and self-contained, so that a trained model can
// name the exact data it was trained on (provenance) without a crypto library.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace nmt {

class Sha256 {
public:
    Sha256();
    void update(const void* data, size_t size);
    void update(const std::string& bytes) { update(bytes.data(), bytes.size()); }
    std::string hex_digest();  // 64 lowercase hex digits; ends the computation

private:
    void compress(const uint8_t* block);

    uint32_t state_[8];
    uint8_t buffer_[64];
    size_t buffered_ = 0;
    uint64_t total_bytes_ = 0;
};

std::string sha256_hex(const std::string& bytes);
// Streams the file; throws nmt::Error "PATH: cannot read" when it cannot.
std::string sha256_file(const std::string& path);

}  // namespace nmt
