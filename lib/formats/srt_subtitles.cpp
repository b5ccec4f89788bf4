#include "formats/srt_subtitles.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "formats/translatable.h"

namespace nmt {

namespace srt_detail {

struct RawLine {
    std::string text;    // without its ending
    std::string ending;  // "\n", "\r\n" or ""
};

std::vector<RawLine> split_lines(const std::string& text) {
    std::vector<RawLine> lines;
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find('\n', begin);
        RawLine line;
        if (end == std::string::npos) {
            line.text = text.substr(begin);
            begin = text.size();
        } else {
            line.text = text.substr(begin, end - begin);
            line.ending = "\n";
            if (!line.text.empty() && line.text.back() == '\r') {
                line.text.pop_back();
                line.ending = "\r\n";
            }
            begin = end + 1;
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

bool blank(const std::string& line) {
    return std::all_of(line.begin(), line.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

std::string trim(const std::string& text) {
    size_t first = 0, last = text.size();
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) first = 3;  // a byte-order mark before the first number
    while (first < last && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
    while (last > first && std::isspace(static_cast<unsigned char>(text[last - 1]))) --last;
    return text.substr(first, last - first);
}

bool is_number(const std::string& line) {
    const std::string t = trim(line);
    return !t.empty() && t.size() <= 9 && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "H:MM:SS,mmm" at text[i]; moves i past it.
bool timestamp(const std::string& text, size_t& i) {
    auto digits = [&](size_t min, size_t max) {
        size_t n = 0;
        while (i < text.size() && n < max && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++n;
        return n >= min;
    };
    auto skip = [&](const char* chars) {
        if (i < text.size() && std::strchr(chars, text[i])) return ++i, true;
        return false;
    };
    return digits(1, 3) && skip(":") && digits(2, 2) && skip(":") && digits(2, 2) && skip(",.") && digits(1, 3);
}

// "00:00:01,000 --> 00:00:02,500", optionally followed by position settings.
bool is_timing(const std::string& line) {
    size_t i = 0;
    while (i < line.size() && line[i] == ' ') ++i;
    if (!timestamp(line, i)) return false;
    while (i < line.size() && line[i] == ' ') ++i;
    if (line.compare(i, 3, "-->") != 0) return false;
    i += 3;
    while (i < line.size() && line[i] == ' ') ++i;
    return timestamp(line, i) && (i == line.size() || line[i] == ' ' || line[i] == '\t');
}

}  // namespace srt_detail

std::vector<SrtBlock> read_srt(const std::string& text) {
    using namespace srt_detail;
    const std::vector<RawLine> lines = split_lines(text);
    std::vector<SrtBlock> blocks;
    size_t i = 0;
    while (i < lines.size()) {
        SrtBlock block;
        block.line = i + 1;
        if (blank(lines[i].text)) {  // blank lines between cues: one block of them
            while (i < lines.size() && blank(lines[i].text)) block.verbatim += lines[i].text + lines[i].ending, ++i;
            blocks.push_back(std::move(block));
            continue;
        }
        size_t end = i;
        while (end < lines.size() && !blank(lines[end].text)) ++end;
        if (end - i >= 2 && is_number(lines[i].text) && is_timing(lines[i + 1].text)) {
            block.cue = true;
            block.head = lines[i].text + lines[i].ending + lines[i + 1].text + lines[i + 1].ending;
            for (size_t k = i + 2; k < end; ++k) {
                block.lines.push_back(lines[k].text);
                block.endings.push_back(lines[k].ending);
            }
        } else {
            for (size_t k = i; k < end; ++k) block.verbatim += lines[k].text + lines[k].ending;
        }
        blocks.push_back(std::move(block));
        i = end;
    }
    return blocks;
}

std::string write_srt(const std::vector<SrtBlock>& blocks) {
    std::string out;
    for (const auto& block : blocks) {
        if (!block.cue) {
            out += block.verbatim;
            continue;
        }
        out += block.head;
        for (size_t k = 0; k < block.lines.size(); ++k) out += block.lines[k] + block.endings[k];
    }
    return out;
}

namespace srt_detail {

std::string join(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines) {
        const std::string t = trim(line);
        if (t.empty()) continue;
        if (!out.empty()) out += ' ';
        out += t;
    }
    return out;
}

bool dialogue(const SrtBlock& cue) {
    if (cue.lines.size() < 2) return false;
    for (const auto& line : cue.lines)
        if (trim(line).empty() || trim(line)[0] != '-') return false;
    return true;
}

// Whether the cue's text ends a sentence: its last character, past closing
// quotes, brackets, music notes and tags (</i>, {\an8}), is . ! ? or ….
bool ends_sentence(const std::string& text) {
    size_t end = text.size();
    while (end > 0) {
        const char c = text[end - 1];
        if (c == ' ' || c == '"' || c == '\'' || c == ')' || c == ']' || c == '*') {
            --end;
        } else if (c == '>' || c == '}') {
            const size_t open = text.rfind(c == '>' ? '<' : '{', end - 1);
            if (open == std::string::npos) break;
            end = open;
        } else if (end >= 2 && text.compare(end - 2, 2, "\xC2\xBB") == 0) {  // »
            end -= 2;
        } else if (end >= 3 && (text.compare(end - 3, 3, "\xE2\x80\x9D") == 0 ||   // ”
                                text.compare(end - 3, 3, "\xE2\x80\x99") == 0 ||   // ’
                                text.compare(end - 3, 3, "\xE2\x99\xAA") == 0)) {  // ♪
            end -= 3;
        } else {
            break;
        }
    }
    if (end == 0) return true;  // nothing but tags or notes: nothing runs on
    const char last = text[end - 1];
    if (last == '.' || last == '!' || last == '?') return true;
    return end >= 3 && text.compare(end - 3, 3, "\xE2\x80\xA6") == 0;  // …
}

// Whether the cue's text starts a sentence of its own: its first letter,
// past opening tags, quotes and dots, is a capital (not the pronoun "I").
// A cue that follows one without final punctuation but starts so is not
// the same sentence run on ("...the format" / "Any comments ...").
bool starts_sentence(const std::string& text) {
    size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '<' || c == '{') {
            const size_t close = text.find(c == '<' ? '>' : '}', i);
            if (close == std::string::npos) break;
            i = close + 1;
        } else if (c == '"' || c == '\'' || c == '.' || c == '(' || c == '[' || c == ' ' || c == '*') {
            ++i;
        } else {
            break;
        }
    }
    if (i >= text.size() || !std::isupper(static_cast<unsigned char>(text[i]))) return false;
    const bool pronoun = text[i] == 'I' && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\'');
    return !pronoun;
}

// Whether a line may break before target word w: the gap before it holds an
// ordinary space (French puts no-break spaces before "!" and "?", which stay
// with their word).
bool breakable(const SegmentTranslation& t, size_t w) {
    if (w == 0 || w >= t.target_words.size()) return true;
    for (size_t b = t.target_words[w - 1].end; b < t.target_words[w].begin; ++b)
        if (t.text[b] == ' ' || t.text[b] == '\t') return true;
    return false;
}

// The translation's words [begin, end) wrapped into at most `count` lines of
// balanced length (fewer when there are fewer places to break), each line
// the translation's own bytes between its first and last word.
std::vector<std::string> wrap(const SegmentTranslation& t, size_t begin, size_t end, size_t count) {
    std::vector<ByteSpan> units;  // runs of words no line may break inside
    for (size_t w = begin; w < end; ++w) {
        if (units.empty() || (w > begin && breakable(t, w)))
            units.push_back(t.target_words[w]);
        else
            units.back().end = t.target_words[w].end;
    }
    std::vector<std::string> lines;
    if (units.empty()) return lines;
    count = std::max<size_t>(1, std::min(count, units.size()));
    auto size = [&](size_t k) { return units[k].end - units[k].begin + 1; };
    size_t total = 0;
    for (size_t k = 0; k < units.size(); ++k) total += size(k);
    // Break before the unit whose start is nearest each line's share.
    size_t next = 0, done = 0;
    for (size_t line = 0; line < count; ++line) {
        const size_t left_lines = count - line - 1;
        size_t stop = units.size() - left_lines;  // leave a unit for each line after
        if (left_lines > 0) {
            const double goal = double(total) * double(line + 1) / double(count);
            size_t best = next + 1, position = done + size(next);
            double best_distance = std::fabs(double(position) - goal);
            for (size_t k = next + 2; k <= stop; ++k) {
                position += size(k - 1);
                const double distance = std::fabs(double(position) - goal);
                if (distance < best_distance) best = k, best_distance = distance;
            }
            stop = best;
        }
        for (size_t k = next; k < stop; ++k) done += size(k);
        lines.push_back(t.text.substr(units[next].begin, units[stop - 1].end - units[next].begin));
        next = stop;
    }
    return lines;
}

// Where to cut a translation between two cues, the second starting at
// source word `source_break`: among the cuts from..to before a word that may
// start a line, the one fewest links cross, then the one nearest the
// source's proportion (`from` when there is none).
size_t cut(const SegmentTranslation& t, size_t sources, size_t source_break, size_t from, size_t to) {
    const size_t targets = t.target_words.size();
    size_t best = from;
    long best_crossing = -1;
    double best_distance = 0;
    const double proportional = sources ? double(targets) * double(source_break) / double(sources) : 0;
    for (size_t c = from; c <= to; ++c) {
        if (!breakable(t, c)) continue;  // never before a word a no-break space holds
        long crossing = 0;
        for (const auto& [s, w] : t.links)
            if ((size_t(s) < source_break) != (size_t(w) < c)) ++crossing;
        const double distance = std::fabs(double(c) - proportional);
        if (best_crossing < 0 || crossing < best_crossing || (crossing == best_crossing && distance < best_distance)) {
            best = c;
            best_crossing = crossing;
            best_distance = distance;
        }
    }
    return best;
}

// A cue's text lines replaced by `lines`, keeping its line endings (the
// last line keeps the last ending, which may be the end of the file).
void replace_lines(SrtBlock& cue, std::vector<std::string> lines) {
    if (lines.empty()) return;  // nothing came out: the cue keeps its own text
    std::vector<std::string> endings;
    for (size_t k = 0; k + 1 < lines.size(); ++k) endings.push_back(cue.endings[k]);  // the cue had at least as many lines
    endings.push_back(cue.endings.back());
    cue.lines = std::move(lines);
    cue.endings = std::move(endings);
}

// A run of cues translated as one segment: which cues, where each one's
// text starts in the segment.
struct Group {
    std::vector<size_t> cues;     // block indices
    std::vector<size_t> starts;   // byte where each cue's text starts in the segment
    int line = -1;                // a dialogue cue's line, translated alone; -1: the whole cues
};

}  // namespace srt_detail

std::string translate_srt(const std::string& text, const std::string& name, SegmentTranslator& translator,
                          const DocumentOptions& options) {
    using namespace srt_detail;
    std::vector<SrtBlock> blocks = read_srt(text);
    for (const auto& block : blocks)
        if (!block.cue && !blank(block.verbatim) && options.warn)
            options.warn(name + ": line " + std::to_string(block.line) +
                         ": not a subtitle cue (a number, then a timing line such as 00:00:01,000 --> 00:00:02,000); "
                         "copied as it is");

    std::vector<Group> groups;
    std::vector<std::string> segments;
    Group open;
    std::string open_text;
    auto close = [&] {
        if (open.cues.empty()) return;
        groups.push_back(open);
        segments.push_back(open_text);
        open = Group{};
        open_text.clear();
    };
    for (size_t b = 0; b < blocks.size(); ++b) {
        const SrtBlock& block = blocks[b];
        if (!block.cue) {
            if (!blank(block.verbatim)) close();  // a cue that did not parse: nothing runs across it
            continue;
        }
        const std::string cue_text = join(block.lines);
        if (cue_text.empty()) continue;
        if (!has_letters_outside_placeholders(cue_text)) {  // a URL, a number, a music note: kept
            close();
            continue;
        }
        if (dialogue(block)) {
            close();
            for (size_t k = 0; k < block.lines.size(); ++k) {
                Group line;
                line.cues = {b};
                line.starts = {0};
                line.line = static_cast<int>(k);
                groups.push_back(line);
                segments.push_back(trim(block.lines[k]));
            }
            continue;
        }
        if (starts_sentence(cue_text)) close();
        if (!open_text.empty()) open_text += ' ';
        open.cues.push_back(b);
        open.starts.push_back(open_text.size());
        open_text += cue_text;
        if (ends_sentence(cue_text) || open.cues.size() >= kMaxJoinedCues) close();
    }
    close();

    const std::vector<SegmentTranslation> translations = translator.translate(segments);
    for (size_t g = 0; g < groups.size() && g < translations.size(); ++g) {
        const Group& group = groups[g];
        const SegmentTranslation& t = translations[g];
        if (group.line >= 0) {
            SrtBlock& cue = blocks[group.cues[0]];
            if (!t.text.empty()) cue.lines[group.line] = t.text;
            continue;
        }
        // Each cue's first source word, then the cuts between the cues' target words.
        const size_t sources = t.source_words.size(), targets = t.target_words.size(), n = group.cues.size();
        std::vector<size_t> source_break(n, 0);
        for (size_t k = 1; k < n; ++k)
            while (source_break[k] < sources && t.source_words[source_break[k]].begin < group.starts[k])
                ++source_break[k];
        std::vector<size_t> bounds(n + 1, 0);
        bounds[n] = targets;
        for (size_t k = 1; k < n; ++k) {
            const size_t enough = targets >= n;  // each cue keeps a word when there are enough
            const size_t from = std::min(targets, bounds[k - 1] + enough);
            const size_t to = std::max(from, enough ? targets - (n - k) : targets);
            bounds[k] = cut(t, sources, source_break[k], from, to);
        }
        for (size_t k = 0; k < n; ++k) {
            SrtBlock& cue = blocks[group.cues[k]];
            size_t line_count = 0;
            for (const auto& line : cue.lines) line_count += trim(line).empty() ? 0 : 1;
            replace_lines(cue, wrap(t, bounds[k], bounds[k + 1], line_count));
        }
    }
    return write_srt(blocks);
}

}  // namespace nmt
