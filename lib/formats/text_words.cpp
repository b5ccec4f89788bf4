#include "formats/text_words.h"

namespace nmt {

namespace {

size_t space_at(const std::string& text, size_t i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') return 1;
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xA0) return 2;  // U+00A0
    if (c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80) {
        const unsigned char last = static_cast<unsigned char>(text[i + 2]);
        if (last == 0xAF || last == 0x89) return 3;  // U+202F, U+2009
    }
    return 0;
}

}  // namespace

std::vector<ByteSpan> text_words(const std::string& text) {
    std::vector<ByteSpan> words;
    size_t i = 0;
    while (i < text.size()) {
        if (const size_t space = space_at(text, i)) {
            i += space;
            continue;
        }
        const size_t begin = i;
        while (i < text.size() && space_at(text, i) == 0) ++i;
        words.push_back({begin, i});
    }
    return words;
}

}  // namespace nmt
