#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "text/language_detection.h"
#include "text/words_to_judge.h"

using nmt::detect_language;

namespace {
const std::vector<std::string> kOurs = {"en", "fr", "de"};
}

TEST_CASE("language detection: sentences of each candidate language") {
    CHECK(detect_language("The weather is lovely today and we are going to the beach.", kOurs).language == "en");
    CHECK(detect_language("Il fait très beau aujourd'hui et nous allons à la plage.", kOurs).language == "fr");
    CHECK(detect_language("Das Wetter ist heute schön und wir gehen an den Strand.", kOurs).language == "de");
    const auto guess = detect_language("Le chat dort sur le canapé depuis ce matin, comme d'habitude.", kOurs);
    CHECK(guess.reliable);
    CHECK(guess.confidence > 0.5);
}

TEST_CASE("language detection: short lines still get one of the candidates") {
    CHECK(detect_language("Where is the station?", kOurs).language == "en");
    CHECK(detect_language("Où est la gare ?", kOurs).language == "fr");
    CHECK(detect_language("Wo ist der Bahnhof?", kOurs).language == "de");
}

TEST_CASE("language detection: only the candidates are ever answered") {
    // Spanish, with only French and German to choose from: one of those, never "es".
    const auto guess = detect_language("¿Dónde está la estación de tren? Quiero comprar un billete.", {"fr", "de"});
    CHECK((guess.language == "fr" || guess.language == "de"));
    CHECK(detect_language("Das ist ein Haus.", {"de"}).language == "de");
}

TEST_CASE("language detection: nothing to judge gives the first candidate, unreliable") {
    for (const char* text : {"", "12345 678", "!!!"}) {
        const auto guess = detect_language(text, {"fr", "en"});
        CHECK(guess.language == "fr");
        CHECK_FALSE(guess.reliable);
        CHECK(guess.confidence == 0.0);
    }
    CHECK(detect_language("Hello there, how are you?", {}).language.empty());
}

TEST_CASE("language detection: invalid UTF-8 is judged on its valid part") {
    const std::string text = "Die Katze schläft seit heute Morgen auf dem Sofa. \xff\xfe garbage";
    CHECK(detect_language(text, kOurs).language == "de");
}

TEST_CASE("language detection: markup, placeholders, URLs and accelerator marks are not judged") {
    using nmt::words_to_judge;
    CHECK(words_to_judge("<b>Na_chtmodus</b>") == " Nachtmodus ");
    CHECK(words_to_judge("%s: file %1$s line %lu, %1 of {count} at https://example.org/x") ==
          " : file   line  ,   of   at  ");
    // A mark is one before a letter; "100% sure" is prose, not "% s".
    CHECK(words_to_judge("&Datei _Open snake__case 100% sure") == "Datei Open snake_case 100% sure");
    CHECK(words_to_judge("a < b and c > d") == "a < b and c > d");  // no tag: '<' and '>' far apart in words
    CHECK(detect_language("%s", kOurs).confidence == 0.0);  // nothing left to judge
}

TEST_CASE("language detection: the codes it knows") {
    CHECK(nmt::detectable_language("en"));
    CHECK(nmt::detectable_language("fr"));
    CHECK(nmt::detectable_language("de"));
    CHECK_FALSE(nmt::detectable_language("xx"));
    CHECK_FALSE(nmt::detectable_language(""));
    CHECK_FALSE(nmt::detectable_language("un"));  // CLD2's name for its unknown language
}
