// BLEU (Papineni et al., 2002) computed exactly as sacreBLEU 2.x computes it:
// same preprocessing, n-gram statistics, smoothing, effective order and
// brevity penalty, so that a score here can be compared with a published one.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "eval/score_tokenizers.h"

namespace nmt {

// sacreBLEU's smoothing methods (Chen & Cherry, 2014): exp is method 3 (the
// mteval-v13a.pl default), floor is method 1, add-k is method 2.
enum class BleuSmooth { none, floor, add_k, exp };

struct BleuOptions {
    bool lowercase = false;
    BleuTokenizer tokenizer = BleuTokenizer::v13a;
    BleuSmooth smooth = BleuSmooth::exp;
    // Unset means sacreBLEU's default for the method (floor 0.1, add-k 1).
    std::optional<double> smooth_value;
    int max_ngram_order = 4;
    // Stop at the highest n-gram order the hypothesis has; sacreBLEU turns
    // this on for sentence-level BLEU.
    bool effective_order = false;
};

// Sufficient statistics of one segment or, summed, of a corpus.
struct BleuStats {
    int64_t sys_len = 0;
    int64_t ref_len = 0;
    std::vector<int64_t> correct;  // matched n-grams per order
    std::vector<int64_t> total;    // hypothesis n-grams per order

    void add(const BleuStats& other);
};

struct BleuScore {
    double score = 0;  // 0..100
    std::vector<double> counts;  // after add-k smoothing, as sacreBLEU reports them
    std::vector<double> totals;
    std::vector<double> precisions;  // 0..100 per order
    double bp = 0;  // brevity penalty
    int64_t sys_len = 0;
    int64_t ref_len = 0;
    double ratio = 0;  // sys_len / ref_len, 0 without reference words
};

// One hypothesis against its references (several allowed; empty ones are
// dropped as sacreBLEU drops them, and if all are empty the segment counts
// against an empty reference instead of aborting as sacreBLEU would).
BleuStats bleu_segment_stats(const std::string& hypothesis, const std::vector<std::string>& references,
                             const BleuOptions& options);

BleuScore compute_bleu(const BleuStats& stats, const BleuOptions& options);

// references[k] is the k-th reference stream, parallel to hypotheses.
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const BleuOptions& options);
BleuScore sentence_bleu(const std::string& hypothesis, const std::vector<std::string>& references,
                        const BleuOptions& options);

// "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.4.0"; nrefs is a
// number or "var".
std::string bleu_signature(const BleuOptions& options, const std::string& nrefs);
// "54.4/26.6/14.9/8.7 (BP = 1.000 ratio = 1.026 hyp_len = 62880 ref_len = 61287)"
std::string bleu_verbose(const BleuScore& score);

}  // namespace nmt
