#include "formats/document_format.h"

#include <algorithm>
#include <cctype>

#include "formats/po_catalogue.h"
#include "formats/srt_subtitles.h"

namespace nmt {

const std::vector<DocumentFormat>& document_formats() {
    static const std::vector<DocumentFormat> formats = {
        {"po", {".po", ".pot"}, "gettext catalogue: untranslated messages translated, marked fuzzy", translate_po},
        {"srt", {".srt"}, "SubRip subtitles: cue text translated, numbers and timings kept", translate_srt},
    };
    return formats;
}

const DocumentFormat* find_document_format(const std::string& name) {
    for (const auto& format : document_formats())
        if (format.name == name) return &format;
    return nullptr;
}

const DocumentFormat* document_format_for_file(const std::string& path) {
    std::string lower = path;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto& format : document_formats())
        for (const auto& extension : format.extensions)
            if (lower.size() > extension.size() &&
                lower.compare(lower.size() - extension.size(), extension.size(), extension) == 0)
                return &format;
    return nullptr;
}

}  // namespace nmt
