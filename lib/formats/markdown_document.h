// Markdown documents translated with their markup kept: parsed by cmark-gfm
// (GitHub's CommonMark parser, with its table, strikethrough, autolink and
// task-list extensions, so a README reads as GitHub shows it), each paragraph,
// heading and table cell translated as one segment across its emphasis and
// links, and written back into the source text in place of that block's
// content only: everything else (code blocks, HTML blocks, link reference
// definitions, list markers, blank lines, tables' pipes) stays byte for byte
// as it was. Re-rendering the whole tree instead would escape and re-space
// what it never needed to touch (cmark's writer escapes "~" with
// strikethrough on, and some emphasis does not survive its round trip).
//
// In a translated block, emphasis, strong, strikethrough and links (text
// translated, destination and title kept) follow their words as in
// formats/inline_markup.h; inline code, images, autolinks and inline HTML
// are kept as they are. A block's content comes back on one line (so that a
// block quote's or list item's continuation lines need no prefix); a hard
// line break becomes <br>. If the new content would not parse to the
// intended inline elements (emphasis needs its delimiters to flank words),
// <em>, <strong> and <del> are written as HTML instead, and failing that
// the block is left untranslated. Inline HTML tags left open or closed early
// are nested by HTML's rules around what follows them: when the translated
// page would render to other elements (checked with gumbo), the blocks
// holding inline HTML are left untranslated.
#pragma once
#include <string>

#include "formats/segment_translator.h"

namespace nmt {

class MarkdownDocument {
public:
    explicit MarkdownDocument(std::string markdown);

    // The document with its text translated through `translator` (one call).
    std::string translate(SegmentTranslator& translator) const;

    // `markdown` rendered to HTML by cmark-gfm with the same extensions,
    // raw HTML kept: what "the same structure" is checked on.
    static std::string to_html(const std::string& markdown);

private:
    std::string source_;
};

}  // namespace nmt
