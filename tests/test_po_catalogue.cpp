// gettext catalogues through the reversing fake translator: what is
// translated, what is kept, plural forms, fuzzy marks, placeholders,
// accelerators, newlines and whitespace, and malformed input refused.
#include <doctest/doctest.h>

#include <string>

#include "core/error.h"
#include "fake_segment_translator.h"
#include "formats/po_catalogue.h"
#include "test_support.h"

using namespace nmt;

namespace {

const std::string kHeader =
    "# A test catalogue.\n"
    "#, fuzzy\n"
    "msgid \"\"\n"
    "msgstr \"\"\n"
    "\"Project-Id-Version: test 1.0\\n\"\n"
    "\"Language: \\n\"\n"
    "\"MIME-Version: 1.0\\n\"\n"
    "\"Content-Type: text/plain; charset=CHARSET\\n\"\n"
    "\"Content-Transfer-Encoding: 8bit\\n\"\n"
    "\"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n\"\n\n";

std::string translate(const std::string& body, const std::string& language = "fr", bool overwrite = false,
                      testing::ReversingTranslator* fake = nullptr) {
    testing::ReversingTranslator own;
    DocumentOptions options;
    options.target_language = language;
    options.overwrite_translated = overwrite;
    return translate_po(kHeader + body, "test.pot", fake ? *fake : own, options);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The reversing fake without its upper-casing: words reversed as they are,
// so that placeholders come through intact, only moved.
class OrderReversingTranslator : public SegmentTranslator {
public:
    std::vector<SegmentTranslation> translate(const std::vector<std::string>& segments) override {
        std::vector<SegmentTranslation> out;
        for (const auto& segment : segments) {
            SegmentTranslation r = testing::ReversingTranslator::reverse(segment);
            const size_t n = r.source_words.size();
            for (size_t t = 0; t < n; ++t) {
                const ByteSpan& from = r.source_words[n - 1 - t];
                r.text.replace(r.target_words[t].begin, r.target_words[t].end - r.target_words[t].begin,
                               segment.substr(from.begin, from.end - from.begin));
            }
            out.push_back(std::move(r));
        }
        return out;
    }
};

}  // namespace

TEST_CASE("po: untranslated messages are translated and marked fuzzy, the header gets the language") {
    const std::string out = translate("#: hello.c:1\nmsgid \"Hello big world\"\nmsgstr \"\"\n");
    CAPTURE(out);
    CHECK(has(out, "#, fuzzy\nmsgid \"Hello big world\"\nmsgstr \"WORLD BIG HELLO\"\n"));
    CHECK(has(out, "#: hello.c:1\n"));
    CHECK(has(out, "\"Language: fr\\n\""));
    CHECK(has(out, "charset=UTF-8"));
    // The header's template rule replaced by the language's (msgfmt checks it).
    CHECK(has(out, "\"Plural-Forms: nplurals=2; plural=(n > 1);\\n\""));
}

TEST_CASE("po: plural messages fill every form the language's rule asks for") {
    const std::string body = "msgid \"one file\"\nmsgid_plural \"many files\"\nmsgstr[0] \"\"\nmsgstr[1] \"\"\n";
    const std::string fr = translate(body, "fr");
    CAPTURE(fr);
    CHECK(has(fr, "msgstr[0] \"FILE ONE\"\nmsgstr[1] \"FILES MANY\"\n"));
    CHECK(has(fr, "\"Plural-Forms: nplurals=2; plural=(n > 1);\\n\""));
    const std::string de = translate(body, "de");
    CHECK(has(de, "\"Plural-Forms: nplurals=2; plural=(n != 1);\\n\""));
    const std::string pl = translate(body, "pl");
    CAPTURE(pl);
    CHECK(has(pl, "msgstr[0] \"FILE ONE\"\nmsgstr[1] \"FILES MANY\"\nmsgstr[2] \"FILES MANY\"\n"));
    CHECK(has(pl, "nplurals=3;"));
    const std::string ja = translate(body, "ja");  // one form: the plural's
    CAPTURE(ja);
    CHECK(has(ja, "msgstr[0] \"FILES MANY\"\n"));
    CHECK(!has(ja, "msgstr[1]"));
    // A header that already says how many forms is obeyed.
    testing::ReversingTranslator fake;
    DocumentOptions options;
    options.target_language = "fr";
    std::string header = kHeader;
    header.replace(header.find("nplurals=INTEGER; plural=EXPRESSION;"), 36, "nplurals=3; plural=(n==1 ? 0 : n==2 ? 1 : 2);");
    const std::string three = translate_po(header + body, "x.po", fake, options);
    CHECK(has(three, "msgstr[2] \"FILES MANY\""));
    CHECK(has(three, "nplurals=3; plural=(n==1 ? 0 : n==2 ? 1 : 2);"));
    CHECK(usual_plural_forms("fr_CA") == "nplurals=2; plural=(n > 1);");
    CHECK(usual_plural_forms("pt_BR") == "nplurals=2; plural=(n > 1);");
    CHECK(usual_plural_forms("pt") == "nplurals=2; plural=(n != 1);");
    CHECK(usual_plural_forms("xx").empty());
    CHECK(plural_count("nplurals=INTEGER; plural=EXPRESSION;") == 0);
    CHECK(plural_count("nplurals= 4; plural=n;") == 4);
}

TEST_CASE("po: translated messages are kept unless overwriting") {
    const std::string body =
        "msgid \"Open file\"\nmsgstr \"Ouvrir le fichier\"\n\n"
        "#, fuzzy\nmsgid \"Close file\"\nmsgstr \"Fermer\"\n\n"
        "msgid \"Save file\"\nmsgstr \"\"\n";
    testing::ReversingTranslator fake;
    const std::string kept = translate(body, "fr", false, &fake);
    CAPTURE(kept);
    CHECK(has(kept, "msgid \"Open file\"\nmsgstr \"Ouvrir le fichier\"\n"));
    CHECK(!has(kept, "#, fuzzy\nmsgid \"Open file\""));
    CHECK(has(kept, "#, fuzzy\nmsgid \"Close file\"\nmsgstr \"Fermer\"\n"));
    CHECK(has(kept, "#, fuzzy\nmsgid \"Save file\"\nmsgstr \"FILE SAVE\"\n"));
    REQUIRE(fake.seen.size() == 1);
    CHECK(fake.seen[0] == std::vector<std::string>{"Save file"});  // only what needs translating
    const std::string overwritten = translate(body, "fr", true);
    CHECK(has(overwritten, "#, fuzzy\nmsgid \"Open file\"\nmsgstr \"FILE OPEN\"\n"));
    CHECK(has(overwritten, "msgstr \"FILE CLOSE\""));
}

TEST_CASE("po: placeholders come out as in the source, unnumbered ones in its order") {
    OrderReversingTranslator reverse;
    DocumentOptions options;
    options.target_language = "de";
    const std::string out = translate_po(kHeader +
        "#, c-format\nmsgid \"copied %s to %d places\"\nmsgstr \"\"\n\n"
        "#, python-format\nmsgid \"hello %(name)s and %(other)s\"\nmsgstr \"\"\n\n"
        "#, python-brace-format\nmsgid \"open {path} now\"\nmsgstr \"\"\n\n"
        "#, c-format\nmsgid \"%s: %s\"\nmsgstr \"\"\n", "test.pot", reverse, options);
    CAPTURE(out);
    // Reversed: "places %d to %s copied"; put back in the source's order.
    CHECK(has(out, "msgstr \"places %s to %d copied\""));
    // Named ones stay where the translation put them.
    CHECK(has(out, "msgstr \"%(other)s and %(name)s hello\""));
    CHECK(has(out, "msgstr \"now {path} open\""));
    // Nothing but placeholders: copied, not translated.
    CHECK(has(out, "msgid \"%s: %s\"\nmsgstr \"%s: %s\""));

    // The upper-casing fake garbles them into what C reads as other
    // conversions ("%D", "%S"): the message fails gettext's format check and
    // is left untranslated, with a warning naming it.
    testing::ReversingTranslator upper;
    std::vector<std::string> warnings;
    options.warn = [&](const std::string& w) { warnings.push_back(w); };
    const std::string garbled =
        translate_po(kHeader + "#, c-format\nmsgid \"copied %s to %d places\"\nmsgstr \"\"\n", "g.pot", upper, options);
    CAPTURE(garbled);
    CHECK(has(garbled, "#, c-format\nmsgid \"copied %s to %d places\"\nmsgstr \"\"\n"));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].rfind("g.pot: message \"copied %s to %d places\" left untranslated", 0) == 0);
}

