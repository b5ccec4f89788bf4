#include "eval/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "core/error.h"
#include "core/number_text.h"

namespace nmt {

namespace {

// Word n-grams of one order, keyed by the words joined with spaces (words
// never contain whitespace, so the join is unambiguous).
using NgramCounts = std::unordered_map<std::u32string, int64_t>;

struct SegmentNgrams {
    std::vector<NgramCounts> by_order;  // index n-1
    int64_t length = 0;                 // words
};

// sacreBLEU's _preprocess_segment: lowercase, then tokenize the
// right-stripped line.
std::u32string preprocess(const std::string& line, const BleuOptions& options) {
    std::u32string text = utf8_to_u32(line, "BLEU input");
    if (options.lowercase) text = python_lower(text);
    return tokenize(options.tokenizer, python_rstrip(text));
}

SegmentNgrams extract_ngrams(const std::u32string& tokenized, int max_order) {
    std::vector<std::u32string> words = python_split(tokenized);
    SegmentNgrams result;
    result.length = static_cast<int64_t>(words.size());
    result.by_order.resize(max_order);
    for (int n = 1; n <= max_order; ++n) {
        for (size_t i = 0; i + n <= words.size(); ++i) {
            std::u32string key = words[i];
            for (int k = 1; k < n; ++k) key += U' ' + words[i + k];
            ++result.by_order[n - 1][key];
        }
    }
    return result;
}

// Ties go to the shorter reference, as in sacreBLEU's _get_closest_ref_len.
int64_t closest_ref_len(int64_t hyp_len, const std::vector<int64_t>& ref_lens) {
    int64_t best_diff = -1, best_len = -1;
    for (int64_t len : ref_lens) {
        int64_t diff = std::llabs(hyp_len - len);
        if (best_diff == -1 || diff < best_diff) {
            best_diff = diff;
            best_len = len;
        } else if (diff == best_diff && len < best_len) {
            best_len = len;
        }
    }
    return best_len;
}

// sacreBLEU's my_log: log(0) is floored instead of -inf.
double floored_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

double default_smooth_value(BleuSmooth smooth) {
    switch (smooth) {
        case BleuSmooth::floor: return 0.1;
        case BleuSmooth::add_k: return 1.0;
        default: return 0.0;
    }
}

std::string smooth_name(BleuSmooth smooth) {
    switch (smooth) {
        case BleuSmooth::none: return "none";
        case BleuSmooth::floor: return "floor";
        case BleuSmooth::add_k: return "add-k";
        case BleuSmooth::exp: return "exp";
    }
    return "";
}

}  // namespace

void BleuStats::add(const BleuStats& other) {
    sys_len += other.sys_len;
    ref_len += other.ref_len;
    if (correct.size() < other.correct.size()) correct.resize(other.correct.size());
    if (total.size() < other.total.size()) total.resize(other.total.size());
    for (size_t n = 0; n < other.correct.size(); ++n) correct[n] += other.correct[n];
    for (size_t n = 0; n < other.total.size(); ++n) total[n] += other.total[n];
}

BleuStats bleu_segment_stats(const std::string& hypothesis, const std::vector<std::string>& references,
                             const BleuOptions& options) {
    const int max_order = options.max_ngram_order;
    if (max_order < 1) throw Error("BLEU: max n-gram order must be at least 1");

    // Multiple references: each n-gram may match up to its highest count in
    // any one reference.
    std::vector<NgramCounts> ref_ngrams(max_order);
    std::vector<int64_t> ref_lens;
    for (const auto& reference : references) {
        SegmentNgrams ref = extract_ngrams(preprocess(reference, options), max_order);
        ref_lens.push_back(ref.length);
        for (int n = 0; n < max_order; ++n)
            for (const auto& [ngram, count] : ref.by_order[n])
                ref_ngrams[n][ngram] = std::max(ref_ngrams[n][ngram], count);
    }
    if (ref_lens.empty()) ref_lens.push_back(0);

    SegmentNgrams hyp = extract_ngrams(preprocess(hypothesis, options), max_order);
    BleuStats stats;
    stats.sys_len = hyp.length;
    stats.ref_len = closest_ref_len(hyp.length, ref_lens);
    stats.correct.assign(max_order, 0);
    stats.total.assign(max_order, 0);
    for (int n = 0; n < max_order; ++n) {
        for (const auto& [ngram, count] : hyp.by_order[n]) {
            stats.total[n] += count;
            auto found = ref_ngrams[n].find(ngram);
            if (found != ref_ngrams[n].end()) stats.correct[n] += std::min(count, found->second);
        }
    }
    return stats;
}

BleuScore compute_bleu(const BleuStats& stats, const BleuOptions& options) {
    const int max_order = options.max_ngram_order;
    const double smooth_value = options.smooth_value.value_or(default_smooth_value(options.smooth));

    BleuScore result;
    result.sys_len = stats.sys_len;
    result.ref_len = stats.ref_len;
    result.ratio = stats.ref_len ? static_cast<double>(stats.sys_len) / static_cast<double>(stats.ref_len) : 0.0;
    result.counts.assign(max_order, 0.0);
    result.totals.assign(max_order, 0.0);
    for (int n = 0; n < max_order && n < static_cast<int>(stats.correct.size()); ++n) {
        result.counts[n] = static_cast<double>(stats.correct[n]);
        result.totals[n] = static_cast<double>(stats.total[n]);
    }
    result.precisions.assign(max_order, 0.0);

    if (stats.sys_len < stats.ref_len)
        result.bp = stats.sys_len > 0
                        ? std::exp(1.0 - static_cast<double>(stats.ref_len) / static_cast<double>(stats.sys_len))
                        : 0.0;
    else
        result.bp = 1.0;

    // No match at any order: 0, without smoothing inventing one (#141).
    if (std::all_of(result.counts.begin(), result.counts.end(), [](double c) { return c == 0.0; }))
        return result;

    double smooth_mteval = 1.0;
    int eff_order = max_order;
    for (int n = 1; n <= max_order; ++n) {
        double& correct = result.counts[n - 1];
        double& total = result.totals[n - 1];
        if (options.smooth == BleuSmooth::add_k && n > 1) {
            correct += smooth_value;
            total += smooth_value;
        }
        if (total == 0.0) break;
        if (options.effective_order) eff_order = n;
        double& precision = result.precisions[n - 1];
        if (correct == 0.0) {
            if (options.smooth == BleuSmooth::exp) {
                smooth_mteval *= 2;
                precision = 100.0 / (smooth_mteval * total);
            } else if (options.smooth == BleuSmooth::floor) {
                precision = 100.0 * smooth_value / total;
            }
        } else {
            precision = 100.0 * correct / total;
        }
    }

    double log_sum = 0.0;
    for (int n = 0; n < eff_order; ++n) log_sum += floored_log(result.precisions[n]);
    result.score = result.bp * std::exp(log_sum / eff_order);
    return result;
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const BleuOptions& options) {
    BleuStats total;
    total.correct.assign(options.max_ngram_order, 0);
    total.total.assign(options.max_ngram_order, 0);
    for (size_t i = 0; i < hypotheses.size(); ++i)
        total.add(bleu_segment_stats(hypotheses[i], segment_references(references, i), options));
    return compute_bleu(total, options);
}

BleuScore sentence_bleu(const std::string& hypothesis, const std::vector<std::string>& references,
                        const BleuOptions& options) {
    std::vector<std::vector<std::string>> streams;
    for (const auto& reference : references) streams.push_back({reference});
    return compute_bleu(bleu_segment_stats(hypothesis, segment_references(streams, 0), options), options);
}

std::string bleu_signature(const BleuOptions& options, const std::string& nrefs) {
    std::string smooth = smooth_name(options.smooth);
    if (options.smooth == BleuSmooth::floor || options.smooth == BleuSmooth::add_k)
        smooth += "[" + fixed_decimals(options.smooth_value.value_or(default_smooth_value(options.smooth)), 2) + "]";
    return "nrefs:" + nrefs + "|case:" + (options.lowercase ? "lc" : "mixed") +
           "|eff:" + (options.effective_order ? "yes" : "no") +
           "|tok:" + tokenizer_signature(options.tokenizer) + "|smooth:" + smooth +
           "|version:" + kSacrebleuVersion;
}

std::string bleu_verbose(const BleuScore& score) {
    std::string precisions;
    for (size_t n = 0; n < score.precisions.size(); ++n) {
        if (n) precisions += "/";
        precisions += fixed_decimals(score.precisions[n], 1);
    }
    return precisions + " (BP = " + fixed_decimals(score.bp, 3) + " ratio = " + fixed_decimals(score.ratio, 3) +
           " hyp_len = " + std::to_string(score.sys_len) + " ref_len = " + std::to_string(score.ref_len) + ")";
}

}  // namespace nmt
