#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fake_segment_translator.h"
#include "formats/html_document.h"
#include "formats/markdown_document.h"

using nmt::HtmlDocument;
using nmt::HtmlKind;
using nmt::MarkdownDocument;
using nmt::testing::ReversingTranslator;

namespace {

std::string translated_markdown(const std::string& markdown) {
    ReversingTranslator translator;
    return MarkdownDocument(markdown).translate(translator);
}

// The promise: rendered to HTML, the output has the input's elements,
// nested alike (inline ones in one block may change order with their words).
void check_same_structure(const std::string& input, const std::string& output) {
    const std::string in = MarkdownDocument::to_html(input), out = MarkdownDocument::to_html(output);
    INFO("input HTML: " << in);
    INFO("output HTML: " << out);
    CHECK(HtmlDocument(in, HtmlKind::Fragment).structure() == HtmlDocument(out, HtmlKind::Fragment).structure());
}

}  // namespace

TEST_CASE("markdown: paragraphs and headings translated, markers kept") {
    ReversingTranslator translator;
    const std::string in = "# Hello world #\n\nOne two\nthree.\n\nSetext title\n============\n";
    const std::string out = MarkdownDocument(in).translate(translator);
    CHECK(out == "# WORLD HELLO #\n\nTHREE. TWO ONE\n\nTITLE SETEXT\n============\n");
    REQUIRE(translator.seen.size() == 1);
    CHECK(translator.seen[0] == std::vector<std::string>{"Hello world", "One two three.", "Setext title"});
    check_same_structure(in, out);
}

TEST_CASE("markdown: emphasis and links follow their words, URL kept") {
    const std::string in = "The **red** car is [here now](https://example.org/a_b?x=1&y=2 \"Title\") *really*.\n";
    const std::string out = translated_markdown(in);
    // The reversing fake moves the full stop with "really": it stays outside
    // the emphasis, where the source had it.
    CHECK(out == "*REALLY*. [NOW HERE](https://example.org/a_b?x=1&y=2 \"Title\") IS CAR **RED** THE\n");
    check_same_structure(in, out);
}

TEST_CASE("markdown: inline code and code blocks byte-identical") {
    const std::string in =
        "Run `make  all` now.\n\n```sh\n# not a heading\nmake *all*\n```\n\n    indented code\n\nSee ``a`b``.\n";
    const std::string out = translated_markdown(in);
    CHECK(out.find("NOW. `make  all` RUN") != std::string::npos);
    CHECK(out.find("```sh\n# not a heading\nmake *all*\n```\n") != std::string::npos);
    CHECK(out.find("\n    indented code\n") != std::string::npos);
    CHECK(out.find("``a`b``") != std::string::npos);
    check_same_structure(in, out);
}

TEST_CASE("markdown: lists, block quotes and task lists keep their markers") {
    const std::string in = "- first item\n- second *item*\n  continued\n\n1. one\n2. two\n\n> quoted text\n> more\n\n"
                           "- [ ] a task\n- [x] done task\n";
    const std::string out = translated_markdown(in);
    CHECK(out ==
          "- ITEM FIRST\n- CONTINUED *ITEM* SECOND\n\n1. ONE\n2. TWO\n\n> MORE TEXT QUOTED\n\n"
          "- [ ] TASK A\n- [x] TASK DONE\n");
    check_same_structure(in, out);
}

TEST_CASE("markdown: tables translated cell by cell") {
    const std::string in = "| Option | What it does |\n|--------|:------------:|\n| `-v` | prints *more* lines |\n"
                           "| a \\| b | c |\n";
    ReversingTranslator translator;
    const std::string out = MarkdownDocument(in).translate(translator);
    CHECK(out == "| OPTION | DOES IT WHAT |\n|--------|:------------:|\n| `-v` | LINES *MORE* PRINTS |\n"
                 "| B \\| A | C |\n");
    check_same_structure(in, out);
}

