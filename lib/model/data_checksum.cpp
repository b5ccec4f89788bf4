#include "model/data_checksum.h"

#include <cstdio>

#include <xxhash.h>

#include "core/error.h"

namespace nmt {

namespace {

std::string to_hex(XXH64_hash_t hash) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

}  // namespace

struct DataChecksum::State {
    XXH3_state_t* xxh3 = XXH3_createState();
};

DataChecksum::DataChecksum() : state_(std::make_unique<State>()) {
    if (!state_->xxh3 || XXH3_64bits_reset(state_->xxh3) != XXH_OK) throw Error("cannot start an XXH3 checksum");
}

DataChecksum::~DataChecksum() { XXH3_freeState(state_->xxh3); }

void DataChecksum::add(const void* data, size_t size) {
    if (size) XXH3_64bits_update(state_->xxh3, data, size);
}

std::string DataChecksum::hex() const { return to_hex(XXH3_64bits_digest(state_->xxh3)); }

std::string data_checksum(const void* data, size_t size) { return to_hex(XXH3_64bits(data, size)); }

bool is_data_checksum(const std::string& text) {
    if (text.size() != 16) return false;
    for (char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

}  // namespace nmt
