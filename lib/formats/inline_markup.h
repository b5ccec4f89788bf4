// Inline markup carried through a translation: the parts of a segment (an
// HTML <b>, a Markdown link, a <code> kept as it is) put back around the
// target words aligned to the source words they enclosed. Shared by the
// document formats; each writes the parts in its own syntax.
//
// A part's target words run from the first to the last word aligned to any
// of its source words, clamped into its parent's and kept apart from its
// siblings (which may change order, as their words did); a part whose words
// have no links goes where its words stand in proportion, a part without
// words just after the translation of the word before it. Nothing is dropped
// or written twice. Punctuation the translation put at the edge of a part's
// words (a full stop, a bracket, a quote) stays outside it unless the
// source part had as much of it there. A verbatim part (code, a comment, an image) is written as
// it was, in place of the target words made only from its own words.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "formats/segment_translator.h"

namespace nmt {

struct InlinePart {
    int parent = -1;  // part 0 is the segment itself
    bool verbatim = false;
    size_t start_byte = 0;  // where it begins in the segment
    std::vector<int> children;
};

// A segment being built, with which part each of its bytes belongs to.
class InlineSegment {
public:
    InlineSegment();

    int add_part(int parent, bool verbatim);
    // Text of `part`, whitespace runs written as one space (none at the
    // start); `counts` false for a verbatim part's text, shown to the
    // translator only.
    void add_text(const char* text, size_t size, int part, bool counts = true);
    void add_space() { pending_space_ = true; }
    // Parts keep their source order (their words still move): for markup
    // whose meaning hangs on order, such as an HTML tag opened and never
    // closed in Markdown, which takes in everything after it.
    void keep_order() { keep_order_ = true; }

    const std::string& text() const { return text_; }
    const std::vector<InlinePart>& parts() const { return parts_; }
    bool has_words() const { return has_words_; }  // outside verbatim parts

    struct Writer {
        std::function<void(const std::string& translated_text)> text;
        std::function<void(int part, bool empty)> open, close;  // not verbatim parts
        std::function<void(int part)> verbatim;
    };
    // Writes `translation` of text() with the parts around their words.
    // Throws nmt::Error if its word spans are out of order or outside it.
    void write(const SegmentTranslation& translation, const Writer& writer) const;

private:
    std::string text_;
    std::vector<int> owner_;  // each byte's innermost part
    std::vector<InlinePart> parts_;
    bool pending_space_ = false;
    bool has_words_ = false;
    bool keep_order_ = false;
    friend class InlineLayout;
};

}  // namespace nmt
