// The SegmentTranslator that nmt translate gives the document formats: each
// segment cut into sentences as `nmt translate` cuts a line
// (decode/sentence_split.h), all the sentences of all segments translated in
// one Translator call (which batches them by length), each segment's
// translations rejoined with the text that separated its sentences, and the
// words of both sides linked where the model's attention put them
// (align/alignment_stream.h's attention_links).
//
// Words are the text's runs of non-space bytes (spaces, tabs and the
// no-break spaces U+00A0, U+202F and U+2009 separate them), as the
// SentencePiece models cut words. When the model's words and the text's
// differ in number (normalisation, a repaired placeholder, a cropped
// sentence) each model word is mapped to the text word at the same relative
// position, so links always name words of the texts given back.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "decode/translator.h"
#include "formats/segment_translator.h"

namespace nmt {

// The runs of non-space bytes of `text` (see above), in order.
std::vector<ByteSpan> text_words(const std::string& text);

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
