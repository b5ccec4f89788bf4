// Sentence splitting: where English, French and German lines are cut, where
// they are not, and that the cut pieces always give back the line.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/random.h"
#include "decode/sentence_split.h"

// Failed checks show the sentences, not {?}.
namespace doctest {
template <>
struct StringMaker<std::vector<std::string>> {
    static String convert(const std::vector<std::string>& strings) {
        std::string out = "{";
        for (const auto& s : strings) out += (out.size() > 1 ? ", \"" : "\"") + s + "\"";
        return (out + "}").c_str();
    }
};
}  // namespace doctest

using nmt::SentenceSpan;
using nmt::split_sentences;

namespace {

using Strings = std::vector<std::string>;

Strings sentences(const std::string& line) {
    Strings out;
    for (const auto& span : split_sentences(line)) out.push_back(line.substr(span.begin, span.end - span.begin));
    return out;
}

// Every span's `before`, its sentence, then the text after the last one.
std::string rejoin(const std::string& line, const std::vector<SentenceSpan>& spans) {
    std::string out;
    for (const auto& span : spans) out += span.before + line.substr(span.begin, span.end - span.begin);
    return out + line.substr(spans.empty() ? 0 : spans.back().end);
}

}  // namespace

TEST_CASE("sentence split: English paragraphs") {
    CHECK(sentences("The cat sat. The dog ran! Did it? Yes.") == Strings{"The cat sat.", "The dog ran!", "Did it?", "Yes."});
    CHECK(sentences("It ended in 1999. 2000 was next.") == Strings{"It ended in 1999.", "2000 was next."});
    CHECK(sentences("Really?! Yes.") == Strings{"Really?!", "Yes."});
    CHECK(sentences("Wait... Then it happened.") == Strings{"Wait...", "Then it happened."});
    CHECK(sentences("Well\xE2\x80\xA6 Maybe.") == Strings{"Well\xE2\x80\xA6", "Maybe."});
    // Only a capital, a digit or an opening quote or bracket starts a sentence.
    CHECK(sentences("Wait... what? and then it stopped.") == Strings{"Wait... what? and then it stopped."});
    CHECK(sentences("This is it. and then more") == Strings{"This is it. and then more"});
}

TEST_CASE("sentence split: English abbreviations and initials do not end sentences") {
    CHECK(sentences("Mr. Smith went to Washington. He arrived on Jan. 5.") ==
          Strings{"Mr. Smith went to Washington.", "He arrived on Jan. 5."});
    CHECK(sentences("Dr. Who met Prof. Plum at St. Mary's. They talked.") ==
          Strings{"Dr. Who met Prof. Plum at St. Mary's.", "They talked."});
    CHECK(sentences("Use a language, e.g. Python, i.e. Something simple. It works.") ==
          Strings{"Use a language, e.g. Python, i.e. Something simple.", "It works."});
    CHECK(sentences("Apple Inc. And Acme Ltd. Bought No. 5 and cats vs. Dogs etc. Too.") ==
          Strings{"Apple Inc. And Acme Ltd. Bought No. 5 and cats vs. Dogs etc. Too."});
    CHECK(sentences("J. R. R. Tolkien wrote it. He was British.") ==
          Strings{"J. R. R. Tolkien wrote it.", "He was British."});
    CHECK(sentences("I met A. Smith. She waved.") == Strings{"I met A. Smith.", "She waved."});
    CHECK(sentences("He lived in the U.S. For years.") == Strings{"He lived in the U.S. For years."});
    // Abbreviations match whole words, case-sensitively: "no." can end a sentence.
    CHECK(sentences("He said no. Then he left.") == Strings{"He said no.", "Then he left."});
    CHECK(sentences("Take the 1St. Then turn.") == Strings{"Take the 1St.", "Then turn."});
    // After an opening bracket an abbreviation is still a word.
    CHECK(sentences("See the note (Fig. 3) here. Next.") == Strings{"See the note (Fig. 3) here.", "Next."});
}

