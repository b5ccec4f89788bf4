// nmt serve's API without sockets (lib/serve/http_api.h, translation_service.h):
// random tiny models served as en→fr and fr→en, requests in, responses out.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "decode/alignment_output.h"
#include "decode/sentence_translation.h"
#include "formats/html_document.h"
#include "formats/model_segment_translator.h"
#include "serve/http_api.h"
#include "test_support.h"

using namespace nmt;
using namespace nmt::serve;
using Json = nlohmann::json;

namespace {

ServedModel served(const std::string& source, const std::string& target, uint64_t seed, const std::string& domain = "") {
    const auto config = testing::all_architectures().front();
    ServedModel m;
    m.source = source;
    m.target = target;
    m.domain = domain;
    m.path = source + "-" + target + ".nmt";
    m.model = std::make_shared<Model>(testing::random_model(config, seed));
    m.options.search.beam_size = 3;
    return m;
}

struct Fixture {
    explicit Fixture(ServiceOptions options = {}, std::set<std::string> keys = {}) {
        options.batching.threads = 2;
        std::vector<ServedModel> models;
        models.push_back(served("en", "fr", 11));
        models.push_back(served("fr", "en", 12));
        models.push_back(served("en", "fr", 13, "captions"));
        service = std::make_unique<TranslationService>(std::move(models), options);
        api = std::make_unique<HttpApi>(*service, std::move(keys));
    }
    HttpResponse post(const std::string& path, const Json& body) {
        return api->handle({"POST", path, "", "application/json", body.dump(), {}});
    }
    HttpResponse get(const std::string& path) { return api->handle({"GET", path, "", "", "", {}}); }
    // What nmt translate prints for `line` with the model of models()[index].
    std::string translate_cli(size_t index, const std::string& line) {
        const ServedModel& m = service->models()[index];
        Translator translator(*m.model);
        TranslateOptions options = m.options;
        const auto translations = translate_lines(translator, {line_sentences(line, true)}, options);
        const auto merged = merge_translation_results(translations[0].sentences, translations[0].separators, false);
        return merged.hypotheses.empty() ? "" : merged.hypotheses[0].translation;
    }
    // What nmt translate --format html writes for `html` with the model of models()[index].
    std::string translate_html_cli(size_t index, const std::string& html) {
        const ServedModel& m = service->models()[index];
        Translator translator(*m.model);
        ModelSegmentTranslator segments(translator, m.options, service->options().split_sentences);
        return HtmlDocument(html).translate(segments);
    }
    std::unique_ptr<TranslationService> service;
    std::unique_ptr<HttpApi> api;
};

Json body_of(const HttpResponse& r) { return Json::parse(r.body); }

std::string header(const HttpResponse& r, const std::string& name) {
    for (const auto& [n, v] : r.headers)
        if (n == name) return v;
    return "";
}

}  // namespace

TEST_CASE("serve api: /translate answers what nmt translate prints, for a string and a list") {
    Fixture f;
    const std::string one = "the cat sat on the mat";
    const std::string two = "A dog runs in the park. The bird sings!";  // two sentences, rejoined
    auto r = f.post("/translate", {{"q", one}, {"source", "en"}, {"target", "fr"}});
    REQUIRE(r.status == 200);
    CHECK(r.content_type == "application/json");
    CHECK(body_of(r) == Json{{"translatedText", f.translate_cli(0, one)}});
    CHECK(header(r, "Access-Control-Allow-Origin") == "*");
    r = f.post("/translate", {{"q", {one, "", two, "x\n\ny"}}, {"source", "en"}, {"target", "fr"}});
    REQUIRE(r.status == 200);
    const Json expected = {f.translate_cli(0, one), "", f.translate_cli(0, two),
                           f.translate_cli(0, "x") + "\n\n" + f.translate_cli(0, "y")};
    CHECK(body_of(r) == Json{{"translatedText", expected}});
    // The other direction, and a form body.
    r = f.api->handle({"POST", "/translate", "", "application/x-www-form-urlencoded", "q=the+dog&source=fr&target=en", {}});
    REQUIRE(r.status == 200);
    CHECK(body_of(r)["translatedText"] == f.translate_cli(1, "the dog"));
}

