// A text of an html request (nmt serve, format html): an HTML fragment or
// page, translated exactly as `nmt translate --format html` translates one
// (formats/html_document.h), but in two steps, so that the segments of all
// the texts of a request go through the batch queue together (one limit,
// one deadline, batched with everyone else's sentences): segments() first,
// then write() with their translations.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "formats/html_document.h"
#include "formats/segment_translator.h"

namespace nmt::serve {

class HtmlText {
public:
    // Any bytes: broken markup is repaired as browsers repair it, never refused.
    explicit HtmlText(std::string html);

    // The running text to translate, as HtmlDocument::translate cuts it.
    const std::vector<std::string>& segments() const { return segments_; }

    // The text with `translations` (one per segment, in order) in place of
    // its running text. When its markup cannot be written back around them
    // (trees only broken markup makes), the text as it came, and *kept set.
    std::string write(std::vector<SegmentTranslation> translations, bool* kept) const;

private:
    std::unique_ptr<HtmlDocument> document_;  // held apart: a request keeps its texts in a vector
    std::vector<std::string> segments_;
};

}  // namespace nmt::serve
