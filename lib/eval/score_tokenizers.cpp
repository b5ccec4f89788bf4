#include "eval/score_tokenizers.h"

#include "core/error.h"
#include "core/unicode_categories.h"

namespace nmt {

namespace {

std::string invalid_utf8(const std::string& where, size_t byte) {
    return where + ": invalid UTF-8 at byte " + std::to_string(byte + 1) +
           " (scores are computed on UTF-8 text)";
}

// Python's str.replace(): every non-overlapping occurrence, left to right.
void replace_all(std::u32string& s, const std::u32string& from, const std::u32string& to) {
    std::u32string out;
    size_t start = 0;
    for (size_t pos; (pos = s.find(from, start)) != std::u32string::npos; start = pos + from.size()) {
        out.append(s, start, pos - start);
        out += to;
    }
    if (start == 0) return;
    out.append(s, start, std::u32string::npos);
    s = std::move(out);
}

// re.sub of a two-character pattern `(A)(B)`: matches never overlap and the
// scan resumes after each one, so "a.." splits only the first dot. With
// `lead` the replacement is " \1 \2", otherwise "\1 \2 ".
template <class First, class Second>
std::u32string pad_pairs(const std::u32string& s, First first, Second second, bool lead) {
    std::u32string out;
    out.reserve(s.size() * 2);
    size_t i = 0;
    while (i < s.size()) {
        if (i + 1 < s.size() && first(s[i]) && second(s[i + 1])) {
            if (lead) out += U' ';
            out += s[i];
            out += U' ';
            out += s[i + 1];
            if (!lead) out += U' ';
            i += 2;
        } else {
            out += s[i++];
        }
    }
    return out;
}

// re.sub of a one-character pattern `(A)` with " \1 ".
template <class Pred>
std::u32string pad_each(const std::u32string& s, Pred pred) {
    std::u32string out;
    out.reserve(s.size() * 2);
    for (char32_t c : s) {
        if (pred(c)) {
            out += U' ';
            out += c;
            out += U' ';
        } else {
            out += c;
        }
    }
    return out;
}

// ' '.join(s.split()): Python's whitespace normalisation.
std::u32string join_words(const std::u32string& s) {
    std::u32string out;
    for (const auto& word : python_split(s)) {
        if (!out.empty()) out += U' ';
        out += word;
    }
    return out;
}

bool is_ascii_digit(char32_t c) { return c >= U'0' && c <= U'9'; }

// The first 13a regex's class [\{-\~\[-\` -\&\(-\+\:-\@\/]: ASCII
// punctuation except ' , - . (and space, which is harmless to pad).
bool is_13a_punctuation(char32_t c) {
    return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
           (c >= 0x28 && c <= 0x2B) || (c >= 0x3A && c <= 0x40) || c == 0x2F;
}

bool is_period_or_comma(char32_t c) { return c == U'.' || c == U','; }

// CPython's Final_Sigma test for the capital sigma at text[i].
bool is_final_sigma(const std::u32string& text, size_t i) {
    size_t j = i;
    while (j > 0 && is_case_ignorable(text[j - 1])) --j;
    if (j == 0 || !is_cased(text[j - 1])) return false;
    size_t k = i + 1;
    while (k < text.size() && is_case_ignorable(text[k])) ++k;
    return k == text.size() || !is_cased(text[k]);
}

}  // namespace

std::u32string utf8_to_u32(const std::string& text, const std::string& where) {
    std::u32string out;
    out.reserve(text.size());
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    size_t n = text.size();
    for (size_t i = 0; i < n;) {
        unsigned char b = s[i];
        if (b < 0x80) {
            out += b;
            ++i;
            continue;
        }
        int len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
        if (len == 0 || b > 0xF4 || i + len > n) throw Error(invalid_utf8(where, i));
        char32_t c = b & (0x3F >> (len - 1));
        for (int k = 1; k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) throw Error(invalid_utf8(where, i));
            c = (c << 6) | (s[i + k] & 0x3F);
        }
        static const char32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
        // Overlong forms, surrogates and values past U+10FFFF are invalid,
        // exactly the inputs Python's strict UTF-8 decoder rejects.
        if (c < kMinimum[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            throw Error(invalid_utf8(where, i));
        out += c;
        i += len;
    }
    return out;
}

std::string u32_to_utf8(const std::u32string& text) {
    std::string out;
    out.reserve(text.size());
    for (char32_t c : text) {
        if (c < 0x80) {
            out += static_cast<char>(c);
        } else if (c < 0x800) {
            out += static_cast<char>(0xC0 | (c >> 6));
            out += static_cast<char>(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out += static_cast<char>(0xE0 | (c >> 12));
            out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (c & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (c >> 18));
            out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (c & 0x3F));
        }
    }
    return out;
}

std::u32string python_lower(const std::u32string& text) {
    std::u32string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == 0x3A3)
            out += is_final_sigma(text, i) ? char32_t{0x3C2} : char32_t{0x3C3};
        else
            append_lower(text[i], out);
    }
    return out;
}

