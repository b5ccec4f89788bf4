// SubRip (.srt) subtitles translated cue by cue, numbers and timings kept
// byte for byte.
//
//  - A cue's lines are translated as one sentence and the translation is
//    wrapped again into as many lines (fewer when it has fewer words), of
//    balanced length. A dialogue cue (every line starting with '-') is
//    translated line by line instead: each line is another speaker.
//  - A cue that ends without sentence-final punctuation (. ! ? …, before any
//    closing quote, bracket or tag) runs on into the next one, unless that
//    one starts with a capital letter (a new sentence; "I" excepted): up to
//    kMaxJoinedCues such cues are translated together as one segment and
//    the translation is cut back between them where the fewest alignment
//    links cross the cut (the target word nearest the source's cue break
//    in the alignment), each cue keeping at least one word when there are
//    enough.
//  - A cue with no letters outside placeholders (a URL, a number) is kept.
//  - A block that is not a cue (no number line, or no "00:00:01,000 -->
//    00:00:02,000" line after it) is copied through as it is, with a
//    warning naming its line.
//  - A byte-order mark, CRLF line endings and the blank lines between cues
//    come out as they went in.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "formats/document_format.h"

namespace nmt {

// One block of an .srt file: either text copied as it is (blank lines, a
// block that does not parse) or a cue.
struct SrtBlock {
    bool cue = false;
    size_t line = 0;        // 1-based line of the file where the block starts
    std::string verbatim;   // not a cue: its bytes, line endings included
    std::string head;       // a cue: its number and timing lines, line endings included
    std::vector<std::string> lines;    // a cue's text lines, without line endings
    std::vector<std::string> endings;  // each text line's ending: "\n", "\r\n", or "" at the end of the file
};

// The blocks of `text`, in order; any bytes are accepted. Writing them back
// (write_srt) gives `text` byte for byte.
std::vector<SrtBlock> read_srt(const std::string& text);
std::string write_srt(const std::vector<SrtBlock>& blocks);

constexpr size_t kMaxJoinedCues = 4;

std::string translate_srt(const std::string& text, const std::string& name, SegmentTranslator& translator,
                          const DocumentOptions& options);

}  // namespace nmt
