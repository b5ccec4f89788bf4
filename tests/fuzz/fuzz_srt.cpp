// The SubRip reader (lib/formats/srt_subtitles.h) on any bytes: reading and
// writing back gives the input byte for byte, and translating with the
// reversing fake keeps every cue's number and timing lines and the blocks
// that are not cues, whatever the input holds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fake_segment_translator.h"
#include "formats/srt_subtitles.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 1 << 16) return 0;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto blocks = nmt::read_srt(text);
    if (nmt::write_srt(blocks) != text) std::abort();

    nmt::testing::ReversingTranslator fake;
    nmt::DocumentOptions options;
    size_t warnings = 0;
    options.warn = [&](const std::string&) { ++warnings; };
    const std::string translated = nmt::translate_srt(text, "fuzz.srt", fake, options);
    const auto out = nmt::read_srt(translated);
    size_t cues = 0, out_cues = 0;
    for (const auto& b : blocks) cues += b.cue;
    for (const auto& b : out) out_cues += b.cue;
    // Translated text may itself read as a cue ("1" then a timing) only if
    // the fake made one; it never removes one.
    if (out_cues < cues) std::abort();
    size_t k = 0;
    for (const auto& b : blocks) {
        if (!b.cue) continue;
        while (k < out.size() && !out[k].cue) ++k;
        if (k == out.size() || out[k].head != b.head) std::abort();
        if (out[k].lines.size() > b.lines.size()) std::abort();
        ++k;
    }
    return 0;
}
