// Translating a line of several sentences one sentence at a time: the
// sentences of many lines go through Translator::translate as one batch, and
// each line's translations are joined with the text that separated its
// sentences. One line in still gives one result out.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "decode/translation_result.h"
#include "decode/translator.h"

namespace nmt {

// A paragraph pasted as one line can hold hundreds of sentences; past this
// many, the rest of the line stays with the last sentence (and is cropped
// with a warning if that makes it too long). It bounds what one line costs:
// its merged attention matrix grows with the square of its length.
constexpr size_t kMaxSentencesPerLine = 64;

// What the translator is given for one line.
struct LineSentences {
    // The line's sentences; the whole line, unchanged, when it is not split
    // (split off, one sentence or none).
    std::vector<std::string> sentences;
    // separators[k]: the exact text between sentence k and sentence k + 1.
    // The line's leading and trailing whitespace is not kept, as a whole
    // line's translation does not keep it either.
    std::vector<std::string> separators;
};

LineSentences line_sentences(const std::string& line, bool split);

// One line's translation, still per sentence: merge_translation_results
// makes it one result.
struct LineTranslation {
    std::vector<TranslationResult> sentences;
    std::vector<std::string> separators;
};

// Translates the sentences of all `lines` together (batching across lines),
// in input order. Warnings name the line a sentence came from (first_line
// numbers lines[0]).
std::vector<LineTranslation> translate_lines(Translator& translator, const std::vector<LineSentences>& lines,
                                             const TranslateOptions& options,
                                             std::vector<std::string>* warnings = nullptr, int64_t first_line = 1);
// The same, with each line's own number (lines of a chunk routed to several
// models are not consecutive).
std::vector<LineTranslation> translate_lines(Translator& translator, const std::vector<LineSentences>& lines,
                                             const TranslateOptions& options, std::vector<std::string>* warnings,
                                             const std::vector<int64_t>& line_numbers);

// One result for a line from its sentences' results (the best hypothesis of
// each; n-best lists are not combined):
//  - source and target pieces concatenated, each sentence's "</s>" dropped
//    except the last one's, so the lists look like one sentence's;
//  - translation: the translations joined with separators (one fewer than
//    sentences); target_ids concatenated;
//  - score and normalized_score: sums (each sentence was ranked on its own);
//  - attention block-diagonal: the rows of sentence k's target pieces hold
//    its weights over sentence k's source pieces and zeros elsewhere. The
//    weight a row gave a dropped source "</s>" is added to that sentence's
//    last source piece (usually its final punctuation, which ends the
//    sentence as "</s>" did), so every row still sums to 1. With
//    with_attention false the merged attention is left empty, as from a run
//    that kept none: plain-text output needs no quadratic matrix.
// A sentence without a hypothesis (nothing to translate) adds only its
// separators; a single sentence's result comes back unchanged, n-best list
// and all. Throws std::invalid_argument when the counts do not match.
TranslationResult merge_translation_results(const std::vector<TranslationResult>& sentences,
                                            const std::vector<std::string>& separators,
                                            bool with_attention = true);

}  // namespace nmt