TEST_CASE("po: accelerators go back on the aligned word, or the first") {
    const std::string out = translate(
        "msgid \"_File\"\nmsgstr \"\"\n\n"
        "msgid \"Save _As\"\nmsgstr \"\"\n\n"
        "msgid \"&Open recent\"\nmsgstr \"\"\n\n"
        "msgid \"Tom &amp; Jerry\"\nmsgstr \"\"\n\n"
        "msgid \"the file_name option must name a real file on the disk\"\nmsgstr \"\"\n");
    CAPTURE(out);
    CHECK(has(out, "msgstr \"_FILE\""));
    CHECK(has(out, "msgstr \"_AS SAVE\""));
    CHECK(has(out, "msgstr \"RECENT &OPEN\""));
    CHECK(has(out, "msgstr \"JERRY &amp; TOM\""));  // an entity, not a mark
    CHECK(has(out, "FILE_NAME THE\""));              // a long sentence's '_' is a word's
}

TEST_CASE("po: a message is translated line by line, its whitespace kept") {
    testing::ReversingTranslator fake;
    const std::string out = translate(
        "msgid \"\"\n\"first line here\\n\"\n\"  second line\\n\"\nmsgstr \"\"\n\n"
        "msgid \"  padded words \"\nmsgstr \"\"\n\n"
        "msgid \"\\nstarts empty\"\nmsgstr \"\"\n",
        "fr", false, &fake);
    CAPTURE(out);
    CHECK(has(out, "\"HERE LINE FIRST\\n\"\n\"  LINE SECOND\\n\""));
    CHECK(has(out, "msgstr \"  WORDS PADDED \""));
    CHECK(has(out, "msgstr \"\"\n\"\\n\"\n\"EMPTY STARTS\""));
    // One call for the whole catalogue, each distinct line once.
    REQUIRE(fake.seen.size() == 1);
    CHECK(fake.seen[0] == std::vector<std::string>{"first line here", "second line", "padded words", "starts empty"});
}

