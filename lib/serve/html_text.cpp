#include "serve/html_text.h"

#include <utility>

#include "core/error.h"

namespace nmt::serve {

namespace {

// Hands HtmlDocument::translate the translations made beforehand for exactly
// the segments it asks for.
class GivenTranslations : public SegmentTranslator {
public:
    GivenTranslations(const std::vector<std::string>& segments, std::vector<SegmentTranslation> translations)
        : segments_(segments), translations_(std::move(translations)) {}

    std::vector<SegmentTranslation> translate(const std::vector<std::string>& segments) override {
        if (segments != segments_ || translations_.size() != segments_.size())
            throw Error("HTML: the document asked for other segments than those translated for it");
        return std::move(translations_);
    }

private:
    const std::vector<std::string>& segments_;
    std::vector<SegmentTranslation> translations_;
};

}  // namespace

HtmlText::HtmlText(std::string html)
    : document_(std::make_unique<HtmlDocument>(std::move(html))), segments_(document_->segments()) {}

std::string HtmlText::write(std::vector<SegmentTranslation> translations, bool* kept) const {
    GivenTranslations given(segments_, std::move(translations));
    return document_->translate(given, kept);
}

}  // namespace nmt::serve
