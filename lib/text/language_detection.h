// Which language a text is in, among the languages the caller can translate
// (those of the installed models): Google's Compact Language Detector 2
// (Debian's libcld2), a naive Bayes over character quadgrams trained on far
// more text in 80+ languages than this project could collect for a table of
// its own.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace nmt {

struct LanguageGuess {
    std::string language;     // one of the candidates (ISO 639-1, "en"); empty when there were none
    double confidence = 0.0;  // 0..1: the share of the text CLD2 put in that language
    bool reliable = false;    // CLD2 found it clearly ahead of the next language, among the candidates
    // The text had letters to judge. With confidence 0 it then reads as
    // none of the candidates (CLD2's three best are other languages).
    bool has_words = false;
};

// The candidate `text` is most likely written in. CLD2 is told the candidates
// are likely (its content-language hint) and asked for its best effort, so
// that even a three-word line gets an answer; of its three best languages the
// first that is a candidate wins. When none of them is (digits only, a name,
// an empty line), the first candidate comes back with confidence 0 and
// reliable false. Invalid UTF-8 is judged on its valid part. Only the words
// are judged: tags, placeholders, URLs and accelerator marks are left out
// first (text/words_to_judge.h).
LanguageGuess detect_language(std::string_view text, const std::vector<std::string>& candidates);

// Whether CLD2 knows `code` (an ISO 639-1 code such as "fr"): a candidate it
// does not know can never be detected.
bool detectable_language(const std::string& code);

}  // namespace nmt
