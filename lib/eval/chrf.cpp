#include "eval/chrf.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "eval/score_tokenizers.h"

namespace nmt {

namespace {

// Character n-grams of one order, as views into the segment's text.
using CharNgrams = std::unordered_map<std::u32string_view, int64_t>;

// sacreBLEU's chrF preprocessing: optional lowercasing, then (unless
// whitespace is kept) every Python whitespace character removed.
std::u32string prepare_chrf_text(const std::string& line, const ChrfOptions& options) {
    std::u32string text = utf8_to_u32(line, "chrF input");
    if (options.lowercase) text = python_lower(text);
    if (options.whitespace) return text;
    std::u32string joined;
    for (const auto& word : python_split(text)) joined += word;
    return joined;
}

std::vector<CharNgrams> extract_char_ngrams(const std::u32string& text, int max_order) {
    std::vector<CharNgrams> by_order(max_order);
    std::u32string_view view(text);
    for (int n = 1; n <= max_order; ++n)
        for (size_t i = 0; i + n <= view.size(); ++i) ++by_order[n - 1][view.substr(i, n)];
    return by_order;
}

ChrfStats match_statistics(const std::vector<CharNgrams>& hyp, const std::vector<CharNgrams>& ref) {
    ChrfStats stats;
    for (size_t n = 0; n < hyp.size(); ++n) {
        int64_t hyp_count = 0, ref_count = 0, matches = 0;
        for (const auto& [ngram, count] : hyp[n]) {
            hyp_count += count;
            auto found = ref[n].find(ngram);
            if (found != ref[n].end()) matches += std::min(count, found->second);
        }
        for (const auto& entry : ref[n]) ref_count += entry.second;
        // sacreBLEU does not count hypothesis n-grams of an order the
        // reference is too short to have.
        stats.push_back(ref[n].empty() ? 0 : hyp_count);
        stats.push_back(ref_count);
        stats.push_back(matches);
    }
    return stats;
}

}  // namespace

ChrfStats chrf_segment_stats(const std::string& hypothesis, const std::vector<std::string>& references,
                             const ChrfOptions& options) {
    if (options.char_order < 1) throw Error("chrF: character n-gram order must be at least 1");
    std::u32string hyp_text = prepare_chrf_text(hypothesis, options);
    std::vector<CharNgrams> hyp = extract_char_ngrams(hyp_text, options.char_order);

    ChrfStats best;
    double best_f = -1.0;
    for (const auto& reference : references) {
        std::u32string ref_text = prepare_chrf_text(reference, options);
        ChrfStats stats = match_statistics(hyp, extract_char_ngrams(ref_text, options.char_order));
        double f = chrf_from_stats(stats, options);
        if (f > best_f) {
            best_f = f;
            best = std::move(stats);
        }
    }
    if (best.empty()) best.assign(3 * options.char_order, 0);
    return best;
}

// Mirrors sacreBLEU's _compute_f_score operation for operation, so that the
// floating-point result is the same.
double chrf_from_stats(const ChrfStats& stats, const ChrfOptions& options) {
    const double eps = 1e-16;
    const double factor = static_cast<double>(options.beta) * options.beta;
    const int order = static_cast<int>(stats.size() / 3);
    double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
    int effective_order = 0;

    for (int i = 0; i < order; ++i) {
        auto n_hyp = static_cast<double>(stats[3 * i]);
        auto n_ref = static_cast<double>(stats[3 * i + 1]);
        auto n_match = static_cast<double>(stats[3 * i + 2]);
        double prec = n_hyp > 0 ? n_match / n_hyp : eps;
        double rec = n_ref > 0 ? n_match / n_ref : eps;
        double denom = factor * prec + rec;
        score += denom > 0 ? (1 + factor) * prec * rec / denom : eps;
        if (n_hyp > 0 && n_ref > 0) {
            avg_prec += prec;
            avg_rec += rec;
            ++effective_order;
        }
    }

    if (options.eps_smoothing) return 100 * score / order;

    if (effective_order == 0) {
        avg_prec = avg_rec = 0.0;
    } else {
        avg_prec /= effective_order;
        avg_rec /= effective_order;
    }
    if (avg_prec + avg_rec == 0.0) return 0.0;
    score = (1 + factor) * avg_prec * avg_rec;
    score /= (factor * avg_prec) + avg_rec;
    return 100 * score;
}

double corpus_chrf(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references, const ChrfOptions& options) {
    ChrfStats total(3 * options.char_order, 0);
    for (size_t i = 0; i < hypotheses.size(); ++i) {
        ChrfStats stats = chrf_segment_stats(hypotheses[i], segment_references(references, i), options);
        for (size_t k = 0; k < total.size(); ++k) total[k] += stats[k];
    }
    return chrf_from_stats(total, options);
}

double sentence_chrf(const std::string& hypothesis, const std::vector<std::string>& references,
                     const ChrfOptions& options) {
    std::vector<std::vector<std::string>> streams;
    for (const auto& reference : references) streams.push_back({reference});
    return chrf_from_stats(chrf_segment_stats(hypothesis, segment_references(streams, 0), options), options);
}

std::string chrf_name(const ChrfOptions& options) { return "chrF" + std::to_string(options.beta); }

std::string chrf_signature(const ChrfOptions& options, const std::string& nrefs) {
    return "nrefs:" + nrefs + "|case:" + (options.lowercase ? "lc" : "mixed") +
           "|eff:" + (options.eps_smoothing ? "no" : "yes") + "|nc:" + std::to_string(options.char_order) +
           "|nw:0|space:" + (options.whitespace ? "yes" : "no") + "|version:" + kSacrebleuVersion;
}

}  // namespace nmt
