#include "formats/document_format.h"

#include <algorithm>
#include <cctype>

#include "formats/html_document.h"
#include "formats/markdown_document.h"
#include "formats/po_catalogue.h"
#include "formats/srt_subtitles.h"

namespace nmt {

namespace {

std::string translate_html(const std::string& text, const std::string& name, SegmentTranslator& translator,
                           const DocumentOptions& options) {
    bool kept = false;
    std::string translated = HtmlDocument(text).translate(translator, &kept);
    if (kept && options.warn)
        options.warn(name + ": its markup could not be written back with the translation (markup only broken HTML "
                            "makes); the document is copied through untranslated");
    return translated;
}

std::string translate_markdown(const std::string& text, const std::string&, SegmentTranslator& translator,
                               const DocumentOptions&) {
    return MarkdownDocument(text).translate(translator);
}

}  // namespace

const std::vector<DocumentFormat>& document_formats() {
    static const std::vector<DocumentFormat> formats = {
        {"po", {".po", ".pot"}, "gettext catalogue: untranslated messages translated, marked fuzzy", translate_po},
        {"srt", {".srt"}, "SubRip subtitles: cue text translated, numbers and timings kept", translate_srt},
        {"html", {".html", ".htm", ".xhtml"},
         "HTML page or fragment: text translated, inline tags placed around their words, code and scripts kept",
         translate_html},
        {"markdown", {".md", ".markdown"},
         "Markdown (CommonMark with GitHub's tables): text translated, code and links' addresses kept",
         translate_markdown},
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
