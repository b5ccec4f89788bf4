#include "decode/alignment_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include "core/error.h"
#include "io/text_input.h"

namespace nmt {

namespace {

// Geometry in px. Cells fit "0.87" at the cell font size with room to spare.
constexpr double kCell = 36;
constexpr double kLabelFont = 13;
constexpr double kCellFont = 11;
constexpr double kTitleFont = 15;
constexpr double kMargin = 12;
constexpr double kGap = 8;            // between labels and the grid
constexpr double kSlant = 45;         // degrees, source labels
constexpr size_t kMaxLabelChars = 24;  // longer labels are shortened with "…"

// Text renders in whatever the viewer has; listing fonts that cover Latin,
// Cyrillic, Greek, CJK and Arabic avoids boxes for most language pairs.
const char* const kFonts =
    "'DejaVu Sans', 'Noto Sans', 'Noto Sans CJK SC', 'Noto Sans CJK JP', 'Source Han Sans', "
    "'Microsoft YaHei', 'Hiragino Sans', 'Segoe UI', 'Arial Unicode MS', Arial, sans-serif";

// The darkest blue of ColorBrewer's "Blues": white-to-this reads as "more
// attention" at a glance and stays legible for colour-blind readers.
constexpr int kDark[3] = {8, 48, 107};

std::vector<char32_t> code_points(const std::string& s) {
    std::vector<char32_t> out;
    for (size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        const int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
        char32_t c = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
        for (int k = 1; k < n && i + k < s.size(); ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        out.push_back(c);
        i += n;
    }
    return out;
}

// East Asian wide characters take about a full em.
bool is_wide(char32_t c) {
    return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
           (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) || (c >= 0x1F900 && c <= 0x1F9FF) ||
           (c >= 0x20000 && c <= 0x3FFFD);
}

// Advance widths in em, close to DejaVu Sans (one of the widest common sans
// fonts, so narrower fallbacks never overflow the space we leave).
double char_width(char32_t c) {
    if (is_wide(c)) return 1.0;
    if (c >= 0x80) return 0.65;
    if (c == ' ' || std::string_view(".,:;'|!ijl").find(static_cast<char>(c)) != std::string_view::npos) return 0.32;
    if (std::string_view("ftr()[]-/\\\"").find(static_cast<char>(c)) != std::string_view::npos) return 0.42;
    if (c == 'm' || c == 'w' || c == 'M' || c == 'W') return 0.95;
    if (c >= 'A' && c <= 'Z') return 0.72;
    return 0.63;
}

double text_width(const std::string& s, double font_size) {
    double ems = 0;
    for (char32_t c : code_points(s)) ems += char_width(c);
    return ems * font_size;
}

// Valid UTF-8 without control characters (XML forbids most of them), then
// escaped for use in text and attribute values.
std::string xml_escape(const std::string& raw) {
    const std::string text = clean_line(raw, 0, nullptr);
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    }
    return out;
}

// Cut at a code point boundary so the label stays valid UTF-8.
std::string shorten(const std::string& s) {
    size_t count = 0, i = 0;
    while (i < s.size()) {
        if (count == kMaxLabelChars - 1) {
            size_t rest = 0;
            for (size_t j = i; j < s.size(); ++j) rest += (static_cast<unsigned char>(s[j]) & 0xC0) != 0x80;
            return rest <= 1 ? s : s.substr(0, i) + "\xE2\x80\xA6";  // "…"
        }
        ++i;
        while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
        ++count;
    }
    return s;
}

std::string num(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", x);
    std::string s = buffer;
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
    return s;
}

std::string weight_text(float w) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f", static_cast<double>(w));
    return buffer;
}

std::string fill_color(float weight) {
    const double w = std::clamp(static_cast<double>(weight), 0.0, 1.0);
    char buffer[16];
    int rgb[3];
    for (int k = 0; k < 3; ++k) rgb[k] = static_cast<int>(std::lround(255 + (kDark[k] - 255) * w));
    std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    return buffer;
}

void check_shape(size_t sources, size_t targets, const std::vector<std::vector<float>>& weights) {
    bool ok = weights.size() == targets;
    for (const auto& row : weights) ok = ok && row.size() == sources;
    if (!ok) {
        throw std::invalid_argument("alignment_svg: weights are not " + std::to_string(targets) + " target words by " +
                                    std::to_string(sources) + " source words");
    }
}

}  // namespace