TEST_CASE("serve api: languages, detection and the pairs not served") {
    Fixture f;
    const Json languages = body_of(f.get("/languages"));
    CHECK(languages == Json::parse(R"([{"code": "en", "name": "English", "targets": ["fr"]},
                                       {"code": "fr", "name": "French", "targets": ["en"]}])"));
    const auto error = [&](const Json& body) {
        const auto r = f.post("/translate", body);
        return std::to_string(r.status) + ": " + body_of(r)["error"].get<std::string>();
    };
    CHECK(error({{"q", "a"}, {"source", "en"}, {"target", "xx"}}) == "400: xx is not supported");
    CHECK(error({{"q", "a"}, {"source", "xx"}, {"target", "fr"}}) == "400: xx is not supported");
    CHECK(error({{"q", "a"}, {"source", "en"}, {"target", "fr"}, {"format", "xml"}}) == "400: xml format is not supported");
    // A text already in the target language comes back as it is.
    auto r = f.post("/translate", {{"q", "le chat"}, {"source", "fr"}, {"target", "fr"}});
    CHECK(body_of(r) == Json{{"translatedText", "le chat"}});
    // auto: each text's language, LibreTranslate's detectedLanguage.
    r = f.post("/translate", {{"q", {"The weather is lovely today and we are going to the beach.",
                                      "Il fait très beau aujourd'hui et nous allons à la plage."}},
                              {"source", "auto"}, {"target", "fr"}});
    REQUIRE(r.status == 200);
    const Json body = body_of(r);
    CHECK(body["detectedLanguage"][0]["language"] == "en");
    CHECK(body["detectedLanguage"][1]["language"] == "fr");
    CHECK(body["translatedText"][1] == "Il fait très beau aujourd'hui et nous allons à la plage.");
    CHECK(body["detectedLanguage"][0]["confidence"].get<double>() > 50);
    r = f.post("/detect", {{"q", "Das Wetter ist heute schön und wir gehen an den Strand."}});
    CHECK(r.status == 200);
    const std::string language = body_of(r)[0]["language"];
    CHECK((language == "en" || language == "fr"));  // German is not served: one of those
    r = f.post("/detect", {{"q", "Le chat dort sur le canapé depuis ce matin, comme d'habitude."}});
    CHECK(body_of(r)[0]["language"] == "fr");
}

TEST_CASE("serve api: alternatives are the n-best list's other translations, each once") {
    Fixture f;
    const auto r = f.post("/translate", {{"q", "the cat sat on the mat"}, {"source", "en"}, {"target", "fr"}, {"alternatives", 2}});
    REQUIRE(r.status == 200);
    const Json body = body_of(r);
    REQUIRE(body["alternatives"].is_array());
    CHECK(body["alternatives"].size() <= 2);
    for (const auto& a : body["alternatives"]) CHECK(a != body["translatedText"]);
    if (body["alternatives"].size() == 2) CHECK(body["alternatives"][0] != body["alternatives"][1]);
    const auto list = f.post("/translate", {{"q", {"a dog", "the bird"}}, {"source", "en"}, {"target", "fr"}, {"alternatives", 1}});
    CHECK(body_of(list)["alternatives"].size() == 2);
}

TEST_CASE("serve api: /v1/translate gives nmt translate's alignment JSON per line, and the domain's model") {
    Fixture f;
    const std::string line = "the cat sat on the mat";
    const auto r = f.post("/v1/translate", {{"q", line}, {"source", "en"}, {"target", "fr"}, {"alignments", true}});
    REQUIRE(r.status == 200);
    const Json body = body_of(r);
    REQUIRE(body["alignments"].size() == 1);
    const ServedModel& m = f.service->models()[0];
    Translator translator(*m.model);
    auto results = translator.translate({line}, m.options);
    CHECK(body["alignments"][0] == alignment_json(0, results[0], line));
    CHECK(body["warnings"] == Json::array());
    // The captions model, by domain; a domain not served is a 400.
    const auto captions = f.post("/v1/translate", {{"q", line}, {"source", "en"}, {"target", "fr"}, {"domain", "captions"}});
    REQUIRE(captions.status == 200);
    CHECK(body_of(captions)["translatedText"] == f.translate_cli(2, line));
    const auto none = f.post("/v1/translate", {{"q", line}, {"source", "fr"}, {"target", "en"}, {"domain", "captions"}});
    CHECK(none.status == 400);
    CHECK(body_of(none)["error"] == "no captions model from French (fr) to English (en)");
}

