#include "serve/request.h"

#include <cctype>
#include <cmath>
#include <limits>

namespace nmt::serve {

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string decode_component(const std::string& text, size_t begin, size_t end) {
    std::string out;
    out.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) {
        const char c = text[i];
        if (c == '+') {
            out += ' ';
        } else if (c == '%' && i + 2 < end && hex_value(text[i + 1]) >= 0 && hex_value(text[i + 2]) >= 0) {
            out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

std::string lowercase(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// "application/json; charset=utf-8" → "application/json".
std::string media_type(const std::string& content_type) {
    std::string type = content_type.substr(0, content_type.find(';'));
    while (!type.empty() && std::isspace(static_cast<unsigned char>(type.back()))) type.pop_back();
    size_t start = 0;
    while (start < type.size() && std::isspace(static_cast<unsigned char>(type[start]))) ++start;
    return lowercase(type.substr(start));
}

bool looks_like_json_object(const std::string& body) {
    for (char c : body) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
        return c == '{';
    }
    return false;
}

void add_form_fields(nlohmann::json& fields, const std::vector<std::pair<std::string, std::string>>& pairs) {
    for (const auto& [name, value] : pairs)
        if (!fields.contains(name)) fields[name] = value;  // the first of repeated names, as Flask's .get()
}

[[noreturn]] void invalid(const std::string& what) { throw ApiError(400, "Invalid request: " + what); }

// A field that must be text when present: its value, or "" when absent or null.
std::string text_field(const nlohmann::json& fields, const char* name) {
    const auto it = fields.find(name);
    if (it == fields.end() || it->is_null()) return "";
    if (!it->is_string()) invalid(std::string(name) + " parameter must be a string");
    return it->get<std::string>();
}

// LibreTranslate reads alternatives with int(): whole numbers, numeric text,
// and true/false; a negative count is 0.
int alternatives_field(const nlohmann::json& fields, const RequestLimits& limits) {
    const auto it = fields.find("alternatives");
    if (it == fields.end() || it->is_null()) return 0;
    double value = 0;
    if (it->is_boolean()) {
        value = it->get<bool>() ? 1 : 0;
    } else if (it->is_number()) {
        value = it->get<double>();
    } else if (it->is_string()) {
        std::string text = it->get<std::string>();
        size_t begin = 0, end = text.size();
        while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
        while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
        text = text.substr(begin, end - begin);
        size_t digits = text.empty() || (text[0] != '-' && text[0] != '+') ? 0 : 1;
        if (digits == text.size() || text.size() > 18) invalid("alternatives parameter is not a number");
        for (size_t i = digits; i < text.size(); ++i)
            if (!std::isdigit(static_cast<unsigned char>(text[i]))) invalid("alternatives parameter is not a number");
        value = static_cast<double>(std::stoll(text));
    } else {
        invalid("alternatives parameter is not a number");
    }
    if (!std::isfinite(value)) invalid("alternatives parameter is not a number");
    value = std::trunc(value);
    if (value < 0) value = 0;
    if (value > limits.max_alternatives)
        invalid("alternatives parameter must be <= " + std::to_string(limits.max_alternatives));
    return static_cast<int>(value);
}

bool flag_field(const nlohmann::json& fields, const char* name) {
    const auto it = fields.find(name);
    if (it == fields.end() || it->is_null()) return false;
    if (it->is_boolean()) return it->get<bool>();
    if (it->is_string()) {
        const std::string v = lowercase(it->get<std::string>());
        if (v == "true" || v == "1") return true;
        if (v == "false" || v == "0" || v.empty()) return false;
    }
    invalid(std::string(name) + " parameter must be true or false");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> decode_form(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    size_t begin = 0;
    while (begin <= text.size()) {
        size_t end = text.find('&', begin);
        if (end == std::string::npos) end = text.size();
        const size_t equals = text.find('=', begin);
        const size_t name_end = equals == std::string::npos || equals > end ? end : equals;
        std::string name = decode_component(text, begin, name_end);
        std::string value = name_end < end ? decode_component(text, name_end + 1, end) : std::string();
        if (!name.empty()) out.emplace_back(std::move(name), std::move(value));
        begin = end + 1;
    }
    return out;
}

nlohmann::json request_fields(const std::string& content_type, const std::string& body, const std::string& query,
                              const std::vector<std::pair<std::string, std::string>>& parts) {
    nlohmann::json fields = nlohmann::json::object();
    const std::string type = media_type(content_type);
    const bool multipart = type.rfind("multipart/", 0) == 0;
    if (type == "application/json" || (!multipart && looks_like_json_object(body))) {
        nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
        if (parsed.is_discarded() || !parsed.is_object()) throw ApiError(400, "Invalid JSON format");
        fields = std::move(parsed);
    } else if (multipart) {
        add_form_fields(fields, parts);
    } else {
        add_form_fields(fields, decode_form(body));
    }
    add_form_fields(fields, decode_form(query));
    return fields;
}

std::string api_key_of(const nlohmann::json& fields) {
    for (const char* name : {"api_key", "apiKey"}) {
        const auto it = fields.find(name);
        if (it != fields.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
    }
    return "";
}

TranslateRequest parse_translate_request(const nlohmann::json& fields, bool ours, const RequestLimits& limits) {
    TranslateRequest r;
    const auto q = fields.find("q");
    if (q == fields.end() || q->is_null() || (q->is_string() && q->get<std::string>().empty()) ||
        (q->is_array() && q->empty()))
        invalid("missing q parameter");
    if (q->is_string()) {
        r.texts.push_back(q->get<std::string>());
    } else if (q->is_array()) {
        r.list = true;
        if (q->size() > limits.max_texts)
            invalid("request (" + std::to_string(q->size()) + ") exceeds text limit (" +
                    std::to_string(limits.max_texts) + ")");
        for (const auto& text : *q) {
            if (!text.is_string()) invalid("q must be a string or a list of strings");
            r.texts.push_back(text.get<std::string>());
        }
    } else {
        invalid("q must be a string or a list of strings");
    }
    r.source = text_field(fields, "source");
    if (r.source.empty()) invalid("missing source parameter");
    r.target = text_field(fields, "target");
    if (r.target.empty()) invalid("missing target parameter");
    r.alternatives = alternatives_field(fields, limits);
    const std::string format = text_field(fields, "format");
    r.format = format.empty() ? "text" : format;
    if (r.format != "text" && r.format != "html") throw ApiError(400, r.format + " format is not supported");
    if (ours) {
        r.alignments = flag_field(fields, "alignments");
        r.domain = text_field(fields, "domain");
    }
    return r;
}

std::string parse_detect_request(const nlohmann::json& fields) {
    const auto q = fields.find("q");
    std::string text;
    if (q != fields.end() && q->is_string()) {
        text = q->get<std::string>();
    } else if (q != fields.end() && q->is_array()) {
        for (const auto& entry : *q) {
            if (!entry.is_string()) invalid("q must be a string or a list of strings");
            if (!text.empty()) text += '\n';
            text += entry.get<std::string>();
        }
    } else if (q != fields.end() && !q->is_null()) {
        invalid("q must be a string or a list of strings");
    }
    if (text.empty()) invalid("missing q parameter");
    return text;
}

}  // namespace nmt::serve
