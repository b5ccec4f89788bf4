#include "text/language_detection.h"

#include <cld2/public/compact_lang_det.h>
#include <cld2/public/encodings.h>

#include <algorithm>
#include <climits>

#include "text/words_to_judge.h"

namespace nmt {

namespace {

struct Cld2Result {
    CLD2::Language language3[3] = {CLD2::UNKNOWN_LANGUAGE, CLD2::UNKNOWN_LANGUAGE, CLD2::UNKNOWN_LANGUAGE};
    int percent3[3] = {0, 0, 0};
    bool reliable = false;
    int valid_prefix_bytes = 0;
    int text_bytes = 0;  // letters judged: 0 for digits, punctuation, nothing
};

Cld2Result run_cld2(std::string_view text, const std::string& hint) {
    Cld2Result r;
    const CLD2::CLDHints hints = {hint.c_str(), "", CLD2::UNKNOWN_ENCODING, CLD2::UNKNOWN_LANGUAGE};
    double normalized_score3[3];
    CLD2::ResultChunkVector* no_chunks = nullptr;
    CLD2::ExtDetectLanguageSummaryCheckUTF8(text.data(), static_cast<int>(text.size()), /*is_plain_text=*/true,
                                            &hints, CLD2::kCLDFlagBestEffort, r.language3, r.percent3,
                                            normalized_score3, no_chunks, &r.text_bytes, &r.reliable,
                                            &r.valid_prefix_bytes);
    return r;
}

}  // namespace

LanguageGuess detect_language(std::string_view text, const std::vector<std::string>& candidates) {
    LanguageGuess guess;
    if (candidates.empty()) return guess;
    guess.language = candidates.front();
    // CLD2 takes an int length; a document past 2 GB is judged on its start.
    const std::string words = words_to_judge(text.substr(0, std::min<size_t>(text.size(), INT_MAX)));
    text = words;
    std::string hint;
    for (const std::string& c : candidates) hint += (hint.empty() ? "" : ",") + c;

    Cld2Result r = run_cld2(text, hint);
    if (r.valid_prefix_bytes < static_cast<int>(text.size())) r = run_cld2(text.substr(0, r.valid_prefix_bytes), hint);
    guess.has_words = r.text_bytes > 0;
    bool first = true;
    for (int i = 0; i < 3; ++i) {
        if (r.language3[i] == CLD2::UNKNOWN_LANGUAGE) continue;
        const std::string code = CLD2::LanguageCode(r.language3[i]);
        if (std::find(candidates.begin(), candidates.end(), code) != candidates.end()) {
            guess.language = code;
            guess.confidence = r.percent3[i] / 100.0;
            // CLD2's reliability speaks of its overall winner: it says
            // nothing of a runner-up that only the candidates made ours.
            guess.reliable = first && r.reliable;
            return guess;
        }
        first = false;
    }
    return guess;
}

bool detectable_language(const std::string& code) {
    if (code.empty()) return false;
    for (int i = 0; i < CLD2::NUM_LANGUAGES; ++i) {
        const auto language = static_cast<CLD2::Language>(i);
        if (language != CLD2::UNKNOWN_LANGUAGE && code == CLD2::LanguageCode(language)) return true;
    }
    return false;
}

}  // namespace nmt
