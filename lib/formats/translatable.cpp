#include "formats/translatable.h"

#include <cctype>

#include "decode/placeholders.h"

namespace nmt {

bool has_letters_outside_placeholders(const std::string& text) {
    std::string rest = text;
    for (const auto& placeholder : find_placeholders(text)) {
        const size_t at = rest.find(placeholder);
        if (at != std::string::npos) rest.erase(at, placeholder.size());
    }
    for (char c : rest)
        if (std::isalpha(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) return true;
    return false;
}

}  // namespace nmt
