#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fake_segment_translator.h"
#include "formats/html_document.h"

using nmt::HtmlDocument;
using nmt::HtmlKind;
using nmt::testing::IdentityTranslator;
using nmt::testing::ReversingTranslator;

namespace {

std::string translated_html(const std::string& html, HtmlKind kind = HtmlKind::Auto) {
    ReversingTranslator translator;
    return HtmlDocument(html, kind).translate(translator);
}

// The promise: the output parses to the input's elements, nested alike.
void check_same_elements(const std::string& input, const std::string& output) {
    HtmlDocument in(input), out(output);
    CHECK(in.is_page() == out.is_page());
    CHECK(in.structure() == out.structure());
    std::vector<std::string> a = in.tag_sequence(), b = out.tag_sequence();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    CHECK(a == b);
}

std::string read_html_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

}  // namespace

TEST_CASE("html: a paragraph is one segment, translated") {
    ReversingTranslator translator;
    const std::string out = HtmlDocument("<p>Hello big world</p>").translate(translator);
    CHECK(out == "<p>WORLD BIG HELLO</p>");
    REQUIRE(translator.seen.size() == 1);
    CHECK(translator.seen[0] == std::vector<std::string>{"Hello big world"});
}

TEST_CASE("html: inline tags follow their words") {
    ReversingTranslator translator;
    const std::string in = "<p>The <b>red</b> car is <a href=\"/x?a=1&amp;b=2\">here now</a>.</p>";
    const std::string out = HtmlDocument(in).translate(translator);
    REQUIRE(translator.seen.size() == 1);
    CHECK(translator.seen[0] == std::vector<std::string>{"The red car is here now."});
    // Reversed: "NOW. HERE IS CAR RED THE", the link round HERE (now. is one word with the period).
    CHECK(out == "<p><a href=\"/x?a=1&amp;b=2\">NOW. HERE</a> IS CAR <b>RED</b> THE</p>");
    check_same_elements(in, out);
}

TEST_CASE("html: punctuation the translation put at a tag's edge stays outside it, brackets inside its words stay, copies win") {
    using Answer = nmt::testing::ScriptedTranslator::Answer;
    nmt::testing::ScriptedTranslator translator({
        // "noyau." is one word: the full stop after it was outside <b> in the source.
        Answer{"The kernel headers.", "Les en-têtes du noyau.", {{0, 0}, {1, 2}, {1, 3}, {2, 1}}},
        // The link was inside brackets; the model joined them and a ";" to its words.
        Answer{"How to (upload packages); and more", "Comment (téléverser des paquets) ; et plus",
               {{0, 0}, {1, 0}, {2, 1}, {3, 2}, {3, 3}, {3, 4}, {4, 5}, {5, 6}}},
        // A bracket matched inside the tag's own words stays, the full stop goes.
        Answer{"See dput(1).", "Voir dput(1).", {{0, 0}, {1, 1}}},
        // Punctuation the source tag itself held is kept.
        Answer{"He said: really?", "Il a dit : vraiment ?", {{0, 0}, {1, 1}, {1, 2}, {1, 3}, {2, 4}, {2, 5}}},
        // A quoted title keeps its quotes, not the sentence's full stop.
        Answer{"See \"Uploading a package\".", "Voir «Téléverser un paquet».", {{0, 0}, {1, 1}, {2, 2}, {3, 3}}},
        // A copied word linked to its copy and a neighbour keeps the copy alone.
        Answer{"For the debuild command:", "Pour la commande debuild :", {{0, 0}, {1, 1}, {2, 2}, {2, 3}, {3, 2}, {3, 4}}},
    });
    CHECK(HtmlDocument("<p>The <b>kernel</b> headers.</p>").translate(translator) ==
          "<p>Les en-têtes <b>du noyau</b>.</p>");
    CHECK(HtmlDocument("<p>How to (<a href=\"u\">upload packages</a>); and more</p>").translate(translator) ==
          "<p>Comment (<a href=\"u\">téléverser des paquets</a>) ; et plus</p>");
    CHECK(HtmlDocument("<p>See <i>dput(1)</i>.</p>").translate(translator) == "<p>Voir <i>dput(1)</i>.</p>");
    CHECK(HtmlDocument("<p>He said: <em>really?</em></p>").translate(translator) ==
          "<p>Il a dit : <em>vraiment ?</em></p>");
    CHECK(HtmlDocument("<p>See <a href=\"u\">\"Uploading a package\"</a>.</p>").translate(translator) ==
          "<p>Voir <a href=\"u\">«Téléverser un paquet»</a>.</p>");
    CHECK(HtmlDocument("<p>For the <b>debuild</b> command:</p>").translate(translator) ==
          "<p>Pour la commande <b>debuild</b> :</p>");
}

