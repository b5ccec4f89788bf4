// `nmt translate --glossary FILE`: the file's text parsed, and when it
// parses, its terms found and forced in a sentence and a translation cut
// from the same input (with and without attention). Anything but a glossary
// or an nmt::Error of one line naming the file and a line is a finding, as is
// a forced translation that lost a placeholder of the translation given.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "decode/placeholders.h"
#include "decode/term_forcing.h"
#include "text/glossary.h"

namespace {

// Target word t attends mostly to source word t (or the last one).
nmt::WordAttention diagonal(size_t source_words, size_t target_words) {
    nmt::WordAttention words;
    for (size_t s = 0; s <= source_words; ++s) words.source.push_back({"w", int(s), 1, s == source_words});
    for (size_t t = 0; t <= target_words; ++t) words.target.push_back({"w", int(t), 1, t == target_words});
    for (size_t t = 0; t <= target_words; ++t) {
        std::vector<float> row(source_words + 1, 0.01f);
        row[std::min(t, source_words)] = 0.9f;
        words.weights.push_back(row);
    }
    return words;
}

size_t count_words(const std::string& text) {
    size_t n = 0;
    bool in_word = false;
    for (char c : text) {
        const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
        if (!space && !in_word) ++n;
        in_word = !space;
    }
    return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    nmt::Glossary glossary;
    try {
        glossary = nmt::Glossary::parse(text, "fuzz.tsv");
    } catch (const nmt::Error& e) {
        const std::string message = e.what();
        if (message.rfind("fuzz.tsv:", 0) != 0 || message.find('\n') != std::string::npos) std::abort();
        return 0;
    }
    // The input's own terms make a sentence that holds some: its first and
    // last columns, as source and translation.
    std::string source, translation;
    for (const auto& term : glossary.terms()) {
        source += term.source + " %s ";
        translation += term.target + " %s ";
    }
    if (source.size() > 4096) return 0;
    for (const auto& match : glossary.find(source))
        if (match.begin >= match.end || match.end > source.size() || !match.term) std::abort();
    const size_t kept = nmt::find_placeholders(translation).size();
    const nmt::WordAttention words = diagonal(count_words(source), count_words(translation));
    for (const nmt::WordAttention* attention : {static_cast<const nmt::WordAttention*>(nullptr), &words}) {
        const std::string forced = nmt::force_terms(source, translation, glossary, attention);
        if (nmt::find_placeholders(forced).size() < kept) std::abort();
    }
    return 0;
}
