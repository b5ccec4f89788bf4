#include "option_checks.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nmt::app {

namespace {

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

// The whole text as a double; false when it is not one number.
bool parse_number(const std::string& text, double& value) {
    if (text.empty()) return false;
    char* end = nullptr;
    errno = 0;
    value = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
}

}  // namespace

CLI::Validator whole_number(bool non_negative) {
    return CLI::Validator(
        [non_negative](std::string& text) -> std::string {
            size_t digits = text.size() > 0 && (text[0] == '-' || text[0] == '+') ? 1 : 0;
            const bool negative = !text.empty() && text[0] == '-';
            const bool whole = digits < text.size() && text.find_first_not_of("0123456789", digits) == std::string::npos;
            if (!whole) return in_quotes(text) + " is not a whole number";
            if (non_negative && negative && text.find_first_not_of("0", 1) != std::string::npos)
                return in_quotes(text) + " is negative: give 0 or more";
            return {};
        },
        "");
}

CLI::Validator finite_number() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double value = 0;
            if (!parse_number(text, value)) return in_quotes(text) + " is not a number";
            if (!std::isfinite(value)) return in_quotes(text) + " is not a finite number";
            if (std::fabs(value) > FLT_MAX) return in_quotes(text) + " is too large (at most " + number_text(FLT_MAX) + ")";
            return {};
        },
        "");
}

CLI::Validator number_range(double min, double max, bool above_min) {
    const bool has_min = min > -1e300, has_max = max < 1e300;
    std::string wanted;
    if (has_min && has_max)
        wanted = "from " + number_text(min) + (above_min ? " (excluded)" : "") + " to " + number_text(max);
    else if (has_min)
        wanted = (above_min ? "above " : "at least ") + number_text(min);
    else if (has_max)
        wanted = "at most " + number_text(max);
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            double value = 0;
            if (!parse_number(text, value)) return in_quotes(text) + " is not a number";
            const bool below = has_min && (above_min ? !(value > min) : !(value >= min));
            const bool above = has_max && !(value <= max);
            if (below || above || std::isnan(value)) return "must be " + wanted + ", not " + text;
            return {};
        },
        has_min || has_max ? "NUMBER " + wanted : "");
}

}  // namespace nmt::app
