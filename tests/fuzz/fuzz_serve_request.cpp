// What `nmt serve` reads from a request before anything is queued
// (lib/serve/request.h): the body's fields as JSON or a form, and
// LibreTranslate's parameters. The first byte picks the content type and the
// endpoint; the rest is the body, then, after a NUL byte, the URL's query.
// Anything but a parsed request or an ApiError (400) is a
// finding, and so is a parsed request that breaks the promises the
// translation side relies on.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "serve/request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    static const char* const types[] = {"application/json", "application/x-www-form-urlencoded", "",
                                        "text/plain; charset=utf-8"};
    const std::string type = types[data[0] & 3];
    const bool ours = (data[0] & 4) != 0;
    const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    const size_t nul = rest.find('\0');
    const std::string body = rest.substr(0, nul);
    const std::string query = nul == std::string::npos ? "" : rest.substr(nul + 1);
    nmt::serve::RequestLimits limits;
    limits.max_texts = 50;
    try {
        const nlohmann::json fields = nmt::serve::request_fields(type, body, query);
        if (!fields.is_object()) std::abort();
        (void)nmt::serve::api_key_of(fields);
        try {
            (void)nmt::serve::parse_detect_request(fields);
        } catch (const nmt::serve::ApiError& e) {
            if (e.status != 400) std::abort();
        }
        const nmt::serve::TranslateRequest r = nmt::serve::parse_translate_request(fields, ours, limits);
        if (r.texts.empty() || r.texts.size() > limits.max_texts) std::abort();
        if (!r.list && r.texts.size() != 1) std::abort();
        if (!r.list && r.texts[0].empty()) std::abort();
        if (r.source.empty() || r.target.empty()) std::abort();
        if (r.format != "text" && r.format != "html") std::abort();
        if (r.alternatives < 0 || r.alternatives > limits.max_alternatives) std::abort();
        if (!ours && (r.alignments || !r.domain.empty())) std::abort();
    } catch (const nmt::serve::ApiError& e) {
        // (A message may start with a NUL byte the request sent: what() reads empty then.)
        if (e.status != 400) std::abort();
    }
    return 0;
}
