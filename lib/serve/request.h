// What `nmt serve` reads from a request, checked before anything is queued:
// the body's fields (JSON, or form-encoded as HTML forms and curl -d send
// them), and LibreTranslate's parameters with its error messages. Pure
// functions of the bytes received, so that they are tested and fuzzed without
// a socket (tests/test_serve_request.cpp, tests/fuzz/fuzz_serve_request.cpp).
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace nmt::serve {

// An answer other than 200: the HTTP status and the text of LibreTranslate's
// error shape, {"error": "..."}. retry_after_seconds > 0 adds Retry-After.
struct ApiError : std::runtime_error {
    ApiError(int status, const std::string& message, int retry_after_seconds = 0)
        : std::runtime_error(message), status(status), retry_after_seconds(retry_after_seconds) {}
    int status;
    int retry_after_seconds;
};

// "a=1&b=x+y%21" → {{"a", "1"}, {"b", "x y!"}}: '+' is a space, %XX a byte;
// a '%' not followed by two hex digits stays as it is. Empty names are dropped.
std::vector<std::pair<std::string, std::string>> decode_form(const std::string& text);

// The request's fields as one JSON object: a JSON body's object as is, a
// form body's (or multipart's, already split: `parts`) fields as strings,
// then the URL's query fields for any name the body lacks (Flask's
// request.values, as LibreTranslate reads them). A body whose media type is
// application/json, or whose first non-blank byte is '{' (curl -d '{...}'
// sends a form type), is JSON. Throws ApiError 400 "Invalid JSON format" for
// JSON that does not parse or is not an object.
nlohmann::json request_fields(const std::string& content_type, const std::string& body, const std::string& query,
                              const std::vector<std::pair<std::string, std::string>>& parts = {});

// The key a request carries: "api_key" (LibreTranslate's), else "apiKey"
// (what the `libretranslate` npm client sends). Empty when neither is a
// non-empty string.
std::string api_key_of(const nlohmann::json& fields);

struct RequestLimits {
    int max_alternatives = 3;  // LibreTranslate's default --alternatives-limit
    size_t max_texts = 1000;   // entries of a q list
};

// POST /translate (LibreTranslate's) and POST /v1/translate (ours: also
// `alignments` and `domain`).
struct TranslateRequest {
    std::vector<std::string> texts;  // q: one entry when q was a string
    bool list = false;               // q was a list: so is translatedText
    std::string source;              // a language code, or "auto"
    std::string target;
    std::string format = "text";     // "text" or "html"
    int alternatives = 0;            // more translations wanted per text (n-best)
    bool alignments = false;         // /v1 only: the alignment JSON per line
    std::string domain;              // /v1 only: the installed model of a domain ("captions")
};

// Checks types and presence, LibreTranslate's way and with its messages
// ("Invalid request: missing q parameter", "Invalid request: alternatives
// parameter is not a number", "xyz format is not supported"); `ours` allows
// /v1's fields. Languages are checked later, against the installed models.
// Throws ApiError 400.
TranslateRequest parse_translate_request(const nlohmann::json& fields, bool ours, const RequestLimits& limits);

// POST /detect: q, a string (a list is judged as its entries joined by
// newlines). Throws ApiError 400 when it is missing, empty or not text.
std::string parse_detect_request(const nlohmann::json& fields);

}  // namespace nmt::serve
