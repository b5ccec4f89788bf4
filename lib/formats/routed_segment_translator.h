// The SegmentTranslator of nmt translate --from auto for a document: the
// language is detected once, on all the text the format gives to translate
// (its first call), and every segment goes to that language's model. A
// document already in the target language, or in one no model translates,
// comes back unchanged (each segment's translation is itself, word for word).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "decode/language_router.h"
#include "formats/segment_translator.h"

namespace nmt {

class RoutedSegmentTranslator : public SegmentTranslator {
public:
    RoutedSegmentTranslator(LanguageRouter& router, bool split_sentences);

    std::vector<SegmentTranslation> translate(const std::vector<std::string>& segments) override;

    // The document's route, once the first non-blank text has been judged.
    const std::optional<LanguageRoute>& route() const { return route_; }

    std::function<void(const std::string&)> warn;  // the model's warnings ("segment N: ...")
    std::function<void(const LanguageRoute&)> on_route;  // told the document's route once it is decided

private:
    LanguageRouter& router_;
    bool split_;
    std::optional<LanguageRoute> route_;
};

// Each segment as its own translation, every word linked to itself.
std::vector<SegmentTranslation> unchanged_segments(const std::vector<std::string>& segments);

}  // namespace nmt
