// HTML pages and fragments translated with their markup kept: parsed by gumbo
// (Google's HTML5 parser, which repairs broken markup by the same rules as
// browsers), each block's running text translated as one segment across its
// inline tags (<b>, <a href>, <em>...), those tags put back around the target
// words aligned to the source words they enclosed, and the tree gumbo built
// written out again, so that the output parses to the same elements.
//
// Left untouched: block structure, attributes (but title and alt, which are
// translated), comments, <script>, <style>, <pre>, <textarea>, SVG and MathML,
// <code>, <kbd> and <samp> (whose text the translator still sees, for context,
// and whose target words they replace), and anything under translate="no"
// (a translate="yes" below it is not honoured: the whole subtree is kept).
//
// One tree cannot be written so as to parse back the same: elements that
// gumbo reopens inside an obsolete <plaintext> (an <i> still open before it),
// since everything after "<plaintext>" is text.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "formats/segment_translator.h"

namespace nmt {

enum class HtmlKind {
    Auto,      // a page if it has a doctype or an <html>, <head> or <body> tag
    Page,      // a whole document: doctype (and so quirks mode) kept
    Fragment,  // content of a <body>, written back without html/head/body
};

class HtmlDocument {
public:
    // Any bytes are accepted: gumbo repairs what is not valid HTML (invalid
    // UTF-8 becomes U+FFFD, as in browsers).
    explicit HtmlDocument(std::string html, HtmlKind kind = HtmlKind::Auto);
    ~HtmlDocument();
    HtmlDocument(const HtmlDocument&) = delete;
    HtmlDocument& operator=(const HtmlDocument&) = delete;

    bool is_page() const;

    // The document with its text translated through `translator` (one call,
    // every segment of the document in it). The output is parsed again: if
    // it would not give the input's structure() (some trees that only broken
    // markup makes, such as misnested formatting inside SVG, cannot be
    // written so that they parse back), the input is returned as it was and
    // `*kept` (if given) set: never a document that comes back changed.
    std::string translate(SegmentTranslator& translator, bool* kept = nullptr) const;
    // The segments translate() gives its translator, in the same order,
    // without translating: for a caller that translates several documents'
    // segments together (nmt serve) and then hands each its own.
    std::vector<std::string> segments() const;
    // The document as parsed, written out again without translating.
    std::string serialize() const;

    // The elements in document order, "svg:"/"math:" before foreign ones;
    // a fragment's without the html element gumbo puts round it.
    std::vector<std::string> tag_sequence() const;
    // The element tree as one string, nesting included, where the inline
    // elements that sit side by side in one translated segment are listed
    // in a fixed order: a translation may reorder them with their words
    // (an adjective after its noun), nothing else.
    std::string structure() const;

private:
    struct Parsed;
    std::string html_;
    std::unique_ptr<Parsed> parsed_;
};

}  // namespace nmt
