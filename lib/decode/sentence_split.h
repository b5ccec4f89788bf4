// Cutting a line of text into its sentences. Our models are trained on single
// sentences, so a paragraph piped through `nmt translate` as one line is
// translated better one sentence at a time.
//
// The rules are few, written for English, French and German, and need no
// language to be named. A sentence ends after `.`, `!`, `?` or `…` (or a run
// of them: `...`, `?!`), with any closing quotes or brackets attached to it,
// when whitespace follows and then an uppercase letter, a digit or an opening
// quote or bracket. A single `.` does not end a sentence
//  - after a known abbreviation (Mr. Dr. etc. vs. No. Jan. … Mme. p. ex. …
//    usw. bzw. Nr. ca. vgl. …; see kAbbreviations in sentence_split.cpp),
//  - after one letter or dotted single letters: initials and short forms
//    (J. R. R. Tolkien, z. B., z.B., e.g., U.S.),
//  - after a number when a German month name follows (am 3. Mai: the dot
//    marks an ordinal). Other German ordinals before a capitalised noun
//    (der 2. Weltkrieg) are still split: telling them from a sentence ending
//    in a number needs more than a rule.
// Dots inside URLs, file names and version numbers (example.com, v1.2) have no
// whitespace after them and never split. French spacing before `!` and `?`
// (`Quoi ? Oui.`) needs nothing special: the `?` still ends the sentence, and
// a closing guillemet after a space (`« Oui. » Il part.`) stays with its
// sentence.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

struct SentenceSpan {
    // The sentence is line.substr(begin, end - begin); it neither starts nor
    // ends with whitespace.
    size_t begin = 0;
    size_t end = 0;
    // The exact text between the previous sentence's end (or the line's
    // start) and begin: the separator to put back when rejoining, or the
    // line's leading whitespace for the first sentence.
    std::string before;
};

// The sentences of `line` in order, never empty ones. A line of whitespace
// only (or nothing) has none. The text after the last sentence is
// line.substr(spans.back().end), so each span's `before`, then its sentence,
// then that trailing text give back `line` byte for byte. Any bytes are
// accepted: invalid UTF-8 counts as ordinary characters that are not letters.
std::vector<SentenceSpan> split_sentences(const std::string& line);

}  // namespace nmt
