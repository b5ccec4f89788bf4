// The text side of `nmt translate`: lines read with the 1 MiB cut (here a
// small limit, so that cuts happen often), cleaned, split into sentences,
// encoded with the shipped English-French vocabulary and cropped, and the
// placeholder repair of a translation (the next line stands in for one).
// Each step's promise is checked, not only that nothing crashes.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "decode/placeholders.h"
#include "decode/sentence_split.h"
#include "decode/source_encoding.h"
#include "io/text_input.h"
#include "model/vocabulary.h"

namespace {

const nmt::Vocabulary& vocabulary() {
    static const nmt::Vocabulary vocab(nmt::Vocabulary::read_file(NMT_SOURCE_DIR "/vocab/general.en-fr.model"),
                                       "general.en-fr.model");
    return vocab;
}

// Well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF) with
// no C0 control but tab: what clean_line promises the tokenizer.
bool clean_text(const std::string& s) {
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = s[i];
        if (c < 0x80) {
            if (c < 0x20 && c != '\t') return false;
            ++i;
            continue;
        }
        const int length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
        if (length == 0 || c > 0xF4 || i + length > s.size()) return false;
        uint32_t code = c & (0x7F >> length);
        for (int k = 1; k < length; ++k) {
            const unsigned char d = s[i + k];
            if ((d & 0xC0) != 0x80) return false;
            code = code << 6 | (d & 0x3F);
        }
        const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
        if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
        i += length;
    }
    return true;
}

// Python's str.isspace(), the whitespace sentence splitting trims and
// separates on, written out here rather than taken from the code under test.
bool python_space(uint32_t c) {
    return (c >= 0x9 && c <= 0xD) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// The code points of well-formed UTF-8 (clean_text has checked it).
std::vector<uint32_t> code_points(const std::string& s) {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = s[i];
        const int length = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        uint32_t code = length == 1 ? c : c & (0x7F >> length);
        for (int k = 1; k < length; ++k) code = code << 6 | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        out.push_back(code);
        i += length;
    }
    return out;
}

bool all_space(const std::string& s) {
    for (uint32_t c : code_points(s))
        if (!python_space(c)) return false;
    return true;
}

std::map<std::string, int> counted(const std::vector<std::string>& items) {
    std::map<std::string, int> counts;
    for (const auto& item : items) ++counts[item];
    return counts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    nmt::LineReader reader(in, "fuzz", nmt::LineLimit{200, nmt::LineLimit::Longer::Truncate});
    std::vector<std::string> lines;
    std::string raw;
    while (reader.next_line(raw)) {
        if (raw.size() > 200) std::abort();
        std::vector<std::string> warnings;
        std::string line = nmt::clean_line(raw, static_cast<int64_t>(lines.size()) + 1, &warnings);
        if (!clean_text(line)) std::abort();
        // The spans give back the line byte for byte, and no sentence is
        // empty or has whitespace (any Unicode space) at either end; a line
        // without sentences is all whitespace.
        const std::vector<nmt::SentenceSpan> spans = nmt::split_sentences(line);
        std::string rejoined;
        std::vector<std::string> sentences;
        for (const nmt::SentenceSpan& span : spans) {
            if (span.begin >= span.end || span.end > line.size()) std::abort();
            sentences.push_back(line.substr(span.begin, span.end - span.begin));
            const std::vector<uint32_t> points = code_points(sentences.back());
            if (python_space(points.front()) || python_space(points.back())) std::abort();
            rejoined += span.before + sentences.back();
        }
        if (!spans.empty()) rejoined += line.substr(spans.back().end);
        if (spans.empty() ? !all_space(line) : rejoined != line) std::abort();
        for (const std::string& sentence : sentences) {
            const nmt::SourceIds source = nmt::encode_source(vocabulary(), 16, sentence);
            if (source.ids.size() > 16 || (!source.ids.empty() && source.ids.back() != vocabulary().eos_id()))
                std::abort();
            vocabulary().decode(source.ids);
        }
        lines.push_back(std::move(line));
    }
    // Each line translated as the next: the repair must leave exactly the
    // source's placeholders, each as often.
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
        const std::string repaired = nmt::restore_placeholders(lines[i], lines[i + 1]);
        if (counted(nmt::find_placeholders(repaired)) != counted(nmt::find_placeholders(lines[i]))) std::abort();
    }
    return 0;
}
