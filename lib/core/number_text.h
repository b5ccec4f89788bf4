// Numbers as reports print them.
#pragma once
#include <cstdio>
#include <string>

namespace nmt {

// value with exactly `decimals` digits after the point ("%.*f").
inline std::string fixed_decimals(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

}  // namespace nmt