std::u32string python_rstrip(const std::u32string& text) {
    size_t end = text.size();
    while (end > 0 && is_space(text[end - 1])) --end;
    return text.substr(0, end);
}

std::vector<std::u32string> python_split(const std::u32string& text) {
    std::vector<std::u32string> words;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i])) ++i;
        size_t start = i;
        while (i < text.size() && !is_space(text[i])) ++i;
        if (i > start) words.emplace_back(text, start, i - start);
    }
    return words;
}

BleuTokenizer parse_bleu_tokenizer(const std::string& name) {
    if (name == "none") return BleuTokenizer::none;
    if (name == "13a") return BleuTokenizer::v13a;
    if (name == "intl") return BleuTokenizer::intl;
    throw Error("`tokenize`: unknown tokenizer '" + name + "' (expected none, 13a or intl)");
}

std::string tokenizer_signature(BleuTokenizer tokenizer) {
    switch (tokenizer) {
        case BleuTokenizer::none: return "none";
        case BleuTokenizer::v13a: return "13a";
        case BleuTokenizer::intl: return "intl";
    }
    return "";
}

std::u32string tokenize_13a(const std::u32string& input) {
    std::u32string line = input;
    replace_all(line, U"<skipped>", U"");
    replace_all(line, U"-\n", U"");
    replace_all(line, U"\n", U" ");
    // Order matters: "&amp;lt;" becomes "<", "&amp;quot;" stays "&quot;".
    replace_all(line, U"&quot;", U"\"");
    replace_all(line, U"&amp;", U"&");
    replace_all(line, U"&lt;", U"<");
    replace_all(line, U"&gt;", U">");

    line = U" " + line + U" ";
    line = pad_each(line, is_13a_punctuation);
    auto not_digit = [](char32_t c) { return !is_ascii_digit(c); };
    line = pad_pairs(line, not_digit, is_period_or_comma, false);
    line = pad_pairs(line, is_period_or_comma, not_digit, true);
    line = pad_pairs(line, is_ascii_digit, [](char32_t c) { return c == U'-'; }, false);
    return join_words(line);
}

std::u32string tokenize_intl(const std::u32string& input) {
    auto not_number = [](char32_t c) { return !is_number(c); };
    std::u32string line = pad_pairs(input, not_number, is_punctuation, false);
    line = pad_pairs(line, is_punctuation, not_number, true);
    line = pad_each(line, is_symbol);
    return join_words(line);
}

std::u32string tokenize(BleuTokenizer tokenizer, const std::u32string& line) {
    switch (tokenizer) {
        case BleuTokenizer::none: return line;
        case BleuTokenizer::v13a: return tokenize_13a(line);
        case BleuTokenizer::intl: return tokenize_intl(line);
    }
    return line;
}

std::vector<std::string> segment_references(const std::vector<std::vector<std::string>>& references,
                                            size_t segment) {
    std::vector<std::string> refs;
    for (const auto& stream : references)
        if (!stream.at(segment).empty()) refs.push_back(stream[segment]);
    if (refs.empty()) refs.emplace_back();
    return refs;
}

std::string nrefs_signature(const std::vector<std::vector<std::string>>& references) {
    size_t segments = references.empty() ? 0 : references.front().size();
    if (segments == 0) return std::to_string(references.size());
    size_t first = segment_references(references, 0).size();
    for (size_t i = 1; i < segments; ++i)
        if (segment_references(references, i).size() != first) return "var";
    return std::to_string(first);
}

}  // namespace nmt