TEST_CASE("serve api: a sentence past the model's limit is cropped, with a warning header") {
    Fixture f;
    std::string line;
    for (int i = 0; i < 120; ++i) line += "the cat ";
    const auto r = f.post("/v1/translate", {{"q", line}, {"source", "en"}, {"target", "fr"}});
    REQUIRE(r.status == 200);
    CHECK(header(r, "Warning").find("longer than the model's limit of 64 pieces") != std::string::npos);
    CHECK(body_of(r)["warnings"][0] == "line 1: longer than the model's limit of 64 pieces (end of sentence included); the rest is cropped");
}

TEST_CASE("serve api: unknown paths, wrong methods, preflight, health and metrics") {
    Fixture f;
    auto r = f.get("/nope");
    CHECK(r.status == 404);
    CHECK(body_of(r) == Json{{"error", "Not Found"}});
    r = f.get("/translate");
    CHECK(r.status == 405);
    CHECK(header(r, "Allow") == "POST, OPTIONS");
    r = f.api->handle({"OPTIONS", "/translate", "", "", "", {}});
    CHECK(r.status == 204);
    CHECK(header(r, "Access-Control-Allow-Methods") == "GET, POST");
    r = f.get("/health");
    CHECK(r.status == 200);
    CHECK(body_of(r)["status"] == "ok");
    CHECK(body_of(r)["models"].size() == 3);
    f.post("/translate", {{"q", "a dog"}, {"source", "en"}, {"target", "fr"}});
    r = f.get("/metrics");
    CHECK(r.status == 200);
    CHECK(r.content_type.rfind("text/plain; version=0.0.4", 0) == 0);
    CHECK(r.body.find("nmt_requests_total{endpoint=\"/translate\",status=\"200\"} 1\n") != std::string::npos);
    CHECK(r.body.find("nmt_requests_total{endpoint=\"other\",status=\"404\"} 1\n") != std::string::npos);
    CHECK(r.body.find("nmt_batches_total 1\n") != std::string::npos);
    CHECK(r.body.find("nmt_request_duration_seconds_bucket{le=\"+Inf\"}") != std::string::npos);
    f.api->stopping();
    CHECK(f.get("/health").status == 503);
    // Body errors come in LibreTranslate's shape.
    r = f.api->handle({"POST", "/translate", "", "application/json", "{oops", {}});
    CHECK(r.status == 400);
    CHECK(body_of(r) == Json{{"error", "Invalid JSON format"}});
    CHECK(body_of(f.api->error(413, "/translate", 0.0))["error"].get<std::string>().find("--max-request-bytes") !=
          std::string::npos);
}

TEST_CASE("serve api: with API keys, translation and detection need one (403), the rest does not") {
    Fixture f(ServiceOptions{}, {"secret-1", "secret-2"});
    const Json request = {{"q", "a dog"}, {"source", "en"}, {"target", "fr"}};
    auto r = f.post("/translate", request);
    CHECK(r.status == 403);
    CHECK(body_of(r) == Json{{"error", "Please contact the server operator to get an API key"}});
    Json wrong = request;
    wrong["api_key"] = "guess";
    r = f.post("/translate", wrong);
    CHECK(r.status == 403);
    CHECK(body_of(r) == Json{{"error", "Invalid API key"}});
    Json right = request;
    right["api_key"] = "secret-2";
    CHECK(f.post("/translate", right).status == 200);
    Json npm = request;
    npm["apiKey"] = "secret-1";
    CHECK(f.post("/translate", npm).status == 200);
    CHECK(f.post("/detect", {{"q", "hello"}}).status == 403);
    CHECK(f.get("/languages").status == 200);
    CHECK(f.get("/health").status == 200);
}

