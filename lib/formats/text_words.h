// The words of a text as the document formats count them: its runs of
// non-space bytes, where spaces, tabs, line breaks and the no-break spaces
// U+00A0, U+202F and U+2009 separate them, as the SentencePiece models cut
// words. Markup and subtitle breaks are carried through these words' links.
#pragma once
#include <string>
#include <vector>

#include "formats/segment_translator.h"

namespace nmt {

// The words of `text`, in order.
std::vector<ByteSpan> text_words(const std::string& text);

}  // namespace nmt