TEST_CASE("sentence split: French") {
    CHECK(sentences("M. Dupont est là. Mme. Durand aussi.") == Strings{"M. Dupont est là.", "Mme. Durand aussi."});
    CHECK(sentences("Des fruits, p. ex. Des pommes. Voilà.") == Strings{"Des fruits, p. ex. Des pommes.", "Voilà."});
    // French spacing before ? and !: normal, no-break (U+00A0) and narrow no-break (U+202F) spaces.
    CHECK(sentences("Quoi ? Oui.") == Strings{"Quoi ?", "Oui."});
    CHECK(sentences("Quoi\xC2\xA0? Oui\xC2\xA0! Bien.") == Strings{"Quoi\xC2\xA0?", "Oui\xC2\xA0!", "Bien."});
    CHECK(sentences("Quoi\xE2\x80\xAF?\xC2\xA0\xC3\x89" "coute.") == Strings{"Quoi\xE2\x80\xAF?", "\xC3\x89" "coute."});
    // A closing guillemet set off by a space stays with its sentence.
    CHECK(sentences("Il a dit\xC2\xA0: \xC2\xAB\xC2\xA0Oui.\xC2\xA0\xC2\xBB Puis il est parti.") ==
          Strings{"Il a dit\xC2\xA0: \xC2\xAB\xC2\xA0Oui.\xC2\xA0\xC2\xBB", "Puis il est parti."});
    CHECK(sentences("\xC2\xAB Bonjour ! \xC2\xBB dit-il.") == Strings{"\xC2\xAB Bonjour ! \xC2\xBB dit-il."});
    // A capital with an accent starts a sentence.
    CHECK(sentences("C'est fini. \xC3\x80 demain.") == Strings{"C'est fini.", "\xC3\x80 demain."});
}

TEST_CASE("sentence split: German") {
    CHECK(sentences("Das ist z. B. Obst. Und das ist z.B. Gem\xC3\xBCse. Vgl. Abschnitt 2, d. h. Nr. 3 usw. Ende.") ==
          Strings{"Das ist z. B. Obst.", "Und das ist z.B. Gem\xC3\xBCse.",
                  "Vgl. Abschnitt 2, d. h. Nr. 3 usw. Ende."});
    CHECK(sentences("Hr. M\xC3\xBCller und Fr. Schmidt kommen ca. Um f\xC3\xBCnf. Dann essen wir.") ==
          Strings{"Hr. M\xC3\xBCller und Fr. Schmidt kommen ca. Um f\xC3\xBCnf.", "Dann essen wir."});
    // A number before a month is an ordinal: "am 3. Mai".
    CHECK(sentences("Er kam am 3. Mai an. Dann ging er.") == Strings{"Er kam am 3. Mai an.", "Dann ging er."});
    CHECK(sentences("Am 1. Januar und am 24. Dezember ist frei.") == Strings{"Am 1. Januar und am 24. Dezember ist frei."});
    CHECK(sentences("Am 12. M\xC3\xA4rz. Am 3. April.") == Strings{"Am 12. M\xC3\xA4rz.", "Am 3. April."});
    // Before a lowercase word nothing splits anyway; before any other capital a number ends the sentence.
    CHECK(sentences("Er wurde 3. und sie 4.") == Strings{"Er wurde 3. und sie 4."});
    CHECK(sentences("Es kostet 5. Das ist viel.") == Strings{"Es kostet 5.", "Das ist viel."});
    CHECK(sentences("Es ist gro\xC3\x9F. \xC3\x9C" "berall.") == Strings{"Es ist gro\xC3\x9F.", "\xC3\x9C" "berall."});
}

TEST_CASE("sentence split: quotes and brackets go with the sentence they close") {
    CHECK(sentences("He said \"Stop.\" Then he left.") == Strings{"He said \"Stop.\"", "Then he left."});
    CHECK(sentences("She asked 'Why?' \"Because.\" Done.") == Strings{"She asked 'Why?'", "\"Because.\"", "Done."});
    CHECK(sentences("Er sagte: \xE2\x80\x9EKomm.\xE2\x80\x9C Sie kam.") ==
          Strings{"Er sagte: \xE2\x80\x9EKomm.\xE2\x80\x9C", "Sie kam."});
    CHECK(sentences("Er rief: \xC2\xBBHalt!\xC2\xAB Sie blieb.") == Strings{"Er rief: \xC2\xBBHalt!\xC2\xAB", "Sie blieb."});
    CHECK(sentences("He said \xE2\x80\x9CYes.\xE2\x80\x9D (See above.) Next item.") ==
          Strings{"He said \xE2\x80\x9CYes.\xE2\x80\x9D", "(See above.)", "Next item."});
    // An opening quote or bracket starts a sentence.
    CHECK(sentences("It is done. \xC2\xBBJa\xC2\xAB, sagte er.") == Strings{"It is done.", "\xC2\xBBJa\xC2\xAB, sagte er."});
}

