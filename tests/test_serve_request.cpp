// What nmt serve reads from a request (lib/serve/request.h): JSON and form
// bodies, LibreTranslate's parameters, its error messages for missing or
// mistyped ones. No sockets, no models.
#include <doctest/doctest.h>

#include <string>

#include "serve/request.h"

using namespace nmt::serve;
using Json = nlohmann::json;

namespace {

// The ApiError a call throws: "status: message", or "" when it throws none.
template <typename F>
std::string api_error(F&& f) {
    try {
        f();
    } catch (const ApiError& e) {
        return std::to_string(e.status) + ": " + e.what();
    }
    return "";
}

TranslateRequest parse(const std::string& content_type, const std::string& body, bool ours = false,
                       const std::string& query = "") {
    return parse_translate_request(request_fields(content_type, body, query), ours, RequestLimits{});
}

std::string error_of(const std::string& content_type, const std::string& body, bool ours = false) {
    return api_error([&] { parse(content_type, body, ours); });
}

}  // namespace

TEST_CASE("serve request: a JSON body as LibreTranslate documents it") {
    const auto r = parse("application/json",
                         R"({"q": "Hello!", "source": "en", "target": "fr", "format": "text", "api_key": ""})");
    CHECK(r.texts == std::vector<std::string>{"Hello!"});
    CHECK_FALSE(r.list);
    CHECK(r.source == "en");
    CHECK(r.target == "fr");
    CHECK(r.format == "text");
    CHECK(r.alternatives == 0);
    CHECK_FALSE(r.alignments);
    // The media type's parameters and case do not matter; format defaults to text.
    const auto charset = parse("Application/JSON; charset=utf-8", R"({"q": "a", "source": "auto", "target": "de"})");
    CHECK(charset.format == "text");
    CHECK(charset.source == "auto");
}

TEST_CASE("serve request: q as a list keeps its order and makes translatedText a list") {
    const auto r = parse("application/json", R"({"q": ["one", "", "three"], "source": "en", "target": "fr"})");
    CHECK(r.list);
    CHECK(r.texts == std::vector<std::string>{"one", "", "three"});
    CHECK(error_of("application/json", R"({"q": ["one", 2], "source": "en", "target": "fr"})") ==
          "400: Invalid request: q must be a string or a list of strings");
    RequestLimits limits;
    limits.max_texts = 2;
    CHECK(api_error([&] {
              parse_translate_request(Json{{"q", {"a", "b", "c"}}, {"source", "en"}, {"target", "fr"}}, false, limits);
          }) == "400: Invalid request: request (3) exceeds text limit (2)");
}

TEST_CASE("serve request: form-encoded bodies, as HTML forms and curl -d send them") {
    const auto r = parse("application/x-www-form-urlencoded", "q=Hello+world%21%0ABye&source=en&target=fr&alternatives=2");
    CHECK(r.texts == std::vector<std::string>{"Hello world!\nBye"});
    CHECK(r.alternatives == 2);
    // curl -d '{...}' without -H sends a form type: a body that is a JSON object is read as JSON.
    const auto curl = parse("application/x-www-form-urlencoded", R"(  {"q": "Hi", "source": "en", "target": "fr"})");
    CHECK(curl.texts == std::vector<std::string>{"Hi"});
    // No type at all: a form.
    CHECK(parse("", "q=x&source=en&target=fr").texts == std::vector<std::string>{"x"});
    // The URL's query fills in what the body lacks, never what it has.
    const auto mixed = parse("application/x-www-form-urlencoded", "q=body&source=en", false, "q=url&target=de");
    CHECK(mixed.texts == std::vector<std::string>{"body"});
    CHECK(mixed.target == "de");
    // A multipart body's fields, split by the HTTP library.
    const auto fields = request_fields("multipart/form-data; boundary=x", "ignored", "",
                                       {{"q", "multi"}, {"source", "en"}, {"target", "fr"}});
    CHECK(parse_translate_request(fields, false, RequestLimits{}).texts == std::vector<std::string>{"multi"});
}

TEST_CASE("serve request: form decoding") {
    using Pairs = std::vector<std::pair<std::string, std::string>>;
    CHECK(decode_form("a=1&b=x+y%21") == Pairs{{"a", "1"}, {"b", "x y!"}});
    CHECK(decode_form("") == Pairs{});
    CHECK(decode_form("&&a&=b&c=") == Pairs{{"a", ""}, {"c", ""}});
    CHECK(decode_form("q=%zz%4%41%e2%82%ac") == Pairs{{"q", "%zz%4A\xe2\x82\xac"}});
    CHECK(decode_form("q=a=b") == Pairs{{"q", "a=b"}});
    CHECK(decode_form("q=%") == Pairs{{"q", "%"}});
    // Repeated names: the first, as Flask's request.values.get.
    CHECK(request_fields("application/x-www-form-urlencoded", "q=1&q=2", "")["q"] == "1");
}

TEST_CASE("serve request: malformed JSON and a body that is not an object") {
    for (const char* body : {"{", R"({"q": "a",})", "[1, 2]", "\"text\"", "", "{\"q\": \"\xff\"}", "nul"})
        CHECK_MESSAGE(api_error([&] { request_fields("application/json", body, ""); }) == "400: Invalid JSON format",
                      body);
}

