#include "decode/sentence_split.h"

#include <string_view>

#include "core/unicode_categories.h"

namespace nmt {

namespace {

// Dotted forms that are not sentence ends although whitespace and a capital
// often follow them (Dr. Smith, vgl. Abschnitt). Single letters and dotted
// single letters (M., z. B., e.g.) need no entry: any such token is kept.
// Matched case-sensitively, so that "no." ending a sentence still splits; an
// entry starting with a small letter also matches capitalised, as at the
// start of a sentence (Vgl., Etc.).
const char* const kAbbreviations[] = {
    // English
    "Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "St.", "Sr.", "Jr.", "Mt.", "Gen.", "Gov.", "Capt.", "Lt.", "Col.",
    "Rev.", "etc.", "vs.", "cf.", "approx.", "No.", "Nos.", "Inc.", "Ltd.", "Co.", "Corp.", "Fig.", "Vol.", "pp.",
    "Jan.", "Feb.", "Mar.", "Apr.", "Jun.", "Jul.", "Aug.", "Sep.", "Sept.", "Oct.", "Nov.", "Dec.",
    // French
    "Mme.", "Mmes.", "Mlle.", "Mlles.", "MM.", "Ste.", "p. ex.", "env.", "av.", "apr.", "J.-C.",
    "janv.", "févr.", "avr.", "juil.", "oct.", "nov.", "déc.",
    // German
    "d. h.", "u. a.", "z. T.", "s. o.", "s. u.", "usw.", "bzw.", "Nr.", "Hr.", "Hrn.", "Fr.", "ca.", "vgl.",
    "evtl.", "ggf.", "inkl.", "Str.", "Abs.", "Jh.", "Mio.", "Mrd.", "Tel.", "Okt.", "Dez."};

// After "am 3." such a word shows that the dot marked an ordinal.
const char* const kGermanMonths[] = {"Januar", "Jänner", "Februar", "März",      "April",   "Mai",     "Juni",
                                     "Juli",   "August", "September", "Oktober", "November", "Dezember"};

constexpr char32_t kInvalid = 0xFFFD;

struct CodePoint {
    char32_t c;
    size_t size;  // bytes
};

// The character starting at byte i. A byte that does not start a well-formed
// sequence is one character of its own (read as U+FFFD), so that any input
// can be split and every cut falls between whole characters.
CodePoint decode_at(const std::string& s, size_t i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) return {b, 1};
    const size_t size = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    if (size == 0 || i + size > s.size()) return {kInvalid, 1};
    char32_t c = b & (0x7F >> size);
    for (size_t k = 1; k < size; ++k) {
        const auto continuation = static_cast<unsigned char>(s[i + k]);
        if ((continuation & 0xC0) != 0x80) return {kInvalid, 1};
        c = (c << 6) | (continuation & 0x3F);
    }
    static const char32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < kMinimum[size] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return {kInvalid, 1};
    return {c, size};
}

// The character ending just before byte i (i > 0). Well-formed sequences
// cannot overlap, so this agrees with reading forwards from the start.
CodePoint decode_before(const std::string& s, size_t i) {
    for (size_t start = i >= 4 ? i - 4 : 0; start + 1 < i; ++start) {
        const CodePoint cp = decode_at(s, start);
        if (cp.size > 1 && start + cp.size == i) return cp;
    }
    return decode_at(s, i - 1).size == 1 ? decode_at(s, i - 1) : CodePoint{kInvalid, 1};
}

bool is_terminal(char32_t c) { return c == U'.' || c == U'!' || c == U'?' || c == U'…'; }

// Quotes are opening or closing by position (German „…“ and »…«, French
// «…»), so each list holds both kinds: attached after the punctuation a quote
// closes, after whitespace it opens.
bool is_closing(char32_t c) { return std::u32string_view(U"\"')]}»«”“’‘›‹").find(c) != std::u32string_view::npos; }
bool is_opening(char32_t c) { return std::u32string_view(U"\"'([{«»„“”‘‚‹›¿¡").find(c) != std::u32string_view::npos; }

bool is_uppercase(char32_t c) {
    if (c == U'Σ') return true;  // append_lower leaves capital sigma to its caller
    if (!is_cased(c)) return false;
    std::u32string lower;
    append_lower(c, lower);
    return lower != std::u32string(1, c);
}

bool starts_sentence(char32_t c) { return is_uppercase(c) || is_number(c) || is_opening(c); }

size_t skip_spaces(const std::string& s, size_t i) {
    while (i < s.size()) {
        const CodePoint cp = decode_at(s, i);
        if (!is_space(cp.c)) break;
        i += cp.size;
    }
    return i;
}

template <class Predicate>
size_t skip_while(const std::string& s, size_t i, Predicate keep) {
    while (i < s.size()) {
        const CodePoint cp = decode_at(s, i);
        if (!keep(cp.c)) break;
        i += cp.size;
    }
    return i;
}

// French sets a closing guillemet off with a (no-break) space: in
// "« Oui. » Il part." the » belongs to the first sentence. One space, then »
// or ›, then whitespace or the line's end: an opening one would be followed
// by its word.
size_t skip_spaced_guillemet(const std::string& s, size_t i) {
    if (i >= s.size() || !is_space(decode_at(s, i).c)) return i;
    const size_t quote = i + decode_at(s, i).size;
    if (quote >= s.size()) return i;
    const CodePoint q = decode_at(s, quote);
    if (q.c != U'»' && q.c != U'›') return i;
    const size_t after = quote + q.size;
    return after == s.size() || is_space(decode_at(s, after).c) ? after : i;
}

bool at_word_start(const std::string& s, size_t i) {
    if (i == 0) return true;
    const char32_t c = decode_before(s, i).c;
    return is_space(c) || is_opening(c);
}

// Letters separated by single dots: "J", "z.B", "e.g", "U.S".
bool is_initials(const std::string& s, size_t begin, size_t end) {
    size_t i = begin;
    while (i < end) {
        const CodePoint cp = decode_at(s, i);
        if (!is_cased(cp.c)) return false;
        i += cp.size;
        if (i == end) return true;
        if (s[i] != '.') return false;
        ++i;
    }
    return false;
}

bool is_abbreviation(const std::string& s, size_t dot) {
    const size_t end = dot + 1;
    for (const char* entry : kAbbreviations) {
        std::string form = entry;
        for (int variant = 0; variant < 2; ++variant) {
            if (variant == 1) {
                if (form[0] < 'a' || form[0] > 'z') break;
                form[0] = static_cast<char>(form[0] - 'a' + 'A');
            }
            if (form.size() <= end && s.compare(end - form.size(), form.size(), form) == 0 &&
                at_word_start(s, end - form.size()))
                return true;
        }
    }
    return false;
}

bool is_ascii_number(const std::string& s, size_t begin, size_t end) {
    if (begin == end) return false;
    for (size_t i = begin; i < end; ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

bool is_month(const std::string& s, size_t word) {
    const size_t end = skip_while(s, word, [](char32_t c) { return is_cased(c); });
    const std::string_view text(s.data() + word, end - word);
    for (const char* month : kGermanMonths)
        if (text == month) return true;
    return false;
}

// For a lone '.' at `dot` followed by whitespace and then a sentence start at
// `next`: whether the dot ends a sentence or closes a short form.
bool dot_ends_sentence(const std::string& s, size_t dot, size_t next) {
    size_t word = dot;
    while (word > 0 && !is_space(decode_before(s, word).c)) word -= decode_before(s, word).size;
    word = skip_while(s, word, is_opening);
    if (word >= dot) return true;  // the dot stands alone: " . Next"
    if (is_initials(s, word, dot) || is_abbreviation(s, dot)) return false;
    return !(is_ascii_number(s, word, dot) && is_month(s, next));
}

}  // namespace

std::vector<SentenceSpan> split_sentences(const std::string& line) {
    std::vector<SentenceSpan> spans;
    size_t start = skip_spaces(line, 0);
    if (start == line.size()) return spans;
    size_t previous_end = 0;
    size_t i = start;
    while (i < line.size()) {
        const CodePoint cp = decode_at(line, i);
        if (!is_terminal(cp.c)) {
            i += cp.size;
            continue;
        }
        const size_t punctuation = i;
        size_t end = skip_while(line, i, is_terminal);
        const bool lone_dot = end == punctuation + 1 && line[punctuation] == '.';  // "..." is never an abbreviation
        end = skip_spaced_guillemet(line, skip_while(line, end, is_closing));
        const size_t next = skip_spaces(line, end);
        i = end;
        if (next == end || next == line.size()) continue;
        if (!starts_sentence(decode_at(line, next).c)) continue;
        if (lone_dot && !dot_ends_sentence(line, punctuation, next)) continue;
        spans.push_back({start, end, line.substr(previous_end, start - previous_end)});
        previous_end = end;
        start = i = next;
    }
    size_t end = line.size();
    while (end > start && is_space(decode_before(line, end).c)) end -= decode_before(line, end).size;
    spans.push_back({start, end, line.substr(previous_end, start - previous_end)});
    return spans;
}

}  // namespace nmt
