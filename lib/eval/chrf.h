// chrF (Popović, 2015) computed exactly as sacreBLEU 2.x computes it:
// character n-grams of orders 1..6 over Unicode characters with whitespace
// removed, precision and recall averaged over the orders both sides have
// ("effective order"; sacreBLEU's default), then F-beta with beta 2.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

struct ChrfOptions {
    int char_order = 6;
    int beta = 2;
    bool lowercase = false;
    // Keep whitespace inside character n-grams (sacreBLEU --chrf-whitespace).
    bool whitespace = false;
    // chrF++.py/NLTK/Moses-style epsilon smoothing that averages F over all
    // orders, instead of the effective-order averaging (eff:no in the signature).
    bool eps_smoothing = false;
};

// [hyp n-grams, ref n-grams, matches] for each order, flattened.
using ChrfStats = std::vector<int64_t>;

// With several references, the statistics of the best-scoring one.
ChrfStats chrf_segment_stats(const std::string& hypothesis, const std::vector<std::string>& references,
                             const ChrfOptions& options);
double chrf_from_stats(const ChrfStats& stats, const ChrfOptions& options);  // 0..100

// references[k] is the k-th reference stream, parallel to hypotheses.
double corpus_chrf(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references, const ChrfOptions& options);
double sentence_chrf(const std::string& hypothesis, const std::vector<std::string>& references,
                     const ChrfOptions& options);

// "chrF2"
std::string chrf_name(const ChrfOptions& options);
// "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.4.0"
std::string chrf_signature(const ChrfOptions& options, const std::string& nrefs);

}  // namespace nmt