TEST_CASE("html: nested inline tags stay nested around their words") {
    const std::string in = "<p>one <b>two <i>three</i> four</b> five</p>";
    const std::string out = translated_html(in);
    CHECK(out == "<p>FIVE <b>FOUR <i>THREE</i> TWO</b> ONE</p>");
    check_same_elements(in, out);
}

TEST_CASE("html: a tag without words is kept next to its neighbour") {
    const std::string in = "<p>one<br>two <a id=\"x\"></a>three</p>";
    const std::string out = translated_html(in);
    CHECK(out.find("<br>") != std::string::npos);
    CHECK(out.find("<a id=\"x\"></a>") != std::string::npos);
    CHECK(out.find("THREE") != std::string::npos);
    check_same_elements(in, out);
}

TEST_CASE("html: attributes kept and title and alt translated") {
    const std::string in =
        "<div class=\"note\" id=\"n1\" title=\"a small note\"><p data-x=\"1\">see <img src=\"a.png\" alt=\"red "
        "apple\"> here</p></div>";
    const std::string out = translated_html(in);
    CHECK(out ==
          "<div class=\"note\" id=\"n1\" title=\"NOTE SMALL A\"><p data-x=\"1\">HERE SEE<img src=\"a.png\" "
          "alt=\"APPLE RED\"></p></div>");
    check_same_elements(in, out);
}

TEST_CASE("html: script, style, pre, code, comments and translate=no untouched") {
    const std::string in =
        "<style>p > b { color: red }</style><script>if (a < b && c) x();</script>"
        "<pre>\n  keep   this\n</pre><!-- a comment -->"
        "<p>run <code>make  all</code> now</p><p translate=\"no\">Product Name</p>"
        "<p>the <span translate=\"no\">Debian</span> project</p>";
    ReversingTranslator translator;
    const std::string out = HtmlDocument(in).translate(translator);
    CHECK(out.find("<style>p > b { color: red }</style>") != std::string::npos);
    CHECK(out.find("<script>if (a < b && c) x();</script>") != std::string::npos);
    CHECK(out.find("<pre>  keep   this\n</pre>") != std::string::npos);  // the parser ate the first newline
    CHECK(out.find("<!-- a comment -->") != std::string::npos);
    CHECK(out.find("<code>make  all</code>") != std::string::npos);
    CHECK(out.find("NOW <code>make  all</code> RUN") != std::string::npos);
    CHECK(out.find("<p translate=\"no\">Product Name</p>") != std::string::npos);
    CHECK(out.find("PROJECT <span translate=\"no\">Debian</span> THE") != std::string::npos);
    REQUIRE(translator.seen.size() == 1);
    CHECK(translator.seen[0] == std::vector<std::string>{"run make all now", "the Debian project"});
    check_same_elements(in, out);
}

TEST_CASE("html: text is escaped and entities come back as characters") {
    const std::string in = "<p>a &lt;b&gt; &amp; c&nbsp;d</p>";
    const std::string out = translated_html(in);
    CHECK(out == "<p>C&nbsp;D &amp; &lt;B&gt; A</p>");
    check_same_elements(in, out);
}

TEST_CASE("html: a whole page keeps its doctype, head and quirks mode") {
    const std::string page =
        "<!DOCTYPE HTML PUBLIC \"-//W3O//DTD W3 HTML Strict 3.0//EN//\">\n<html><head><title>My page</title>"
        "<meta charset=\"utf-8\"></head><body><p>Hello <em>there</em><table><tr><td>cell text</td></tr></table>"
        "</body></html>";
    HtmlDocument doc(page);
    CHECK(doc.is_page());
    const std::string out = translated_html(page);
    CHECK(out.rfind("<!DOCTYPE html PUBLIC \"-//W3O//DTD W3 HTML Strict 3.0//EN//\">", 0) == 0);
    CHECK(out.find("<title>PAGE MY</title>") != std::string::npos);
    CHECK(out.find("<td>TEXT CELL</td>") != std::string::npos);
    // In quirks mode a table stays inside the open paragraph.
    CHECK(doc.structure().find("p(em()table(") != std::string::npos);
    check_same_elements(page, out);
}

