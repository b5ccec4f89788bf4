#include "text/glossary.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/unicode_categories.h"

namespace nmt {

namespace {

// The character starting at text[i] and its length in bytes; 0 when the
// bytes there are not well-formed UTF-8 (overlong forms, surrogates and
// values past U+10FFFF included).
size_t decode_at(const std::string& text, size_t i, char32_t& c) {
    const unsigned char b0 = static_cast<unsigned char>(text[i]);
    if (b0 < 0x80) {
        c = b0;
        return 1;
    }
    size_t length;
    char32_t min;
    if ((b0 & 0xE0) == 0xC0) {
        length = 2, c = b0 & 0x1F, min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        length = 3, c = b0 & 0x0F, min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        length = 4, c = b0 & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    for (size_t k = 1; k < length; ++k) {
        const unsigned char b = static_cast<unsigned char>(text[i + k]);
        if ((b & 0xC0) != 0x80) return 0;
        c = (c << 6) | (b & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    return length;
}

bool valid_utf8(const std::string& text) {
    char32_t c = 0;
    for (size_t i = 0; i < text.size();) {
        const size_t length = decode_at(text, i, c);
        if (length == 0) return false;
        i += length;
    }
    return true;
}

// Letters, digits and marks make words; spaces, punctuation and symbols
// separate them. Bytes that are not UTF-8 count as word characters, so a
// term is never found by splitting one.
bool word_character(char32_t c) { return !is_space(c) && !is_punctuation(c) && !is_symbol(c); }

bool word_character_at(const std::string& text, size_t i) {
    char32_t c = 0;
    return decode_at(text, i, c) == 0 || word_character(c);
}

// Whether the character that ends just before byte i is a word character.
bool word_character_before(const std::string& text, size_t i) {
    size_t start = i;
    while (start > 0 && i - start < 4) {
        --start;
        if ((static_cast<unsigned char>(text[start]) & 0xC0) != 0x80) break;
    }
    char32_t c = 0;
    return decode_at(text, start, c) != i - start || word_character(c);
}

// The bytes of the word (word characters) starting at i.
size_t word_end(const std::string& text, size_t i) {
    char32_t c = 0;
    while (i < text.size()) {
        const size_t length = decode_at(text, i, c);
        if (length != 0 && !word_character(c)) break;
        i += length == 0 ? 1 : length;
    }
    return i;
}

std::string trim(const std::string& text) {
    const size_t begin = text.find_first_not_of(" \t");
    if (begin == std::string::npos) return "";
    return text.substr(begin, text.find_last_not_of(" \t") + 1 - begin);
}

std::string match_key(const GlossaryTerm& term) { return term.case_sensitive ? term.source : fold_case(term.source); }

}  // namespace

std::string fold_case(const std::string& text) {
    std::string folded = text;
    for (size_t i = 0; i < folded.size(); ++i) {
        const unsigned char b = static_cast<unsigned char>(folded[i]);
        if (b >= 'A' && b <= 'Z') {
            folded[i] = static_cast<char>(b + 32);
        } else if (b == 0xC3 && i + 1 < folded.size()) {
            const unsigned char next = static_cast<unsigned char>(folded[i + 1]);
            if (next >= 0x80 && next <= 0x9E && next != 0x97) folded[i + 1] = static_cast<char>(next + 0x20);
            ++i;
        }
    }
    return folded;
}

std::vector<size_t> find_whole_words(const std::string& text, const std::string& phrase, bool case_sensitive) {
    std::vector<size_t> found;
    if (phrase.empty()) return found;
    const std::string haystack = case_sensitive ? text : fold_case(text);
    const std::string needle = case_sensitive ? phrase : fold_case(phrase);
    for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) {
        const size_t end = at + needle.size();
        if (at > 0 && word_character_at(text, at) && word_character_before(text, at)) continue;
        if (end < text.size() && word_character_before(text, end) && word_character_at(text, end)) continue;
        found.push_back(at);
        at = end - 1;
    }
    return found;
}

Glossary Glossary::load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open the glossary: " + std::strerror(errno));
    std::string text;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, static_cast<size_t>(in.gcount()));
        if (text.size() > kMaxGlossaryBytes)
            throw Error(path + ": larger than " + std::to_string(kMaxGlossaryBytes >> 20) +
                        " MB; a glossary is a list of terms");
    }
    if (in.bad()) throw Error(path + ": cannot read the glossary: " + std::strerror(errno));
    return parse(text, path);
}

