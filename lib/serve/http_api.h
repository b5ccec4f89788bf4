// The HTTP API of `nmt serve` without the sockets: a request (method, path,
// headers that matter, body) in, a response (status, body, headers) out.
// app/cmd_serve.cpp only moves bytes between this and cpp-httplib.
//
// LibreTranslate's endpoints, as its clients call them:
//   POST /translate     q (text or list), source (a code or "auto"), target,
//                       format (text, or html: each q a fragment or page), alternatives,
//                       api_key → {"translatedText", "detectedLanguage"?, "alternatives"?}
//   POST /detect        q → [{"confidence", "language"}]
//   GET  /languages     → [{"code", "name", "targets"}]
//   GET  /frontend/settings
// and ours:
//   POST /v1/translate  as /translate, plus alignments (true: the alignment
//                       JSON of nmt translate --alignments, per line; text
//                       only), domain,
//                       and warnings in the body
//   GET  /health, GET /metrics (Prometheus text)
// Errors are LibreTranslate's shape, {"error": "..."}, with its codes (400,
// 403) and ours (404, 405, 413, 503 with Retry-After, 500). Every answer
// carries LibreTranslate's CORS headers; OPTIONS answers 204.
#pragma once
#include <atomic>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "serve/translation_service.h"

namespace nmt::serve {

struct HttpRequest {
    std::string method;  // "GET", "POST", ...
    std::string path;    // without the query
    std::string query;   // after '?', still encoded
    std::string content_type;
    std::string body;
    std::vector<std::pair<std::string, std::string>> parts;  // a multipart body's fields, already split
};

struct HttpResponse {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
};

// {"error": message} as LibreTranslate answers errors.
std::string error_body(const std::string& message);

class HttpApi {
public:
    // `api_keys`: empty, no key needed; else /translate, /v1/translate and
    // /detect answer 403 without one of them.
    HttpApi(TranslationService& service, std::set<std::string> api_keys);

    // Never throws: every failure is an answer.
    HttpResponse handle(const HttpRequest& request);

    // An answer made outside handle() (a body past the size limit, a request
    // line too long: cpp-httplib answers those itself): LibreTranslate's
    // error shape, counted in the metrics.
    HttpResponse error(int status, const std::string& path, double seconds);

    // Shutting down: /health answers 503 (requests still arriving on open
    // connections are translated until the queue closes).
    void stopping() { stopping_ = true; }

private:
    HttpResponse route(const HttpRequest& request, std::string& endpoint);
    void record(const std::string& endpoint, int status, double seconds);

    TranslationService& service_;
    const std::set<std::string> api_keys_;
    std::atomic<bool> stopping_{false};
};

}  // namespace nmt::serve
