// HTML documents (lib/formats/html_document): any bytes, parsed as a page or
// a fragment, translated word for word and with the words reversed. The
// promise checked: the output parses to the input's elements (the same
// sequence; with reordered words, the same elements in some order), nothing
// throws, and a translation falls back to the untouched input only where
// writing the tree back untranslated could not give it back either.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "../fake_segment_translator.h"
#include "formats/html_document.h"

namespace {

// Each word to itself: tags must land where they were.
using nmt::testing::IdentityTranslator;

std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return -1;
    const std::string input(reinterpret_cast<const char*>(data), size);
    for (nmt::HtmlKind kind : {nmt::HtmlKind::Auto, nmt::HtmlKind::Page, nmt::HtmlKind::Fragment}) {
        const nmt::HtmlDocument document(input, kind);
        const nmt::HtmlKind again = document.is_page() ? nmt::HtmlKind::Page : nmt::HtmlKind::Fragment;
        const std::vector<std::string> tags = document.tag_sequence();
        // Elements that gumbo reopens inside <plaintext> (an <i> left open
        // before it) cannot be written: after "<plaintext>" all is text.
        const auto plaintext = std::find(tags.begin(), tags.end(), "plaintext");
        if (plaintext != tags.end() && plaintext + 1 != tags.end()) continue;

        // Serialising may not give the tree back where only broken markup
        // made it (the standard says as much); translate() then keeps the
        // input. It must never need to for any other reason.
        const bool writable = nmt::HtmlDocument(document.serialize(), again).structure() == document.structure();
        bool kept = false;
        IdentityTranslator identity;
        const std::string same = document.translate(identity, &kept);
        if (kept && writable) std::abort();
        if (nmt::HtmlDocument(same, again).tag_sequence() != tags) std::abort();
        nmt::testing::ReversingTranslator reversing;
        const std::string reversed = document.translate(reversing, &kept);
        if (kept && writable) std::abort();
        if (sorted(nmt::HtmlDocument(reversed, again).tag_sequence()) != sorted(tags)) std::abort();
    }
    return 0;
}
