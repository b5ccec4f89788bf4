// A document's segments as a model translates them, and back: each segment
// cut into sentences as `nmt translate` cuts a line (decode/sentence_split.h),
// and the model's result for each sentence joined into its segment's
// SegmentTranslation, rejoined with the text that separated the sentences,
// the words of both sides linked where the model's attention put them
// (align/alignment_stream.h's attention_links). Shared by the two ways
// sentences reach a model, so that both give the same documents: nmt
// translate's one Translator call (model_segment_translator.h) and nmt
// serve's batch queue (serve/translation_service.cpp).
//
// Words are the text's runs of non-space bytes (formats/text_words.h). When
// the model's words and the text's
// differ in number (normalisation, a repaired placeholder, a cropped
// sentence) each model word is mapped to the text word at the same relative
// position, so links always name words of the texts given back.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "decode/sentence_split.h"
#include "decode/translation_result.h"
#include "formats/segment_translator.h"
#include "formats/text_words.h"

namespace nmt {

struct SegmentSentences {
    // Every segment's sentences, in order, cleaned as nmt translate cleans a
    // line: what the model is given.
    std::vector<std::string> texts;
    std::vector<size_t> segment_of;  // texts[k] is a sentence of segment segment_of[k]
    // Where each segment's sentences lie in it, and what separated them.
    std::vector<std::vector<SentenceSpan>> spans;
};

// `split` false: each segment is one sentence (nmt translate --no-split).
SegmentSentences cut_segments(const std::vector<std::string>& segments, bool split);

// One SegmentTranslation per segment from the results of the sentences
// (`results[k]` for `sentences.texts[k]`, as Translator::translate gives
// them: placeholders already repaired; a result without hypotheses is a
// sentence with nothing to translate).
std::vector<SegmentTranslation> join_segments(const std::vector<std::string>& segments,
                                              const SegmentSentences& sentences,
                                              const std::vector<TranslationResult>& results);

// Translator::translate names sentence N of a call "line N: ..."; users need
// the segment it came from: "segment S: ...". Other warnings are kept as they are.
std::string segment_warning(const std::string& warning, const std::vector<size_t>& segment_of);

}  // namespace nmt
