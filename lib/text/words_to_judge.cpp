#include "text/words_to_judge.h"

namespace nmt {

namespace {

bool is_word_byte(unsigned char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c >= 0x80; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool starts_with(std::string_view text, size_t at, std::string_view prefix) {
    return text.compare(at, prefix.size(), prefix) == 0;
}

// The length of the placeholder, tag or URL at `at`, or 0 when there is none.
size_t noise_at(std::string_view text, size_t at) {
    const char c = text[at];
    if (c == '<') {  // a tag: "<b>", "</a>", "<!-- -->", closed within a line's reach
        if (at + 1 == text.size()) return 0;
        const unsigned char next = static_cast<unsigned char>(text[at + 1]);
        if (!(next == '/' || next == '!' || ((next | 0x20) >= 'a' && (next | 0x20) <= 'z'))) return 0;
        for (size_t end = at + 1; end < text.size() && end < at + 200; ++end) {
            if (text[end] == '<' || text[end] == '\n') return 0;
            if (text[end] == '>') return end + 1 - at;
        }
        return 0;
    }
    if (c == '{') {  // {name}, {0}: one word
        for (size_t end = at + 1; end < text.size() && end < at + 40; ++end) {
            if (text[end] == '}') return end + 1 - at;
            if (is_space(text[end]) || text[end] == '{') return 0;
        }
        return 0;
    }
    if (c == '%') {  // %s, %1$s, %-10.2lf, %1 (Qt), %%
        size_t end = at + 1;
        while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == '$')) ++end;
        if (end > at + 1 && (end == text.size() || !((text[end] | 0x20) >= 'a' && (text[end] | 0x20) <= 'z')))
            return end - at;  // Qt's %1
        // No space flag: "100% sure" is prose.
        while (end < text.size() && std::string_view("-+#0123456789.").find(text[end]) != std::string_view::npos &&
               end < at + 12)
            ++end;
        while (end < text.size() && std::string_view("hlLzjtq").find(text[end]) != std::string_view::npos) ++end;
        if (end < text.size() && std::string_view("diouxXeEfFgGaAcspn%").find(text[end]) != std::string_view::npos)
            return end + 1 - at;
        return 0;
    }
    if (starts_with(text, at, "http://") || starts_with(text, at, "https://") || starts_with(text, at, "www.")) {
        size_t end = at;
        while (end < text.size() && !is_space(text[end])) ++end;
        return end - at;
    }
    return 0;
}

}  // namespace

std::string words_to_judge(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        if (const size_t noise = noise_at(text, i)) {
            out += ' ';
            i += noise;
            continue;
        }
        const char c = text[i];
        // An accelerator mark: '_' or '&' just before a letter, at a word's
        // start or inside it ("_Open", "Na_chtmodus", "&Datei").
        if ((c == '_' || c == '&') && i + 1 < text.size() && is_word_byte(static_cast<unsigned char>(text[i + 1])) &&
            text[i + 1] != '_') {
            ++i;
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

}  // namespace nmt
