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

}  // namespace nmt
