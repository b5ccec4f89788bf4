// nmt translate --from auto's routing (decode/language_router.h) and the
// stream that batches each chunk's lines per model (decode/translation_stream.h).
#include <doctest/doctest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "decode/language_router.h"
#include "decode/translation_stream.h"
#include "test_support.h"

using namespace nmt;

namespace {

const std::string kFrench = "Le chat dort sur le canapé depuis ce matin, comme d'habitude.";
const std::string kGerman = "Die Katze schläft seit heute Morgen auf dem Sofa, wie immer.";
const std::string kEnglish = "The cat has been sleeping on the sofa since this morning, as usual.";

// Two random models, one standing for fr->en and one for de->en: their
// translations of the same line differ, so a line sent to the wrong one shows.
struct TwoModels {
    Model fr_model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive), 11);
    Model de_model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive), 12);
    Translator fr{fr_model}, de{de_model};
    RoutedModel fr_en{&fr, {}, "fr-en"}, de_en{&de, {}, "de-en"};
    std::vector<std::string> asked;  // the languages the router asked a model for

    LanguageRouter router(bool keep_target, bool with_german = true) {
        return LanguageRouter({"de", "en", "fr"}, "en",
                              [this, with_german](const std::string& source) -> const RoutedModel* {
                                  asked.push_back(source);
                                  if (source == "fr") return &fr_en;
                                  if (source == "de" && with_german) return &de_en;
                                  return nullptr;
                              },
                              keep_target);
    }
};

std::string alone(Translator& translator, const std::string& line) {
    return translator.translate({line}, TranslateOptions{})[0].hypotheses[0].translation;
}

struct StreamRun {
    std::vector<std::string> output, warnings;
    std::vector<std::pair<int64_t, std::string>> routes;  // line, language
};

StreamRun run(LanguageRouter& router, const std::vector<std::string>& lines, OutputFormat format = OutputFormat::Text) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    std::istringstream in(text);
    LineReader reader(in, "input");
    std::FILE* out = std::tmpfile();
    StreamRun r;
    StreamOptions options;
    options.format = format;
    options.warn = [&r](const std::string& w) { r.warnings.push_back(w); };
    options.on_route = [&r](int64_t line, const LanguageRoute& route) { r.routes.emplace_back(line, route.language); };
    translate_stream(router, reader, out, options);
    std::rewind(out);
    char buffer[1 << 16];
    std::string line;
    while (std::fgets(buffer, sizeof buffer, out)) {
        line += buffer;
        if (!line.empty() && line.back() == '\n') {
            line.pop_back();
            r.output.push_back(line);
            line.clear();
        }
    }
    std::fclose(out);
    return r;
}

}  // namespace

TEST_CASE("language routing: each line goes to its language's model, in input order, one line out per line in") {
    TwoModels m;
    auto router = m.router(/*keep_target=*/true);
    const std::vector<std::string> lines = {kGerman, kFrench, "", kEnglish, kFrench + " Encore une fois.", kGerman,
                                            "12345"};
    const StreamRun r = run(router, lines);
    REQUIRE(r.output.size() == lines.size());
    CHECK(r.output[0] == alone(m.de, kGerman));
    CHECK(r.output[1] == alone(m.fr, kFrench));
    CHECK(r.output[0] != alone(m.fr, kGerman));  // the two models do differ
    CHECK(r.output[2] == "");
    CHECK(r.output[3] == kEnglish);  // already in the target: unchanged
    CHECK(r.output[5] == alone(m.de, kGerman));
    CHECK(r.output[6] == "12345");  // nothing to judge: unchanged
    CHECK(r.warnings.empty());      // --keep-target-language: no warning for English
    REQUIRE(r.routes.size() == lines.size());
    CHECK(r.routes[0] == std::pair<int64_t, std::string>{1, "de"});
    CHECK(r.routes[1] == std::pair<int64_t, std::string>{2, "fr"});
    CHECK(r.routes[2].second == "");
    CHECK(r.routes[3].second == "en");
    // Each model is asked for once, English never (it is the target).
    CHECK(m.asked == std::vector<std::string>{"de", "fr"});
}

TEST_CASE("language routing: a line already in the target passes through with a warning unless kept on purpose") {
    TwoModels m;
    auto router = m.router(/*keep_target=*/false);
    const StreamRun r = run(router, {kFrench, kEnglish});
    REQUIRE(r.output.size() == 2);
    CHECK(r.output[1] == kEnglish);
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0] == "line 2: already in en; passed through unchanged");
}

TEST_CASE("language routing: a language with no model to the target passes through with one warning naming it") {
    TwoModels m;
    auto router = m.router(/*keep_target=*/true, /*with_german=*/false);
    const StreamRun r = run(router, {kGerman, kFrench, kGerman});
    REQUIRE(r.output.size() == 3);
    CHECK(r.output[0] == kGerman);
    CHECK(r.output[1] == alone(m.fr, kFrench));
    CHECK(r.output[2] == kGerman);
    REQUIRE(r.warnings.size() == 2);
    CHECK(r.warnings[0] == "line 1: in de, and no installed model translates de->en; passed through unchanged");
    CHECK(r.warnings[1].rfind("line 3: in de", 0) == 0);
    CHECK(m.asked == std::vector<std::string>{"de", "fr"});  // asked once for de, though it has two lines
}

TEST_CASE("language routing: JSON Lines name each line's source language and whether it passed through") {
    TwoModels m;
    auto router = m.router(/*keep_target=*/true);
    const StreamRun r = run(router, {kFrench, kEnglish, ""}, OutputFormat::JsonLines);
    REQUIRE(r.output.size() == 3);
    const auto fr = nlohmann::json::parse(r.output[0]), en = nlohmann::json::parse(r.output[1]),
               blank = nlohmann::json::parse(r.output[2]);
    CHECK(fr["source_language"] == "fr");
    CHECK(fr["passed_through"] == false);
    CHECK(fr["translation"] == alone(m.fr, kFrench));
    CHECK(en["source_language"] == "en");
    CHECK(en["passed_through"] == true);
    CHECK(en["translation"] == kEnglish);
    CHECK(en["id"] == 1);
    CHECK(blank["source_language"].is_null());
}

TEST_CASE("language routing: the router alone") {
    TwoModels m;
    auto router = m.router(/*keep_target=*/false);
    const LanguageRoute fr = router.route(kFrench);
    CHECK(fr.language == "fr");
    CHECK(fr.model == &m.fr_en);
    CHECK(fr.note.empty());
    const LanguageRoute blank = router.route("   ");
    CHECK(blank.language.empty());
    CHECK(blank.model == nullptr);
    CHECK(blank.note.empty());
}

TEST_CASE("language routing: a text in none of the candidates passes through with a note, unlike one of no words") {
    TwoModels m;
    auto router = m.router(/*keep_target=*/true);
    const LanguageRoute spanish = router.route("¿Dónde está la estación de tren? Quiero comprar un billete.");
    CHECK(spanish.language.empty());
    CHECK(spanish.model == nullptr);
    CHECK(spanish.note == "not recognised as any of de en fr; passed through unchanged");
    const LanguageRoute digits = router.route("12 345 !");
    CHECK(digits.note.empty());
}
