#include "serve/http_api.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>

namespace nmt::serve {

namespace {

using Json = nlohmann::json;

std::string dump(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

HttpResponse json_response(const Json& value, int status = 200) {
    HttpResponse r;
    r.status = status;
    r.body = dump(value);
    return r;
}

HttpResponse error_response(int status, const std::string& message, int retry_after = 0) {
    HttpResponse r;
    r.status = status;
    r.body = error_body(message);
    if (retry_after > 0) r.headers.emplace_back("Retry-After", std::to_string(retry_after));
    return r;
}

// The endpoints and the method each takes.
const std::map<std::string, std::string>& endpoints() {
    static const std::map<std::string, std::string> table = {
        {"/translate", "POST"}, {"/v1/translate", "POST"}, {"/detect", "POST"},  {"/languages", "GET"},
        {"/health", "GET"},     {"/metrics", "GET"},       {"/frontend/settings", "GET"}};
    return table;
}

constexpr size_t kWarningHeaders = 8;

// A warning as an HTTP Warning header (RFC 7234: code, agent, quoted text),
// in printable ASCII whatever the warning holds.
std::string warning_header(const std::string& warning) {
    std::string text;
    for (unsigned char c : warning) {
        if (c == '"' || c == '\\') text += '\\';
        text += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
    }
    return "299 nmt \"" + text + "\"";
}

}  // namespace

std::string error_body(const std::string& message) { return dump(Json{{"error", message}}); }

HttpApi::HttpApi(TranslationService& service, std::set<std::string> api_keys)
    : service_(service), api_keys_(std::move(api_keys)) {}

void HttpApi::record(const std::string& endpoint, int status, double seconds) {
    service_.metrics().request(endpoint, status, seconds);
}

HttpResponse HttpApi::error(int status, const std::string& path, double seconds) {
    static const std::map<int, std::string> messages = {
        {400, "Bad Request"},
        {404, "Not Found"},
        {408, "Request Timeout"},
        {413, "Invalid request: the request body is larger than the server accepts (--max-request-bytes)"},
        {414, "URI Too Long"},
        {431, "Request Header Fields Too Large"},
        {500, "Internal Server Error"},
        {503, "Service Unavailable"}};
    const auto it = messages.find(status);
    HttpResponse r = error_response(status, it == messages.end() ? "HTTP error " + std::to_string(status) : it->second);
    r.headers.emplace_back("Access-Control-Allow-Origin", "*");
    record(endpoints().count(path) ? path : "other", status, seconds);
    return r;
}

HttpResponse HttpApi::handle(const HttpRequest& request) {
    const auto started = std::chrono::steady_clock::now();
    std::string endpoint = "other";
    HttpResponse response;
    try {
        response = route(request, endpoint);
    } catch (const ApiError& e) {
        response = error_response(e.status, e.what(), e.retry_after_seconds);
    } catch (const std::bad_alloc&) {
        response = error_response(503, "out of memory; retry later", 1);
    } catch (const std::exception& e) {
        response = error_response(500, std::string("Cannot translate text: ") + e.what());
    }
    // LibreTranslate's CORS headers: browsers' pages may call it.
    response.headers.emplace_back("Access-Control-Allow-Origin", "*");
    response.headers.emplace_back("Access-Control-Allow-Headers", "Authorization, Content-Type");
    response.headers.emplace_back("Access-Control-Expose-Headers", "Authorization");
    response.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST");
    response.headers.emplace_back("Access-Control-Max-Age", "1728000");
    record(endpoint, response.status,
           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    return response;
}

HttpResponse HttpApi::route(const HttpRequest& request, std::string& endpoint) {
    const auto found = endpoints().find(request.path);
    if (found == endpoints().end()) throw ApiError(404, "Not Found");
    endpoint = request.path;
    if (request.method == "OPTIONS") {
        HttpResponse r;
        r.status = 204;
        r.content_type.clear();
        return r;
    }
    if (request.method != found->second && !(found->second == "GET" && request.method == "HEAD")) {
        HttpResponse r = error_response(405, "Method Not Allowed");
        r.headers.emplace_back("Allow", found->second + ", OPTIONS");
        return r;
    }
    const std::string& path = request.path;
    if (path == "/health") {
        if (stopping_) return json_response({{"status", "shutting down"}}, 503);
        return json_response(service_.health());
    }
    if (path == "/metrics") {
        HttpResponse r;
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
        r.body = service_.metrics_text();
        return r;
    }
    if (path == "/languages") return json_response(service_.languages());
    if (path == "/frontend/settings") {
        const Json languages = service_.languages();
        const Json target = languages.size() > 1 ? languages[1] : languages[0];
        return json_response({{"charLimit", -1},
                              {"frontendTimeout", 500},
                              {"apiKeys", !api_keys_.empty()},
                              {"keyRequired", !api_keys_.empty()},
                              {"suggestions", false},
                              {"filesTranslation", false},
                              {"supportedFilesFormat", Json::array()},
                              {"language",
                               {{"source", {{"code", "auto"}, {"name", "Auto Detect"}}},
                                {"target", {{"code", target["code"]}, {"name", target["name"]}}}}}});
    }
    // The POST endpoints: the body's fields, then the key, then the fields' values.
    const Json fields = request_fields(request.content_type, request.body, request.query, request.parts);
    if (!api_keys_.empty()) {
        const std::string key = api_key_of(fields);
        if (key.empty()) throw ApiError(403, "Please contact the server operator to get an API key");
        if (!api_keys_.count(key)) throw ApiError(403, "Invalid API key");
    }
    if (path == "/detect") return json_response(service_.detect(parse_detect_request(fields)));
    const bool ours = path == "/v1/translate";
    const TranslateRequest parsed = parse_translate_request(fields, ours, service_.options().limits);
    Translation translation = service_.translate(parsed, ours);
    HttpResponse r = json_response(translation.body);
    // The first few warnings as headers (all of them are in /v1's body).
    const size_t shown = std::min<size_t>(translation.warnings.size(), kWarningHeaders);
    for (size_t i = 0; i < shown; ++i) r.headers.emplace_back("Warning", warning_header(translation.warnings[i]));
    if (translation.warnings.size() > shown)
        r.headers.emplace_back("Warning", warning_header(std::to_string(translation.warnings.size() - shown) +
                                                         " more warnings"));
    return r;
}

}  // namespace nmt::serve