TEST_CASE("serve request: missing and empty parameters, with LibreTranslate's messages") {
    const std::string json = "application/json";
    CHECK(error_of(json, R"({"source": "en", "target": "fr"})") == "400: Invalid request: missing q parameter");
    CHECK(error_of(json, R"({"q": "", "source": "en", "target": "fr"})") == "400: Invalid request: missing q parameter");
    CHECK(error_of(json, R"({"q": [], "source": "en", "target": "fr"})") == "400: Invalid request: missing q parameter");
    CHECK(error_of(json, R"({"q": null, "source": "en", "target": "fr"})") == "400: Invalid request: missing q parameter");
    CHECK(error_of(json, R"({"q": "a", "target": "fr"})") == "400: Invalid request: missing source parameter");
    CHECK(error_of(json, R"({"q": "a", "source": "", "target": "fr"})") == "400: Invalid request: missing source parameter");
    CHECK(error_of(json, R"({"q": "a", "source": "en"})") == "400: Invalid request: missing target parameter");
    CHECK(error_of("application/x-www-form-urlencoded", "source=en&target=fr") ==
          "400: Invalid request: missing q parameter");
}

TEST_CASE("serve request: parameters of the wrong type") {
    const std::string json = "application/json";
    CHECK(error_of(json, R"({"q": 5, "source": "en", "target": "fr"})") ==
          "400: Invalid request: q must be a string or a list of strings");
    CHECK(error_of(json, R"({"q": {"a": 1}, "source": "en", "target": "fr"})") ==
          "400: Invalid request: q must be a string or a list of strings");
    CHECK(error_of(json, R"({"q": "a", "source": 1, "target": "fr"})") ==
          "400: Invalid request: source parameter must be a string");
    CHECK(error_of(json, R"({"q": "a", "source": "en", "target": ["fr"]})") ==
          "400: Invalid request: target parameter must be a string");
    CHECK(error_of(json, R"({"q": "a", "source": "en", "target": "fr", "format": "xml"})") ==
          "400: xml format is not supported");
    CHECK(error_of(json, R"({"q": "a", "source": "en", "target": "fr", "format": 1})") ==
          "400: Invalid request: format parameter must be a string");
}

TEST_CASE("serve request: alternatives are read as LibreTranslate's int() reads them") {
    const auto alternatives = [](const std::string& value) {
        return parse("application/json", R"({"q": "a", "source": "en", "target": "fr", "alternatives": )" + value + "}")
            .alternatives;
    };
    CHECK(alternatives("2") == 2);
    CHECK(alternatives("\"3\"") == 3);
    CHECK(alternatives("\" 1 \"") == 1);
    CHECK(alternatives("1.7") == 1);
    CHECK(alternatives("-4") == 0);
    CHECK(alternatives("true") == 1);
    CHECK(alternatives("null") == 0);
    for (const char* bad : {"\"two\"", "\"\"", "\"1.5\"", "[1]", "{}", "\"-\"", "\"99999999999999999999\""})
        CHECK_MESSAGE(error_of("application/json",
                               std::string(R"({"q": "a", "source": "en", "target": "fr", "alternatives": )") + bad + "}") ==
                          "400: Invalid request: alternatives parameter is not a number",
                      bad);
    CHECK(error_of("application/json", R"({"q": "a", "source": "en", "target": "fr", "alternatives": 4})") ==
          "400: Invalid request: alternatives parameter must be <= 3");
    CHECK(error_of("application/json", R"({"q": "a", "source": "en", "target": "fr", "alternatives": 1e300})") ==
          "400: Invalid request: alternatives parameter must be <= 3");
}

TEST_CASE("serve request: /v1's alignments and domain, read only there") {
    const std::string body = R"({"q": "a", "source": "en", "target": "fr", "alignments": true, "domain": "captions"})";
    const auto ours = parse("application/json", body, true);
    CHECK(ours.alignments);
    CHECK(ours.domain == "captions");
    const auto theirs = parse("application/json", body, false);
    CHECK_FALSE(theirs.alignments);
    CHECK(theirs.domain.empty());
    CHECK(parse("application/x-www-form-urlencoded", "q=a&source=en&target=fr&alignments=true", true).alignments);
    CHECK_FALSE(parse("application/x-www-form-urlencoded", "q=a&source=en&target=fr&alignments=0", true).alignments);
    CHECK(error_of("application/json", R"({"q": "a", "source": "en", "target": "fr", "alignments": "maybe"})", true) ==
          "400: Invalid request: alignments parameter must be true or false");
}

TEST_CASE("serve request: the API key, as LibreTranslate's field or the npm client's") {
    CHECK(api_key_of(Json{{"api_key", "k1"}}) == "k1");
    CHECK(api_key_of(Json{{"apiKey", "k2"}}) == "k2");
    CHECK(api_key_of(Json{{"api_key", ""}, {"apiKey", "k3"}}) == "k3");
    CHECK(api_key_of(Json{{"api_key", 5}}).empty());
    CHECK(api_key_of(Json::object()).empty());
}

TEST_CASE("serve request: /detect's q") {
    CHECK(parse_detect_request(Json{{"q", "Bonjour"}}) == "Bonjour");
    CHECK(parse_detect_request(Json{{"q", {"Guten", "Tag"}}}) == "Guten\nTag");
    CHECK(api_error([] { parse_detect_request(Json::object()); }) == "400: Invalid request: missing q parameter");
    CHECK(api_error([] { parse_detect_request(Json{{"q", ""}}); }) == "400: Invalid request: missing q parameter");
    CHECK(api_error([] { parse_detect_request(Json{{"q", 3}}); }) ==
          "400: Invalid request: q must be a string or a list of strings");
}
