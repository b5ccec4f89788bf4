// A source line as the encoder receives it: SentencePiece ids cropped to the
// model's limit, ending with EOS. Kept apart from the translator so that the
// text side of translation can be tested and fuzzed without a network.
#pragma once
#include <string>
#include <vector>

#include "model/vocabulary.h"

namespace nmt {

struct SourceIds {
    std::vector<int> ids;  // ending with EOS; empty for a line with no pieces
    bool cropped = false;  // the line was longer than the limit and lost its end
};

// At most max_source_pieces ids (EOS included; at least 2). Bytes that could
// never fit are dropped before encoding (a piece covers at most a few dozen
// bytes), at a UTF-8 character boundary, so a multi-megabyte line costs the
// tokenizer no more than a long sentence.
SourceIds encode_source(const Vocabulary& vocab, int max_source_pieces, const std::string& line);

// Text the user has cut into tokens (nmt align --tokenized): each token is
// encoded on its own, so that every piece belongs to exactly one token and
// alignments can be reported over exactly those tokens. pieces_per_token[k]
// counts token k's pieces: 0 for one that normalises to nothing or lies
// beyond the limit. Limit and EOS as encode_source.
SourceIds encode_tokens(const Vocabulary& vocab, int max_pieces, const std::vector<std::string>& tokens,
                        std::vector<int>& pieces_per_token);

// Whitespace-separated tokens (spaces and tabs), empty ones dropped.
std::vector<std::string> split_tokens(const std::string& text);

}  // namespace nmt
