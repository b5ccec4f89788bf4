#include "core/tensor.h"

#include <cstdint>
#include <cstring>

namespace nmt {

std::string shape_to_string(const Shape& shape) {
    std::string out = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) out += ",";
        out += std::to_string(shape[i]);
    }
    return out + "]";
}

bool all_finite(const float* values, int64_t n) {
    uint32_t not_finite = 0;
    for (int64_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, values + i, 4);
        not_finite |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    }
    return not_finite == 0;
}

bool all_finite(const Tensor& t) { return all_finite(t.data(), t.size()); }

}  // namespace nmt