TEST_CASE("html: a fragment stays a fragment") {
    const std::string out = translated_html("<li>one two</li>");
    CHECK(out == "<li>TWO ONE</li>");
    CHECK_FALSE(HtmlDocument("<p>x</p>").is_page());
    CHECK(HtmlDocument("<body><p>x</p></body>").is_page());
}

TEST_CASE("html: broken markup is repaired as browsers repair it, never dropped") {
    const std::string in = "<p>one <b>two <i>three</b> four</i><p>five <div>six</p>";
    const std::string out = translated_html(in);
    for (const char* word : {"ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX"}) CHECK(out.find(word) != std::string::npos);
    check_same_elements(HtmlDocument(in).serialize(), out);
    // Parsing the output again gives the repaired tree.
    CHECK(HtmlDocument(out).tag_sequence().size() == HtmlDocument(in).tag_sequence().size());
}

TEST_CASE("html: serialising without translating gives the same tree") {
    for (const std::string in :
         {"<a href=x>1<a href=y>2</a></a>", "<svg><circle r=\"1\"/></p></svg>", "<table><td>x</table>",
          "<p><nobr>a<nobr>b</p>", "<math><mi>x</mi></math><select><option>a</select>",
          "<pre>\n\nx</pre><textarea>\n\ny</textarea>", "<plaintext>a</b>",
          "<!DOCTYPE html PUBLIC \"-//W3O//DTD W3 HTML Strict 3.0//EN//\"><p><table>", "<!DOCTYPE><p><table>"}) {
        const std::string out = HtmlDocument(in).serialize();
        INFO(in << " -> " << out);
        CHECK(HtmlDocument(out).tag_sequence() == HtmlDocument(in).tag_sequence());
        CHECK(HtmlDocument(out).structure() == HtmlDocument(in).structure());
    }
}

TEST_CASE("html: real pages keep their elements through translation") {
    for (const std::string name : {"debian-faq-kernel.html", "maint-guide-upload.html", "developers-reference-scope.html"}) {
        INFO(name);
        const std::string page = read_html_file(std::string(NMT_SOURCE_DIR) + "/tests/data/html/" + name);
        const HtmlDocument document(page);
        CHECK(document.is_page());
        ReversingTranslator reversing;
        bool kept = true;
        const std::string out = document.translate(reversing, &kept);
        CHECK_FALSE(kept);
        check_same_elements(page, out);
        REQUIRE(reversing.seen.size() == 1);
        CHECK(reversing.seen[0].size() > 20);  // paragraphs, headings, list items, titles
        IdentityTranslator identity;
        CHECK(HtmlDocument(document.translate(identity)).tag_sequence() == document.tag_sequence());
        // Code and preformatted text come through untouched.
        for (const std::string tag : {"<pre", "<code"}) {
            for (size_t at = page.find(tag); at != std::string::npos; at = page.find(tag, at + 1)) {
                const size_t end = page.find("</" + tag.substr(1) + ">", at);
                if (end == std::string::npos) break;
                std::string inner = page.substr(page.find('>', at) + 1, end - page.find('>', at) - 1);
                if (inner.find('<') != std::string::npos || inner.find('&') != std::string::npos) continue;
                if (tag == "<pre" && !inner.empty() && inner[0] == '\n') inner.erase(0, 1);  // the parser's
                INFO(inner);
                CHECK(out.find(inner) != std::string::npos);
            }
        }
    }
}

TEST_CASE("html: segments() are what translate() gives its translator, in order") {
    for (const std::string html :
         {"<p>One <b>two</b> three.</p><p title=\"A title\">Four <img alt=\"five six\"> seven</p>",
          "<ul><li>a<li>b <code>c</code> d</ul><p translate=no>kept</p>", "", "<!DOCTYPE html><title>T</title><p>x"}) {
        INFO(html);
        const HtmlDocument document(html);
        ReversingTranslator reversing;
        document.translate(reversing);
        const std::vector<std::string> asked = reversing.seen.empty() ? std::vector<std::string>{} : reversing.seen[0];
        CHECK(document.segments() == asked);
    }
    CHECK(HtmlDocument("<p>One <b>two</b> three.</p><p>Four</p>").segments() ==
          std::vector<std::string>{"One two three.", "Four"});
}
