// gettext catalogues (lib/formats/po_catalogue.h, on libgettextpo) on any
// bytes, translated with the reversing fake into French: a catalogue gettext
// cannot read is refused with nmt::Error (never anything else); one it reads
// comes back as a catalogue it reads again, with as many messages.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "fake_segment_translator.h"
#include "formats/po_catalogue.h"

namespace {

size_t count_msgids(const std::string& text) {
    size_t count = 0;
    for (size_t at = text.find("msgid "); at != std::string::npos; at = text.find("msgid ", at + 6))
        count += at == 0 || text[at - 1] == '\n';
    return count;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 1 << 14) return 0;
    const std::string text(reinterpret_cast<const char*>(data), size);
    nmt::DocumentOptions options;
    options.source_language = "en";
    options.target_language = "fr";
    options.warn = [](const std::string&) {};

    nmt::testing::ReversingTranslator reversing;
    std::string translated;
    try {
        translated = nmt::translate_po(text, "fuzz.po", reversing, options);
    } catch (const nmt::Error&) {
        return 0;  // refused, naming the file: what a malformed catalogue gets
    }
    // What came out is a catalogue gettext reads, with as many messages.
    nmt::testing::ReversingTranslator second;
    std::string again;
    try {
        again = nmt::translate_po(translated, "fuzz.po", second, options);
    } catch (const nmt::Error&) {
        std::abort();  // nmt wrote a catalogue gettext cannot read
    }
    if (count_msgids(again) != count_msgids(translated)) std::abort();
    return 0;
}