TEST_CASE("markdown: text that would read as markup is escaped") {
    // The reversed words would start a list, a heading, an emphasis.
    const std::string in = "x 1.\n\nfoo -\n\nb* a*\n\nwww.example.org is autolinked\n";
    const std::string out = translated_markdown(in);
    check_same_structure(in, out);
    CHECK(out.find("1\\.") != std::string::npos);
}

TEST_CASE("markdown: reference definitions, HTML blocks and inline HTML kept") {
    const std::string in = "[ref]: https://example.org\nSome text with [a link][ref].\n\n<div>\nraw *html*\n</div>\n\n"
                           "A <b>bold</b> word<br/>here.\n";
    const std::string out = translated_markdown(in);
    CHECK(out.find("[ref]: https://example.org\n") == 0);
    CHECK(out.find("<div>\nraw *html*\n</div>") != std::string::npos);
    CHECK(out.find("<b>BOLD</b>") != std::string::npos);
    check_same_structure(in, out);
}

TEST_CASE("markdown: hard line breaks and entities") {
    const std::string in = "one two  \nthree &amp; four\\\nfive\n";
    const std::string out = translated_markdown(in);
    CHECK(out.find("&") != std::string::npos);
    CHECK(out.find("FIVE") != std::string::npos);
    const std::string html = MarkdownDocument::to_html(out);
    CHECK(html.find("<br") != std::string::npos);
}

namespace {

std::string read_markdown_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// Each fenced or indented code block's info string and text.
std::vector<std::string> code_blocks(const std::string& markdown) {
    std::vector<std::string> out;
    std::string html = MarkdownDocument::to_html(markdown);
    for (size_t at = html.find("<pre>"); at != std::string::npos; at = html.find("<pre>", at + 1))
        out.push_back(html.substr(at, html.find("</pre>", at) - at));
    return out;
}

}  // namespace

TEST_CASE("markdown: a real README keeps its structure and its code") {
    const std::string in = read_markdown_file(std::string(NMT_SOURCE_DIR) + "/tests/data/markdown/nodejs-corepack.md");
    ReversingTranslator translator;
    const std::string out = MarkdownDocument(in).translate(translator);
    check_same_structure(in, out);
    CHECK(code_blocks(out) == code_blocks(in));
    CHECK(code_blocks(in).size() >= 3);
    // Every fenced block byte for byte in the output's text.
    for (size_t at = in.find("```"); at != std::string::npos;) {
        const size_t end = in.find("\n```", at + 3);
        REQUIRE(end != std::string::npos);
        CHECK(out.find(in.substr(at, end + 4 - at)) != std::string::npos);
        at = in.find("```", end + 4);
    }
    REQUIRE(translator.seen.size() == 1);
    CHECK(translator.seen[0].size() > 30);
    CHECK(out.find("# COREPACK") != std::string::npos);
}

TEST_CASE("markdown: a block whose open inline HTML tag would re-nest the page once words move stays as it was") {
    // cmark renders <p><em>n<b></em>#</p>: HTML closes the <b> with the <em>
    // and opens a new one for "#". Word for word, "n#" is one word that the
    // emphasis would take whole, and the <b> would move before it.
    const std::string in = "*n<b>*#\n\nOther words here.\n";
    nmt::testing::IdentityTranslator identity;
    CHECK(MarkdownDocument(in).translate(identity) == in);
    const std::string reversed = translated_markdown(in);
    CHECK(reversed == "*n<b>*#\n\nHERE. WORDS OTHER\n");  // the other block is translated
    check_same_structure(in, reversed);
    // A balanced tag moves with its words as before.
    CHECK(translated_markdown("one <b>two</b> three\n") == "THREE <b>TWO</b> ONE\n");
}

TEST_CASE("markdown: a block that would change the page in its place stays as it was") {
    // "|" after a table is a paragraph; written back escaped ("\|", as any
    // pipe in translated text is), it would read as one more table row.
    const std::string in = "`\n-|\n|";
    nmt::testing::IdentityTranslator identity;
    const std::string out = MarkdownDocument(in).translate(identity);
    CHECK(out == "\\`\n-|\n|");  // the header cell written back (escaped), the paragraph kept
    check_same_structure(in, out);
    check_same_structure(in, translated_markdown(in));
}
