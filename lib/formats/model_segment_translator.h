// The SegmentTranslator that nmt translate gives the document formats: each
// segment cut into sentences as `nmt translate` cuts a line, all the
// sentences of all segments translated in one Translator call (which batches
// them by length), and each segment's translation joined back with its words
// linked (formats/segment_sentences.h, which nmt serve shares).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "decode/translator.h"
#include "formats/segment_sentences.h"
#include "formats/segment_translator.h"

namespace nmt {

class ModelSegmentTranslator : public SegmentTranslator {
public:
    // options.search.n_best is taken as 1: a document gets one translation.
    ModelSegmentTranslator(Translator& translator, TranslateOptions options, bool split_sentences = true);

    std::vector<SegmentTranslation> translate(const std::vector<std::string>& segments) override;

    // Repaired or cropped sentences ("segment N: ..."), after each call.
    std::function<void(const std::string&)> warn;

private:
    Translator& translator_;
    TranslateOptions options_;
    bool split_;
};

}  // namespace nmt
