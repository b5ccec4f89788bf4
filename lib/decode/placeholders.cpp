#include "decode/placeholders.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace nmt {

namespace {

// Addresses: e-mail addresses, host names that start with www, and host
// names that end in a common top-level domain (a list, so that "e.g." or
// "file.txt" are not taken for one). The model translates their words
// ("www.example.com" -> "www.exemple.com"), and a mail or web address
// changed by one letter reaches someone else.
#define NMT_ADDRESS_PATTERN                                                                                  \
    R"([A-Za-z0-9._+-]*[A-Za-z0-9_+-]@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]*[A-Za-z0-9])+)" \
    R"(|www\d?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)"                                              \
    R"(|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*)"             \
    R"(\.(?:com|org|net|edu|gov|int|info|io|dev|eu|fr|de|ch|at|be|uk|ca|us|nl|it|es)(?![A-Za-z0-9_@-]))"

const std::regex& address_pattern() {
    static const std::regex pattern(NMT_ADDRESS_PATTERN, std::regex::optimize);
    return pattern;
}

// The alternatives of tools/count_placeholders.py, in ECMAScript syntax.
const std::regex& placeholder_pattern() {
    static const std::regex pattern(
        R"((?:https?|ftp)://[^\s<>"']*[^\s<>"'.,;:!?)\]])"
        "|" NMT_ADDRESS_PATTERN
        R"(|%(?:\d+\$)?[-+0#']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|Z|t)?[diouxXeEfFgGaAcspn])"
        R"(|%%)"
        R"(|%\(\w+\)[-+0#]*\d*(?:\.\d+)?[diouxXeEfFgGcrs])"
        R"(|%\d+)"
        R"(|\$\{\w+\})"
        R"(|\{[\w.:!<>^=+]*\})"
        R"(|</?(?:a|b|i|u|s|p|br|hr|tt|em|strong|span|big|small|sub|sup|code|kbd|var|pre|div|li|ul|ol|qt|nobr)"
        R"(|h[1-6]|img|font|table|tr|td|th|html|body|center|cite|blockquote)(?:\s[^<>]*)?/?>)"
        R"(|&(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);)",
        std::regex::optimize);
    return pattern;
}

// Most lines hold none of the characters a placeholder starts with, and
// no '@' or "www" or '.' before a letter that an address needs: skip the regex.
bool may_hold_placeholders(const std::string& text) {
    if (text.find_first_of("%{<&$:@") != std::string::npos || text.find("www") != std::string::npos) return true;
    for (size_t dot = text.find('.'); dot != std::string::npos; dot = text.find('.', dot + 1))
        if (dot > 0 && dot + 1 < text.size() && std::isalpha(static_cast<unsigned char>(text[dot + 1])) &&
            std::isalnum(static_cast<unsigned char>(text[dot - 1])))
            return true;
    return false;
}

bool is_address(const std::string& placeholder) { return std::regex_match(placeholder, address_pattern()); }

struct Match {
    size_t begin, length;
    std::string text;
};

void add_matches(const std::string& text, const std::regex& pattern, std::vector<Match>& found) {
    for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it)
        if (it->length() > 0)
            found.push_back({static_cast<size_t>(it->position()), static_cast<size_t>(it->length()), it->str()});
}

// The first to start wins, the longer of two that start together.
std::vector<Match> without_overlaps(std::vector<Match> found) {
    std::stable_sort(found.begin(), found.end(), [](const Match& a, const Match& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.length > b.length;
    });
    std::vector<Match> kept;
    for (auto& m : found)
        if (kept.empty() || m.begin >= kept.back().begin + kept.back().length) kept.push_back(std::move(m));
    return kept;
}

std::vector<Match> matches(const std::string& text, const PlaceholderOptions& options = {}) {
    std::vector<Match> found;
    if (may_hold_placeholders(text)) add_matches(text, placeholder_pattern(), found);
    if (options.keep_verbatim.empty()) return found;
    for (const auto& pattern : options.keep_verbatim) add_matches(text, pattern, found);
    return without_overlaps(std::move(found));
}

// Removes the first occurrence of each of `wanted` from `pool`; returns what
// of `wanted` was not there, in order.
std::vector<std::string> take_each(std::vector<std::string>& pool, const std::vector<std::string>& wanted) {
    std::vector<std::string> absent;
    for (const auto& w : wanted) {
        const auto it = std::find(pool.begin(), pool.end(), w);
        if (it == pool.end()) {
            absent.push_back(w);
        } else {
            pool.erase(it);
        }
    }
    return absent;
}

