// What translating one sentence produces. Plain data: the output printers
// (text, n-best, JSON Lines, SVG) read it and know nothing of the model.
#pragma once
#include <string>
#include <vector>

namespace nmt {

// The end-of-sentence piece as it appears in token lists and alignment
// matrices. Both sides end with it: the source because the encoder reads an
// explicit end marker, the target because producing it is a decision the
// model makes (and attends for) like any other.
inline const char* const kEndToken = "</s>";

struct Hypothesis {
    std::vector<int> target_ids;             // without the final EOS
    std::vector<std::string> target_pieces;  // SentencePiece pieces, with "</s>" last
    std::string translation;                 // detokenised text
    float score = 0.0f;       // sum of log-probabilities, EOS included
    float normalized_score = 0.0f;  // the score the beam ranked by (length penalty applied)
    // attention[t][j]: weight of source position j (pieces then "</s>") when
    // producing target piece t (pieces then "</s>"). Each row sums to 1.
    std::vector<std::vector<float>> attention;
    // log p of each target piece, then of "</s>": filled by forced decoding
    // (lib/decode/forced_decoding.h), empty from search.
    std::vector<float> token_scores;
};

struct TranslationResult {
    std::vector<std::string> source_pieces;  // with "</s>" last; empty for an empty line
    std::vector<Hypothesis> hypotheses;      // best first; one unless n-best was asked
};

}  // namespace nmt