TEST_CASE("serve api: more sentences than the queue may hold is a 413") {
    ServiceOptions options;
    options.batching.max_queue = 3;
    Fixture f(options);
    auto r = f.post("/translate", {{"q", {"a", "b", "c", "d"}}, {"source", "en"}, {"target", "fr"}});
    CHECK(r.status == 413);
    r = f.post("/translate", {{"q", {"a", "b", "c"}}, {"source", "en"}, {"target", "fr"}});
    CHECK(r.status == 200);
}

TEST_CASE("serve api: a model whose longest sentence would not fit a batch is refused") {
    ServiceOptions options;
    options.batching.max_batch_tokens = 63;  // the test models take 64 pieces
    std::vector<ServedModel> models;
    models.push_back(served("en", "fr", 11));
    CHECK(testing::error_of([&] { TranslationService(std::move(models), options); })
              .find("below en-fr's longest sentence (64 pieces)") != std::string::npos);
}

namespace {

Json html_request(const Json& q, const std::string& source = "en", const std::string& target = "fr") {
    return {{"q", q}, {"source", source}, {"target", target}, {"format", "html"}};
}

const std::string kFragment =
    "<p>The <b>cat</b> sat on the <a href=\"/mat\">mat</a>. A dog runs in the park!</p>\n"
    "<ul><li>the bird <em>sings</em></li><li title=\"a red ball\">two men <code>sit()</code> near the river</li></ul>";

}  // namespace

TEST_CASE("serve api: format html answers what nmt translate --format html writes, markup kept") {
    Fixture f;
    auto r = f.post("/translate", html_request(kFragment));
    REQUIRE(r.status == 200);
    const std::string got = body_of(r)["translatedText"];
    CHECK(got == f.translate_html_cli(0, kFragment));
    CHECK(got != kFragment);                         // its text was translated
    CHECK(got != f.translate_cli(0, kFragment));     // as html, not as a line of text
    CHECK(got.find("<a href=\"/mat\">") != std::string::npos);
    CHECK(got.find("<code>sit()</code>") != std::string::npos);
    CHECK(HtmlDocument(got).tag_sequence() == HtmlDocument(kFragment).tag_sequence());
    // The captions model by domain, and the other direction.
    r = f.post("/v1/translate", {{"q", kFragment}, {"source", "en"}, {"target", "fr"}, {"format", "html"}, {"domain", "captions"}});
    REQUIRE(r.status == 200);
    CHECK(body_of(r)["translatedText"] == f.translate_html_cli(2, kFragment));
    CHECK(body_of(r)["warnings"] == Json::array());
    r = f.post("/translate", html_request("<h1>le <i>chat</i></h1>", "fr", "en"));
    CHECK(body_of(r)["translatedText"] == f.translate_html_cli(1, "<h1>le <i>chat</i></h1>"));
}