TEST_CASE("sentence split: dots without whitespace after them: URLs, file names, versions, placeholders") {
    CHECK(sentences("Visit example.com. It is at www.example.com/a.b?x=1 today. Version v1.2 is out.") ==
          Strings{"Visit example.com.", "It is at www.example.com/a.b?x=1 today.", "Version v1.2 is out."});
    CHECK(sentences("Open file.txt now. Pi is 3.14.") == Strings{"Open file.txt now.", "Pi is 3.14."});
    CHECK(sentences("File %s. Try again.") == Strings{"File %s.", "Try again."});
    CHECK(sentences("Saved %s.txt and %d.log now.") == Strings{"Saved %s.txt and %d.log now."});
}

TEST_CASE("sentence split: layout is kept: separators, leading and trailing whitespace") {
    const std::string line = "  One.\tTwo.   Three!\xC2\xA0 Four?  ";
    const auto spans = split_sentences(line);
    REQUIRE(spans.size() == 4);
    CHECK(sentences(line) == Strings{"One.", "Two.", "Three!", "Four?"});
    CHECK(spans[0].before == "  ");
    CHECK(spans[1].before == "\t");
    CHECK(spans[2].before == "   ");
    CHECK(spans[3].before == "\xC2\xA0 ");
    CHECK(line.substr(spans.back().end) == "  ");
    CHECK(rejoin(line, spans) == line);
}

TEST_CASE("sentence split: lines with nothing to split") {
    CHECK(split_sentences("").empty());
    CHECK(split_sentences(" \t \xC2\xA0").empty());
    CHECK(split_sentences("\xE2\x80\x80 \xE3\x80\x80").empty());  // U+2000, U+3000: found by fuzzing
    CHECK(sentences("no terminal punctuation here") == Strings{"no terminal punctuation here"});
    CHECK(sentences("  Trailing spaces only.  ") == Strings{"Trailing spaces only."});
    CHECK(sentences("Ends with a space. ") == Strings{"Ends with a space."});
    CHECK(sentences(". . .") == Strings{". . ."});
    // Invalid UTF-8 and control characters are ordinary characters.
    CHECK(sentences("Bad \xFF\xFE. Next one\x01. Last.") == Strings{"Bad \xFF\xFE.", "Next one\x01.", "Last."});
    CHECK(sentences("Cut \xE2\x82. Next.") == Strings{"Cut \xE2\x82.", "Next."});
}

TEST_CASE("sentence split: spans and separators give back any input exactly") {
    // Fragments that exercise every rule, plus bytes no UTF-8 decoder accepts.
    const char* fragments[] = {"A", "b", "Z", "3", ".", ".", ".", "!", "?", "\xE2\x80\xA6", " ", " ", "\t", "\n",
                               "\xC2\xA0", "\xE2\x80\xAF", "\"", "'", ")", "(", "\xC2\xBB", "\xC2\xAB", "\xE2\x80\x9E",
                               "Mr", "z", "etc", "Mai", "p. ex", "\xC3\x89", "\xC3\xA9", "\xFF", "\x01", "\xE2\x82",
                               "\x80", "\xF0\x9F\x98\x80", "\xED\xA0\x80", "%s", "v1.2"};
    const size_t n_fragments = sizeof fragments / sizeof fragments[0];
    // The bytes of what Python's str.isspace() accepts among the fragments
    // and below 0x80, and of U+0085, U+00A0 and U+202F.
    const std::string kSpaceBytes(" \t\n\v\f\r\x1c\x1d\x1e\x1f\xC2\x85\xA0\xE2\x80\xAF");
    nmt::Random random(2024);
    for (int trial = 0; trial < 20000; ++trial) {
        std::string line;
        const int length = static_cast<int>(random.below(40));
        for (int k = 0; k < length; ++k) {
            if (trial % 4 == 3)
                line += static_cast<char>(random.below(256));  // raw bytes
            else
                line += fragments[random.below(n_fragments)];
        }
        CAPTURE(line);
        const auto spans = split_sentences(line);
        REQUIRE(rejoin(line, spans) == line);
        size_t previous_end = 0;
        for (const auto& span : spans) {
            REQUIRE(previous_end <= span.begin);
            REQUIRE(span.begin < span.end);
            REQUIRE(span.end <= line.size());
            CHECK(span.before == line.substr(previous_end, span.begin - previous_end));
            const char first = line[span.begin], last = line[span.end - 1];
            CHECK(first != ' ');
            CHECK(first != '\t');
            CHECK(last != ' ');
            CHECK(last != '\t');
            previous_end = span.end;
        }
        // Only a line of whitespace has no sentence (a byte test: it cannot
        // tell a no-break space from stray bytes of one, but it catches text
        // that was lost).
        if (spans.empty()) CHECK(line.find_first_not_of(kSpaceBytes) == std::string::npos);
    }
}
