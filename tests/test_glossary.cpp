#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "text/glossary.h"

using namespace nmt;

namespace {

// The message parse() throws for `text`, "" when it parses.
std::string glossary_error(const std::string& text) {
    try {
        Glossary::parse(text, "terms.tsv");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

std::vector<std::string> found_terms(const Glossary& glossary, const std::string& text) {
    std::vector<std::string> found;
    for (const TermMatch& m : glossary.find(text)) found.push_back(text.substr(m.begin, m.end - m.begin) + "=" + m.term->target);
    return found;
}

}  // namespace

TEST_CASE("glossary: terms, comments, blank lines, spaces, CRLF, a byte order mark and the case column") {
    const Glossary g = Glossary::parse(
        "\xEF\xBB\xBF# product terms\r\n\r\ncar\tbagnole\r\n  hard disk \t disque dur\n"
        "Debian\tDebian\tcase-sensitive\nmoney\tfric\tcase-insensitive\ncar\tbagnole\n",
        "terms.tsv");
    REQUIRE(g.terms().size() == 4);  // the repeated line is one term
    CHECK(g.terms()[0].source == "car");
    CHECK(g.terms()[0].target == "bagnole");
    CHECK(g.terms()[1].source == "hard disk");
    CHECK(g.terms()[1].target == "disque dur");
    CHECK(g.terms()[2].case_sensitive);
    CHECK_FALSE(g.terms()[3].case_sensitive);
    CHECK(Glossary::parse("", "empty.tsv").empty());
    CHECK(Glossary::parse("# only a comment\n\n", "empty.tsv").empty());
}

TEST_CASE("glossary: each problem is one line naming the file and the line") {
    CHECK(glossary_error("car bagnole\n") == "terms.tsv:1: no tab between the source term and the target term");
    CHECK(glossary_error("ok\tfine\n\tbagnole\n") == "terms.tsv:2: empty source term");
    CHECK(glossary_error("car\t \n") == "terms.tsv:1: empty target term");
    CHECK(glossary_error("car\tbagnole\tyes\n") ==
          "terms.tsv:1: the third column must be case-sensitive or case-insensitive, not 'yes'");
    CHECK(glossary_error("a\tb\tcase-sensitive\tx\n") ==
          "terms.tsv:1: more than three columns (source, target, and case-sensitive or case-insensitive)");
    CHECK(glossary_error("car\tvoiture\n# x\nCar\tbagnole\n") ==
          "terms.tsv:3: 'Car' is already in the glossary with the target 'voiture', not 'bagnole'");
    CHECK(glossary_error("caf\xC3\tcafé\n") == "terms.tsv:1: invalid UTF-8");
    CHECK(glossary_error("\xED\xA0\x80\tx\n") == "terms.tsv:1: invalid UTF-8");  // a surrogate
    CHECK(glossary_error(std::string("a\0b\tc\n", 6)) == "terms.tsv:1: holds a NUL byte");
    CHECK(glossary_error("x\t" + std::string(kMaxGlossaryLineBytes, 'y') + "\n") ==
          "terms.tsv:1: longer than 4096 bytes");
    for (const std::string& message :
         {glossary_error("car bagnole"), glossary_error("\tx"), glossary_error("x\t\xFF")})
        CHECK(message.find('\n') == std::string::npos);
}

TEST_CASE("glossary: case-sensitive and case-insensitive lines of one term do not conflict") {
    const Glossary g = Glossary::parse("apple\tpomme\nApple\tApple\tcase-sensitive\n", "t.tsv");
    CHECK(found_terms(g, "Apple sells apples and an apple.") ==
          std::vector<std::string>{"Apple=Apple", "apple=pomme"});
}

TEST_CASE("glossary: terms are found as whole words, longest first, in any case unless case-sensitive") {
    const Glossary g = Glossary::parse(
        "car\tbagnole\nhard disk\tdisque dur\ndisk\tdisque\nGIMP\tGIMP\tcase-sensitive\nétat\tÉtat\n.NET\tpoint NET\n",
        "t.tsv");
    CHECK(found_terms(g, "My car, your CAR; a cart and carpool.") ==
          std::vector<std::string>{"car=bagnole", "CAR=bagnole"});
    CHECK(found_terms(g, "The hard disk and the disk.") ==
          std::vector<std::string>{"hard disk=disque dur", "disk=disque"});
    CHECK(found_terms(g, "gimp or GIMP") == std::vector<std::string>{"GIMP=GIMP"});
    CHECK(found_terms(g, "ÉTAT «état» états") == std::vector<std::string>{"ÉTAT=État", "état=État"});
    CHECK(found_terms(g, "Use .NET now") == std::vector<std::string>{".NET=point NET"});
    CHECK(found_terms(g, "nothing here").empty());
    CHECK(found_terms(g, std::string("\xFF" "car\xC3")).empty());  // invalid bytes are no boundary
}

TEST_CASE("glossary: find_whole_words and fold_case") {
    CHECK(find_whole_words("La voiture, les voitures, VOITURE.", "voiture", false) == std::vector<size_t>{3, 26});
    CHECK(find_whole_words("La voiture, VOITURE.", "voiture", true) == std::vector<size_t>{3});
    CHECK(fold_case("ÀÉÎÕÜ × ABC") == "àéîõü × abc");
}