std::string alignment_svg(const std::vector<std::string>& source_words, const std::vector<std::string>& target_words,
                          const std::vector<std::vector<float>>& weights, const std::string& title) {
    check_shape(source_words.size(), target_words.size(), weights);
    const double pi = std::acos(-1.0);
    const double slant_cos = std::cos(kSlant * pi / 180), slant_sin = std::sin(kSlant * pi / 180);

    std::vector<std::string> source_labels, target_labels;
    double source_label_w = 0, target_label_w = 0, overhang = 0;
    for (size_t s = 0; s < source_words.size(); ++s) {
        source_labels.push_back(shorten(source_words[s]));
        const double w = text_width(source_labels.back(), kLabelFont);
        source_label_w = std::max(source_label_w, w);
        // A slanted label reaches right past its column; the last ones can
        // pass the grid's right edge.
        const double right = (s + 0.5) * kCell + w * slant_cos;
        overhang = std::max(overhang, right - source_words.size() * kCell);
    }
    for (const auto& word : target_words) {
        target_labels.push_back(shorten(word));
        target_label_w = std::max(target_label_w, text_width(target_labels.back(), kLabelFont));
    }

    const double title_h = title.empty() ? 0 : kTitleFont + kGap;
    const double grid_x = kMargin + target_label_w + kGap;
    const double grid_y = kMargin + title_h + source_label_w * slant_sin + kLabelFont + kGap;
    const double grid_w = source_words.size() * kCell;
    const double grid_h = target_words.size() * kCell;
    const double legend_y = grid_y + grid_h + 2 * kGap;
    const double legend_w = 120, legend_h = 10;
    const double width = std::max({grid_x + grid_w + std::max(overhang, 0.0) + kMargin,
                                   grid_x + legend_w + 8 + text_width("attention", kCellFont) + kMargin,
                                   // bold runs about 10% wider than regular
                                   kMargin + 1.1 * text_width(title, kTitleFont) + kMargin});
    const double height = legend_y + legend_h + kLabelFont + kGap + kMargin;

    std::string svg;
    svg += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
           "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" font-family=\"" + kFonts + "\">\n";
    svg += "<title>" + xml_escape(title.empty() ? "attention" : title) + "</title>\n";
    svg += "<defs><linearGradient id=\"scale\"><stop offset=\"0\" stop-color=\"" + fill_color(0) +
           "\"/><stop offset=\"1\" stop-color=\"" + fill_color(1) + "\"/></linearGradient></defs>\n";
    svg += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    if (!title.empty()) {
        svg += "<text x=\"" + num(kMargin) + "\" y=\"" + num(kMargin + kTitleFont) + "\" font-size=\"" +
               num(kTitleFont) + "\" font-weight=\"bold\" fill=\"#222222\">" + xml_escape(title) + "</text>\n";
    }

    // Source words: slanted, each starting just above the middle of its column.
    svg += "<g font-size=\"" + num(kLabelFont) + "\" fill=\"#222222\">\n";
    for (size_t s = 0; s < source_labels.size(); ++s) {
        const double x = grid_x + (s + 0.5) * kCell, y = grid_y - kGap;
        svg += "<text transform=\"translate(" + num(x) + "," + num(y) + ") rotate(-" + num(kSlant) + ")\">" +
               xml_escape(source_labels[s]) + "</text>\n";
    }
    // Target words: right-aligned against the grid, centred on their row.
    for (size_t t = 0; t < target_labels.size(); ++t) {
        const double y = grid_y + (t + 0.5) * kCell;
        svg += "<text x=\"" + num(grid_x - kGap) + "\" y=\"" + num(y) +
               "\" text-anchor=\"end\" dominant-baseline=\"central\">" + xml_escape(target_labels[t]) + "</text>\n";
    }
    svg += "</g>\n";

    // Cells. The value text ignores the pointer so hovering anywhere in the
    // cell shows the rect's <title>.
    svg += "<g stroke=\"#ffffff\" stroke-width=\"1\">\n";
    std::string values;
    for (size_t t = 0; t < target_words.size(); ++t) {
        for (size_t s = 0; s < source_words.size(); ++s) {
            const float w = weights[t][s];
            const double x = grid_x + s * kCell, y = grid_y + t * kCell;
            svg += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(kCell) + "\" height=\"" +
                   num(kCell) + "\" fill=\"" + fill_color(w) + "\"><title>" + xml_escape(source_words[s]) +
                   " \xE2\x86\x92 " + xml_escape(target_words[t]) + ": " + weight_text(w) + "</title></rect>\n";
            if (w > 0.3f) {
                values += "<text x=\"" + num(x + kCell / 2) + "\" y=\"" + num(y + kCell / 2) + "\" fill=\"" +
                          (w >= 0.5f ? "#ffffff" : "#08306b") + "\">" + weight_text(w) + "</text>\n";
            }
        }
    }
    svg += "</g>\n";
    svg += "<g font-size=\"" + num(kCellFont) +
           "\" text-anchor=\"middle\" dominant-baseline=\"central\" pointer-events=\"none\">\n" + values + "</g>\n";
    // A thin frame so pale cells at the border still read as part of the grid.
    svg += "<rect x=\"" + num(grid_x) + "\" y=\"" + num(grid_y) + "\" width=\"" + num(grid_w) + "\" height=\"" +
           num(grid_h) + "\" fill=\"none\" stroke=\"#c8c8c8\"/>\n";

    // Legend: the colour scale from 0 to 1.
    svg += "<g font-size=\"" + num(kCellFont) + "\" fill=\"#444444\">\n";
    svg += "<rect x=\"" + num(grid_x) + "\" y=\"" + num(legend_y) + "\" width=\"" + num(legend_w) + "\" height=\"" +
           num(legend_h) + "\" fill=\"url(#scale)\" stroke=\"#c8c8c8\"/>\n";
    svg += "<text x=\"" + num(grid_x) + "\" y=\"" + num(legend_y + legend_h + kCellFont + 2) + "\">0</text>\n";
    svg += "<text x=\"" + num(grid_x + legend_w) + "\" y=\"" + num(legend_y + legend_h + kCellFont + 2) +
           "\" text-anchor=\"end\">1</text>\n";
    svg += "<text x=\"" + num(grid_x + legend_w + 8) + "\" y=\"" + num(legend_y + legend_h) +
           "\">attention</text>\n";
    svg += "</g>\n</svg>\n";
    return svg;
}

void write_alignment_svg_file(const std::string& directory, int64_t line_number,
                              const std::vector<std::string>& source_words, const std::vector<std::string>& target_words,
                              const std::vector<std::vector<float>>& weights, const std::string& title) {
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    if (error) throw Error(directory + ": cannot create directory: " + error.message());
    char name[32];
    std::snprintf(name, sizeof name, "%06lld.svg", static_cast<long long>(line_number));
    const auto path = std::filesystem::path(directory) / name;
    std::ofstream file(path);
    file << alignment_svg(source_words, target_words, weights, title);
    if (!file) throw Error(path.string() + ": cannot write");
}

}  // namespace nmt
