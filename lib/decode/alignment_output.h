// Turning a TranslationResult into what people read: attention over whole
// words instead of subword pieces, Pharaoh hard alignments, one JSON object
// per input line, and Moses n-best lines.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "decode/translation_result.h"

namespace nmt {

// A word and the pieces it was cut into: pieces[first, first + count).
struct WordSpan {
    std::string text;  // the pieces joined, without SentencePiece's '▁'
    int first = 0;
    int count = 0;
    // The "</s>" piece. Kept as a flag because a word's text can also read
    // "</s>" when a user typed it (pieces "▁</", "s", ">").
    bool end = false;
};

// Groups SentencePiece pieces into words: a piece starting with '▁' (U+2581)
// starts a word and the pieces after it without '▁' continue it. "</s>" is
// always a word of its own. A first piece without '▁' still starts a word.
std::vector<WordSpan> group_words(const std::vector<std::string>& pieces);

// Attention over words. Both sides keep their "</s>" as the last word, so a
// row still says where the model looked for every decision it made.
struct WordAttention {
    std::vector<WordSpan> source;
    std::vector<WordSpan> target;
    // weights[t][s]. A source word's weight is the sum over its pieces (the
    // attention it received in total); a target word's row is the mean of its
    // pieces' rows, so every row still sums to 1.
    std::vector<std::vector<float>> weights;
};

std::vector<std::string> word_texts(const std::vector<WordSpan>& words);

// attention[t][s] over pieces, as in Hypothesis::attention. An empty attention
// (a model or run that did not keep it) gives words with an empty matrix.
// Throws std::invalid_argument when the matrix does not match the pieces.
WordAttention word_attention(const std::vector<std::string>& source_pieces,
                             const std::vector<std::string>& target_pieces,
                             const std::vector<std::vector<float>>& attention);

// The same over words given as spans of the pieces (a target word of no
// pieces gets a row of zeros). check_shape is the caller's: spans must lie
// inside the matrix.
WordAttention merge_attention(std::vector<WordSpan> source, std::vector<WordSpan> target,
                              const std::vector<std::vector<float>>& attention);

// The user's own tokens as words over `pieces` pieces plus "</s>": token k
// covers the next pieces_per_token[k] pieces (encode_tokens' counts).
// Throws std::invalid_argument when the counts exceed `pieces`.
std::vector<WordSpan> token_words(const std::vector<std::string>& tokens, const std::vector<int>& pieces_per_token,
                                  int pieces);

// Hard alignment from soft: every target word is aligned to the source word
// it attends to most. "</s>" is excluded on both sides: its row is not a
// word, and its column is not a place a word can come from, so the argmax is
// taken over real source words only (every real target word gets exactly one
// link when the source has a word; a word of no pieces, such as a user's
// token cropped away, is never linked). Pairs are (source, target), 0-based,
// sorted by source then target.
std::vector<std::pair<int, int>> hard_alignment(const WordAttention& words);

// "0-0 1-2 2-1": Pharaoh format, source index first.
std::string pharaoh(const std::vector<std::pair<int, int>>& links);

// Marian's soft alignment over pieces: one group per target piece (with
// "</s>"), each a comma-separated list over source pieces (with "</s>"),
// groups separated by spaces.
std::string soft_alignment(const std::vector<std::vector<float>>& attention);

// One JSON object per input line (for JSON Lines output):
//   {"id", "source", "source_pieces", "target_pieces", "translation", "score",
//    "normalized_score", "attention", "source_words", "target_words",
//    "word_attention", "alignment"}
// describing the best hypothesis, plus "n_best": [{"translation",
// "target_pieces", "score", "normalized_score", "alignment"}, ...] when the
// result holds more than one. Pieces and matrices include "</s>"; "alignment"
// (Pharaoh, over words) does not. An empty line gives the same keys with empty
// lists and an empty translation.
nlohmann::json alignment_json(int64_t line_index, const TranslationResult& result, const std::string& source_text);

// Sets alignment_json's "source_words", "target_words", "word_attention" and
// "alignment" from `words` (words other than SentencePiece's, such as the
// user's own tokens).
void set_word_fields(nlohmann::json& object, const WordAttention& words);

// Moses n-best: "id ||| hypothesis ||| F0= <score> ||| <normalized score>"
// (id = 0-based input line). With an alignment (Pharaoh string), Marian's
// form: "id ||| hypothesis ||| 0-0 1-1 ||| F0= ... ||| ...".
std::string nbest_line(int64_t line_index, const Hypothesis& hypothesis,
                       const std::optional<std::string>& alignment = std::nullopt);

}  // namespace nmt