Glossary Glossary::parse(const std::string& text, const std::string& name) {
    if (text.size() > kMaxGlossaryBytes)
        throw Error(name + ": larger than " + std::to_string(kMaxGlossaryBytes >> 20) +
                    " MB; a glossary is a list of terms");
    Glossary glossary;
    size_t start = 0, number = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        ++number;
        const std::string where = name + ":" + std::to_string(number) + ": ";
        if (line.size() > kMaxGlossaryLineBytes)
            throw Error(where + "longer than " + std::to_string(kMaxGlossaryLineBytes) + " bytes");
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (number == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // a byte order mark
        if (!valid_utf8(line)) throw Error(where + "invalid UTF-8");
        if (line.find('\0') != std::string::npos) throw Error(where + "holds a NUL byte");
        const std::string content = trim(line);
        if (content.empty() || content[0] == '#') continue;
        std::vector<std::string> fields;
        std::istringstream columns(line);
        for (std::string field; std::getline(columns, field, '\t');) fields.push_back(trim(field));
        if (line.back() == '\t') fields.emplace_back();
        if (fields.size() < 2) throw Error(where + "no tab between the source term and the target term");
        if (fields.size() > 3)
            throw Error(where + "more than three columns (source, target, and case-sensitive or case-insensitive)");
        GlossaryTerm term{fields[0], fields[1], false};
        if (term.source.empty()) throw Error(where + "empty source term");
        if (term.target.empty()) throw Error(where + "empty target term");
        if (fields.size() == 3) {
            if (fields[2] == "case-sensitive") {
                term.case_sensitive = true;
            } else if (fields[2] != "case-insensitive" && !fields[2].empty()) {
                throw Error(where + "the third column must be case-sensitive or case-insensitive, not '" + fields[2] +
                            "'");
            }
        }
        glossary.add(std::move(term), where);
    }
    return glossary;
}

void Glossary::add(GlossaryTerm term, const std::string& where) {
    const std::string key = (term.case_sensitive ? "s" : "i") + match_key(term);
    if (const auto it = index_.find(key); it != index_.end()) {
        const GlossaryTerm& other = terms_[it->second];
        if (other.target == term.target) return;  // said twice: one term
        throw Error(where + "'" + term.source + "' is already in the glossary with the target '" + other.target +
                    "', not '" + term.target + "'");
    }
    if (terms_.size() >= kMaxGlossaryTerms)
        throw Error(where + "more than " + std::to_string(kMaxGlossaryTerms) + " terms");
    const std::string folded = fold_case(term.source);
    const size_t first_word = word_end(folded, 0);
    if (first_word == 0) {
        other_starts_.push_back(terms_.size());
    } else {
        by_first_word_[folded.substr(0, first_word)].push_back(terms_.size());
    }
    index_.emplace(key, terms_.size());
    terms_.push_back(std::move(term));
}

std::vector<TermMatch> Glossary::find(const std::string& text) const {
    std::vector<TermMatch> found;
    if (terms_.empty()) return found;
    const std::string folded = fold_case(text);
    // The best term starting at byte i that fits there as whole words.
    auto best_at = [&](size_t i, const std::vector<size_t>& candidates, TermMatch& best) {
        for (size_t index : candidates) {
            const GlossaryTerm& term = terms_[index];
            const std::string& haystack = term.case_sensitive ? text : folded;
            const std::string key = term.case_sensitive ? term.source : fold_case(term.source);
            if (haystack.compare(i, key.size(), key) != 0) continue;
            const size_t end = i + key.size();
            // A term that ends with a word character must not go on into a word.
            if (word_character_before(text, end) && end < text.size() && word_character_at(text, end)) continue;
            const size_t length = end - i;
            if (length > best.end - best.begin ||
                (length == best.end - best.begin && term.case_sensitive && !best.term->case_sensitive))
                best = {i, end, &term};
        }
    };
    size_t i = 0;
    while (i < text.size()) {
        TermMatch best{i, i, nullptr};
        const bool starts_word = word_character_at(text, i) && (i == 0 || !word_character_before(text, i));
        char32_t c = 0;
        const size_t length = decode_at(text, i, c);
        const size_t next = word_character_at(text, i) ? word_end(text, i) : i + std::max<size_t>(1, length);
        if (starts_word) {
            const auto it = by_first_word_.find(folded.substr(i, next - i));
            if (it != by_first_word_.end()) best_at(i, it->second, best);
        } else if (!word_character_at(text, i)) {
            best_at(i, other_starts_, best);
        }
        if (best.term) {
            found.push_back(best);
            i = best.end;
        } else {
            i = std::max(next, i + 1);
        }
    }
    return found;
}

}  // namespace nmt