TEST_CASE("serve api: a list of html texts, each a fragment or a page, answered in order") {
    Fixture f;
    const std::string page =
        "<!DOCTYPE html><html><head><title>A dog runs</title></head><body><p>The bird sings.</p></body></html>";
    const std::vector<std::string> texts = {kFragment, "", "<p>  </p>", page, "plain text, no tags. Two sentences!",
                                            "<script>var cat = 1;</script>"};
    const auto r = f.post("/translate", html_request(texts));
    REQUIRE(r.status == 200);
    const Json got = body_of(r)["translatedText"];
    REQUIRE(got.size() == texts.size());
    for (size_t i = 0; i < texts.size(); ++i) {
        INFO(texts[i]);
        CHECK(got[i] == f.translate_html_cli(0, texts[i]));
        CHECK(HtmlDocument(got[i].get<std::string>()).tag_sequence() == HtmlDocument(texts[i]).tag_sequence());
    }
    CHECK(got[3].get<std::string>().rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(got[5] == "<script>var cat = 1;</script>");
}

TEST_CASE("serve api: malformed html is repaired as browsers repair it, not refused") {
    Fixture f;
    for (const std::string broken : {"<p>The <b>cat sat<p>on the <i>mat", "</div>a dog</span> runs <li>x",
                                     "<table><td>the bird</table", "a dog <b class='x", "<<>>", "<p>a &bogus; dog &amp"}) {
        INFO(broken);
        const auto r = f.post("/translate", html_request(broken));
        REQUIRE(r.status == 200);
        const std::string got = body_of(r)["translatedText"];
        CHECK(got == f.translate_html_cli(0, broken));
        CHECK(HtmlDocument(got).tag_sequence() == HtmlDocument(broken).tag_sequence());
    }
    // Closed where gumbo closes them.
    const std::string got = body_of(f.post("/translate", html_request("<p>The <b>cat sat<p>on the mat")))["translatedText"];
    CHECK(got.find("</b></p>") != std::string::npos);
    CHECK(got.substr(got.size() - 4) == "</p>");
}

TEST_CASE("serve api: html's errors, alternatives, languages and warnings") {
    Fixture f;
    // No alignments for html: a clear 400 on /v1 (LibreTranslate's /translate has none).
    Json request = html_request(kFragment);
    request["alignments"] = true;
    auto r = f.post("/v1/translate", request);
    CHECK(r.status == 400);
    CHECK(body_of(r)["error"] == "alignments are given for plain text only (format: text), not for html");
    // Alternatives: none for html, as LibreTranslate answers.
    request = html_request({kFragment, "<b>a dog</b>"});
    request["alternatives"] = 2;
    r = f.post("/translate", request);
    REQUIRE(r.status == 200);
    CHECK(body_of(r)["alternatives"] == Json::array({Json::array(), Json::array()}));
    CHECK(body_of(r)["translatedText"][1] == f.translate_html_cli(0, "<b>a dog</b>"));
    // A text in the target language comes back exactly as it came, markup and all.
    r = f.post("/translate", html_request("<p>le <b>chat</b><p>", "fr", "fr"));
    CHECK(body_of(r)["translatedText"] == "<p>le <b>chat</b><p>");
    // auto: the language of the running text, not of the tags around it.
    const std::string french = "<div class=\"the main content of the page\"><p>Il fait très beau aujourd'hui et nous "
                               "allons à la <a href=\"/the/beach\">plage</a>.</p></div>";
    r = f.post("/translate", html_request(french, "auto", "fr"));
    REQUIRE(r.status == 200);
    CHECK(body_of(r)["detectedLanguage"]["language"] == "fr");
    CHECK(body_of(r)["translatedText"] == french);
    CHECK(f.post("/translate", html_request("<p>x</p>", "en", "xx")).status == 400);
    CHECK(f.post("/translate", html_request("<p>x</p>", "de", "fr")).status == 400);
    // A sentence past the model's limit: cropped, its segment named.
    std::string line;
    for (int i = 0; i < 120; ++i) line += "the cat ";
    r = f.post("/v1/translate", html_request({"<p>a dog</p>", "<p>a dog</p><p>" + line + "</p>"}));
    REQUIRE(r.status == 200);
    CHECK(body_of(r)["warnings"] == Json::array({"text 2, segment 2: longer than the model's limit of 64 pieces (end "
                                                 "of sentence included); the rest is cropped"}));
}

TEST_CASE("serve api: html sentences share the queue's limits: 413 past max_queue, 503 once closed") {
    ServiceOptions options;
    options.batching.max_queue = 3;
    Fixture f(options);
    // Three paragraphs, one of two sentences: four sentences.
    auto r = f.post("/translate", html_request({"<p>a dog</p><p>the cat</p>", "<p>The bird sings. A dog runs.</p>"}));
    CHECK(r.status == 413);
    CHECK(body_of(r)["error"] == "Invalid request: 4 sentences to translate, more than the server queues at once (3)");
    r = f.post("/translate", html_request({"<p>a dog</p><p>the cat</p>", "<p>The bird sings.</p>"}));
    CHECK(r.status == 200);
    f.service->close();
    r = f.post("/translate", html_request("<p>a dog</p>"));
    CHECK(r.status == 503);
    CHECK(header(r, "Retry-After") == "1");
}