std::vector<std::string> split_spaces(const std::string& text) {
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string word; in >> word;) words.push_back(word);
    return words;
}

std::string join_spaces(const std::vector<std::string>& words) {
    std::string text;
    for (const auto& w : words) {
        if (!text.empty()) text += ' ';
        text += w;
    }
    return text;
}

// The target word before which a dropped placeholder goes: the one that
// attended most to the source word holding it. -1 when the attention does
// not describe these words.
int insertion_word(const std::string& placeholder, const WordAttention& words, size_t translation_words,
                   std::vector<bool>& source_word_used) {
    if (words.weights.empty() || words.target.size() != translation_words + 1) return -1;  // + "</s>"
    for (size_t s = 0; s + 1 < words.source.size(); ++s) {
        if (source_word_used[s] || words.source[s].text.find(placeholder) == std::string::npos) continue;
        source_word_used[s] = true;
        int best = -1;
        float best_weight = -1;
        for (size_t t = 0; t < translation_words; ++t)
            if (words.weights[t][s] > best_weight) {
                best_weight = words.weights[t][s];
                best = static_cast<int>(t);
            }
        return best;
    }
    return -1;
}

}  // namespace

std::vector<std::string> find_placeholders(const std::string& text, const PlaceholderOptions& options) {
    std::vector<std::string> found;
    for (auto& m : matches(text, options)) found.push_back(std::move(m.text));
    return found;
}

std::vector<std::pair<size_t, size_t>> placeholder_spans(const std::string& text, const PlaceholderOptions& options) {
    std::vector<std::pair<size_t, size_t>> spans;
    for (const auto& m : matches(text, options)) spans.emplace_back(m.begin, m.begin + m.length);
    return spans;
}

std::vector<std::pair<size_t, size_t>> verbatim_spans(const std::string& text, const PlaceholderOptions& options) {
    std::vector<Match> found;
    for (const auto& pattern : options.keep_verbatim) add_matches(text, pattern, found);
    std::vector<std::pair<size_t, size_t>> spans;
    for (const auto& m : without_overlaps(std::move(found))) spans.emplace_back(m.begin, m.begin + m.length);
    return spans;
}

