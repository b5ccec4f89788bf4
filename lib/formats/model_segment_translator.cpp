#include "formats/model_segment_translator.h"

namespace nmt {

ModelSegmentTranslator::ModelSegmentTranslator(Translator& translator, TranslateOptions options, bool split_sentences)
    : translator_(translator), options_(std::move(options)), split_(split_sentences) {
    options_.search.n_best = 1;
}

std::vector<SegmentTranslation> ModelSegmentTranslator::translate(const std::vector<std::string>& segments) {
    const SegmentSentences sentences = cut_segments(segments, split_);
    std::vector<std::string> warnings;
    const std::vector<TranslationResult> results = translator_.translate(sentences.texts, options_, &warnings, 1);
    if (warn)
        for (const auto& w : warnings) warn(segment_warning(w, sentences.segment_of));
    return join_segments(segments, sentences, results);
}

}  // namespace nmt
