// Markdown documents (lib/formats/markdown_document): any bytes, translated
// word for word and with the words reversed. The promise checked: rendered
// by cmark-gfm, the output has the input's HTML elements (word for word:
// the same sequence; reversed: the same elements, nested alike, inline ones
// in a block in any order), and nothing throws.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "../fake_segment_translator.h"
#include "formats/html_document.h"
#include "formats/markdown_document.h"

namespace {

using nmt::testing::IdentityTranslator;

nmt::HtmlDocument rendered(const std::string& markdown) {
    return nmt::HtmlDocument(nmt::MarkdownDocument::to_html(markdown), nmt::HtmlKind::Fragment);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return -1;
    const std::string input(reinterpret_cast<const char*>(data), size);
    const nmt::MarkdownDocument document(input);
    const nmt::HtmlDocument before = rendered(input);

    IdentityTranslator identity;
    if (rendered(document.translate(identity)).tag_sequence() != before.tag_sequence()) std::abort();
    nmt::testing::ReversingTranslator reversing;
    if (rendered(document.translate(reversing)).structure() != before.structure()) std::abort();
    return 0;
}
