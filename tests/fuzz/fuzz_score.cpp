// `nmt score`: a hypothesis and a reference line (the input split at its
// first newline) through each BLEU tokenizer and chrF, as sentence scores.
// Invalid UTF-8 must be an nmt::Error, every score a number from 0 to 100.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "eval/bleu.h"
#include "eval/chrf.h"
#include "core/error.h"
#include "eval/score_tokenizers.h"

namespace {

void check_score(double score) {
    if (!(score >= 0 && score <= 100.0 + 1e-9)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t newline = input.find('\n');
    const std::string hypothesis = input.substr(0, newline);
    const std::string reference = newline == std::string::npos ? std::string() : input.substr(newline + 1);
    try {
        for (nmt::BleuTokenizer tokenizer : {nmt::BleuTokenizer::none, nmt::BleuTokenizer::v13a, nmt::BleuTokenizer::intl})
            for (bool lowercase : {false, true}) {
                nmt::BleuOptions options;
                options.tokenizer = tokenizer;
                options.lowercase = lowercase;
                options.effective_order = true;
                check_score(nmt::sentence_bleu(hypothesis, {reference}, options).score);
            }
        for (bool whitespace : {false, true}) {
            nmt::ChrfOptions options;
            options.whitespace = whitespace;
            check_score(nmt::sentence_chrf(hypothesis, {reference}, options));
        }
    } catch (const nmt::Error&) {
    }
    return 0;
}