TEST_CASE("po: malformed catalogues are refused naming the file and line") {
    testing::ReversingTranslator fake;
    DocumentOptions options;
    options.target_language = "fr";
    const std::string broken = "msgid \"one\"\nmsgstr \"un\"\n\nmsgid \"two\"\nmsgstr \"deux\n";
    std::string message = testing::error_of([&] { translate_po(broken, "broken.po", fake, options); });
    CAPTURE(message);
    CHECK(message.rfind("broken.po: line 6: end-of-line within string", 0) == 0);  // as msgfmt says
    CHECK(has(message, "nothing written"));
    message = testing::error_of([&] { translate_po("msgid \"a\"\nmsgstr \"b\"\nmsgid \"a\"\nmsgstr \"c\"\n", "dup.po", fake, options); });
    CAPTURE(message);
    CHECK(message.rfind("dup.po: line 3", 0) == 0);
    message = testing::error_of([&] { translate_po("hello there\n", "junk.po", fake, options); });
    CHECK(message.rfind("junk.po: line 1", 0) == 0);
    const std::string latin1 = "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=ISO-8859-1\\n\"\n\nmsgid \"a\"\nmsgstr \"\"\n";
    message = testing::error_of([&] { translate_po(latin1, "old.po", fake, options); });
    CHECK(has(message, "old.po: the catalogue's charset is ISO-8859-1"));
    CHECK(fake.seen.empty());
    // An empty input is an empty catalogue, not an error.
    CHECK(testing::error_of([&] { translate_po("", "empty.po", fake, options); }).empty());
}
