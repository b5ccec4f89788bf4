// A source line as the encoder receives it: SentencePiece ids cropped to the
// model's limit, ending with EOS. Kept apart from the translator so that the
// text side of translation can be tested and fuzzed without a network.
#pragma once
#include <string>
#include <vector>

#include "vocabulary.h"

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

}  // namespace nmt
