// What every document format (gettext catalogues, subtitles, HTML, Markdown)
// asks of translation: running text in, its translation and where each of its
// words went out. The formats know nothing of models; tests give them a fake
// (tests/fake_segment_translator.h), nmt translate the model-backed one.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "align/word_alignment.h"

namespace nmt {

// Bytes [begin, end) of a text.
struct ByteSpan {
    size_t begin = 0;
    size_t end = 0;
    bool operator==(const ByteSpan& other) const { return begin == other.begin && end == other.end; }
};

struct SegmentTranslation {
    std::string text;  // the segment's translation
    // The words of the segment and of its translation, in order, as byte spans
    // of each text, and the hard links between them: (source word, target
    // word) indices, sorted, as word_alignment.h's Links. A word may have no
    // link, or several. Markup and subtitle breaks are carried through these.
    std::vector<ByteSpan> source_words;
    std::vector<ByteSpan> target_words;
    Links links;
};

class SegmentTranslator {
public:
    virtual ~SegmentTranslator() = default;
    // One result per segment, in order. A segment is one piece of running
    // text without line breaks (a paragraph, a message, a subtitle's
    // sentence); it may hold several sentences. An empty or blank segment
    // translates to an empty text with no words. Batching several segments
    // in one call is what makes a document fast: callers collect first.
    virtual std::vector<SegmentTranslation> translate(const std::vector<std::string>& segments) = 0;
};

}  // namespace nmt
