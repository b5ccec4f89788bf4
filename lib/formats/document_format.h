// The document formats nmt translate reads whole (gettext catalogues,
// subtitles, and whatever is added here): each named once, with the file
// extensions that choose it and the function that translates a document of
// it. The command line builds its --format choices from this list, so a new
// format is one entry in document_format.cpp.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "formats/segment_translator.h"

namespace nmt {

struct DocumentOptions {
    std::string source_language;  // "en": the model's source side
    std::string target_language;  // "fr": written where the format records it (a PO header's Language)
    // Gettext: translate messages that already have a translation too.
    bool overwrite_translated = false;
    // What was repaired or copied through ("cue 12: ..."); lib never prints.
    std::function<void(const std::string&)> warn;
};

// The whole document in, the translated document out. `name` (a file name,
// or "stdin") is what errors and warnings call it. Throws nmt::Error for
// input that cannot be translated safely, before anything is written.
using TranslateDocument = std::function<std::string(const std::string& text, const std::string& name,
                                                    SegmentTranslator& translator, const DocumentOptions& options)>;

struct DocumentFormat {
    std::string name;                     // "po": what --format takes
    std::vector<std::string> extensions;  // ".po", ".pot": what -i's name ends with (lower case)
    std::string description;              // for --help
    TranslateDocument translate;
};

// Every document format, in the order --help lists them.
const std::vector<DocumentFormat>& document_formats();

// The format named `name`, or null.
const DocumentFormat* find_document_format(const std::string& name);

// The format whose extension `path` ends with (case-insensitively), or null.
const DocumentFormat* document_format_for_file(const std::string& path);

// A document is read whole, so its size is bounded: a file this large is
// refused with an error instead of filling memory.
constexpr size_t kMaxDocumentBytes = size_t(64) << 20;

}  // namespace nmt