namespace {

// Multisets compared: each placeholder as often, in any order.
bool same_placeholders(std::vector<std::string> a, std::vector<std::string> b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
}

// Whether a target word can be a piece of `address`: it holds an '@' or a
// '.' inside it, or four letters of the address in a row. A word the model
// translated from a word of the address ("prise en charge" from "support@")
// has none of these and stays.
bool address_piece(const std::string& word, const std::string& address) {
    if (word.find('@') != std::string::npos) return true;
    for (size_t dot = word.find('.'); dot != std::string::npos; dot = word.find('.', dot + 1))
        if (dot + 1 < word.size() && std::isalnum(static_cast<unsigned char>(word[dot + 1]))) return true;
    for (size_t i = 0; i + 4 <= word.size(); ++i)
        if (address.find(word.substr(i, 4)) != std::string::npos) return true;
    return false;
}

// An address the model translated comes back in pieces ("john.doe@
// exemples.org"), each a word that looked mostly at the source word holding
// it: the first run of such words that look like pieces of it becomes the
// address itself. Only where the attention describes the translation's
// words; `missing` loses what is put back.
std::string put_back_addresses(const std::string& translation, std::vector<std::string>& missing,
                               const WordAttention& words) {
    std::vector<std::string> tokens = split_spaces(translation);
    if (words.weights.empty() || words.target.size() != tokens.size() + 1) return translation;  // + "</s>"
    // Each target word's most attended source word ("</s>" excluded).
    std::vector<int> looked_at(tokens.size(), -1);
    for (size_t t = 0; t < tokens.size(); ++t) {
        float best = -1;
        for (size_t s = 0; s + 1 < words.source.size(); ++s)
            if (words.weights[t][s] > best) {
                best = words.weights[t][s];
                looked_at[t] = static_cast<int>(s);
            }
    }
    std::vector<bool> replaced(tokens.size(), false);
    for (auto address = missing.begin(); address != missing.end();) {
        int source_word = -1;
        for (size_t s = 0; s + 1 < words.source.size() && source_word < 0; ++s)
            if (words.source[s].text.find(*address) != std::string::npos) source_word = static_cast<int>(s);
        auto piece = [&](size_t t) {
            return looked_at[t] == source_word && !replaced[t] && address_piece(tokens[t], *address);
        };
        size_t first = 0;
        while (first < tokens.size() && !piece(first)) ++first;
        if (!is_address(*address) || source_word < 0 || first == tokens.size()) {
            ++address;
            continue;
        }
        size_t end = first + 1;
        while (end < tokens.size() && piece(end)) ++end;
        tokens[first] = *address;
        replaced[first] = true;
        for (size_t t = first + 1; t < end; ++t) {
            tokens[t].clear();
            replaced[t] = true;
        }
        address = missing.erase(address);
    }
    std::vector<std::string> kept;
    for (auto& token : tokens)
        if (!token.empty()) kept.push_back(std::move(token));
    return join_spaces(kept);
}

std::string repair(const std::string& source, const std::vector<std::string>& wanted, const std::string& given,
                   const WordAttention* words) {
    std::string translation = given;
    if (words) {
        std::vector<std::string> extra;
        for (const auto& m : matches(translation)) extra.push_back(m.text);
        std::vector<std::string> missing = take_each(extra, wanted);
        const bool any_address =
            std::any_of(missing.begin(), missing.end(), [](const std::string& p) { return is_address(p); });
        if (any_address) translation = put_back_addresses(translation, missing, *words);
    }
    const auto present = matches(translation);
    std::vector<std::string> extra;
    for (const auto& m : present) extra.push_back(m.text);
    std::vector<std::string> missing = take_each(extra, wanted);
    if (missing.empty() && extra.empty()) return translation;

    // Replace each extra (a garbled copy or an invention) by the next missing
    // one, or remove it; right to left so that earlier offsets stay valid.
    std::vector<std::string> unmatched_extra = extra;
    std::vector<std::pair<const Match*, std::string>> edits;  // in text order
    size_t next_missing = 0;
    for (const auto& m : present) {
        const auto it = std::find(unmatched_extra.begin(), unmatched_extra.end(), m.text);
        if (it == unmatched_extra.end()) continue;
        unmatched_extra.erase(it);
        edits.emplace_back(&m, next_missing < missing.size() ? missing[next_missing++] : std::string());
    }
    std::string text = translation;
    for (auto e = edits.rbegin(); e != edits.rend(); ++e) text.replace(e->first->begin, e->first->length, e->second);
    missing.erase(missing.begin(), missing.begin() + static_cast<std::ptrdiff_t>(next_missing));
    if (missing.empty()) return join_spaces(split_spaces(text));

    // Insert what is still missing where the model looked for it.
    std::vector<std::string> tokens = split_spaces(text);
    const size_t translation_words = split_spaces(translation).size();
    const bool words_intact = tokens.size() == translation_words;  // the edits removed no whole word
    std::vector<std::vector<std::string>> before(tokens.size() + 1);
    std::vector<bool> source_word_used(words ? words->source.size() : 0, false);
    const bool source_starts_with_it = !wanted.empty() && source.find_first_not_of(' ') == source.find(wanted.front());
    for (const auto& placeholder : missing) {
        int at = words && words_intact ? insertion_word(placeholder, *words, translation_words, source_word_used) : -1;
        if (at < 0) at = placeholder == wanted.front() && source_starts_with_it ? 0 : static_cast<int>(tokens.size());
        before[at].push_back(placeholder);
    }
    std::vector<std::string> out;
    for (size_t i = 0; i <= tokens.size(); ++i) {
        for (auto& p : before[i]) out.push_back(std::move(p));
        if (i < tokens.size()) out.push_back(std::move(tokens[i]));
    }
    return join_spaces(out);
}

}  // namespace

std::string restore_placeholders(const std::string& source, const std::string& translation,
                                 const WordAttention* words) {
    const auto wanted = find_placeholders(source);
    std::string repaired = repair(source, wanted, translation, words);
    if (same_placeholders(find_placeholders(repaired), wanted)) return repaired;
    // An edit can run into its neighbours and match as something else (a URL
    // put just before "&amp;" swallows it). Then the translation's own
    // placeholders are taken out and the source's put in as words of their own.
    std::string stripped = translation;
    const auto present = matches(translation);
    for (auto m = present.rbegin(); m != present.rend(); ++m) stripped.replace(m->begin, m->length, " ");
    repaired = repair(source, wanted, stripped, nullptr);
    if (same_placeholders(find_placeholders(repaired), wanted)) return repaired;
    // What is left of the translation still makes placeholders with them
    // (half a tag, a stray '%'): the source, untranslated, is the one text
    // that holds exactly its placeholders, as gettext shows the original
    // message when it has no usable translation.
    return source;
}

}  // namespace nmt
