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

bool all_finite(const Tensor& t) {
    uint32_t not_finite = 0;
    for (float v : t.values) {
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        not_finite |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    }
    return not_finite == 0;
}

}  // namespace nmt
