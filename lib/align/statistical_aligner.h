// A statistical word aligner that needs no neural model: fast_align's
// reparameterisation of IBM Model 2 (Dyer, Chahuneau & Smith, NAACL 2013),
// trained by EM on the sentence pairs themselves (plus any more given).
//
//   p(a_i = 0)            = p0                              (NULL: unaligned)
//   p(a_i = j | i, m, n)  = (1 − p0) · exp(λ·h(i, j, m, n)) / Z(i, m, n)
//   h(i, j, m, n)         = −| i/m − j/n |                   (target i of m, source j of n, 1-based)
//   p(e_i | a_i = j)      = t(e_i | f_j)
//
// t is re-estimated each iteration from the expected counts, with the mean
// field (variational Bayes) update fast_align's -v uses, which keeps rare
// source words from collecting every target word; λ, the pull towards the
// diagonal, is re-estimated by gradient steps on the expected log-likelihood
// (fast_align's -o). Links are each target word's most probable source word
// (none when NULL is more probable).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "align/word_alignment.h"

namespace nmt {

struct StatisticalAlignerOptions {
    int iterations = 5;
    double null_probability = 0.08;  // p0
    double tension = 4.0;            // λ's starting value
    bool optimize_tension = true;
    double alpha = 0.01;  // the Dirichlet prior on t (variational Bayes); 0 = plain maximum likelihood
};

// Sentence pairs read from the first again for every pass: EM reads the
// corpus once per iteration instead of keeping it, so that memory holds the
// probability tables, which grow with the vocabularies, and not the corpus.
class PairPasses {
public:
    virtual ~PairPasses() = default;
    virtual void rewind() = 0;  // the next pair is the first again
    virtual bool next(std::string& source, std::string& target) = 0;
};

// Pairs held by the caller.
class PairsInMemory : public PairPasses {
public:
    PairsInMemory(const std::vector<std::string>& sources, const std::vector<std::string>& targets);
    void rewind() override { next_ = 0; }
    bool next(std::string& source, std::string& target) override;

private:
    const std::vector<std::string>& sources_;
    const std::vector<std::string>& targets_;
    size_t next_ = 0;
};

// After each EM iteration: which, and how well the model now explains the pairs.
struct AlignerProgress {
    int iteration = 0, iterations = 0;  // 1-based
    int64_t pairs = 0, target_words = 0;
    double log_likelihood = 0;  // of the whole corpus, at this iteration's E step
    double tension = 0;         // λ after this iteration
};
using AlignerProgressSink = std::function<void(const AlignerProgress&)>;

class StatisticalAligner {
public:
    explicit StatisticalAligner(StatisticalAlignerOptions options = {});

    // Whitespace-separated words, one sentence pair per element; the corpus
    // is read options.iterations + 1 times.
    void train(PairPasses& pairs, const AlignerProgressSink& progress = {});
    void train(const std::vector<std::string>& sources, const std::vector<std::string>& targets);
    Links align(const std::string& source, const std::string& target) const;

    // For every source word seen in training, its `k` most probable
    // translations, t(e | f) best first (ties by first seen): what a lexical
    // shortlist keeps (model/shortlist.h).
    std::unordered_map<std::string, std::vector<std::pair<std::string, double>>> translations(size_t k) const;
    double tension() const { return tension_; }
    double log_likelihood() const { return log_likelihood_; }  // of the training pairs, at the last E step

private:
    using Sentence = std::vector<int>;
    Sentence source_ids(const std::string& text);  // adding new words to the vocabulary
    Sentence target_ids(const std::string& text);
    Sentence known_source_ids(const std::string& text) const;
    Sentence known_target_ids(const std::string& text) const;
    double translation(int source, int target) const;  // t(e | f), f = 0 for NULL

    // One pass's expectations under the current model (the E step).
    struct Expectations {
        std::vector<std::unordered_map<int, double>> counts;  // per source word: expected links to each target word
        double log_likelihood = 0;
        double posterior_feature = 0;  // Σ posterior·h over aligned links
        double aligned_mass = 0;
        std::unordered_map<uint64_t, double> mass_at;  // aligned mass at each (i, m, n)
    };
    void start_uniform(PairPasses& pairs, int64_t& pair_count, int64_t& target_words);
    Expectations expectations(PairPasses& pairs) const;
    void update_translations(const Expectations& expected);
    void update_tension(const Expectations& expected);

    StatisticalAlignerOptions options_;
    std::unordered_map<std::string, int> source_vocab_, target_vocab_;  // source id 0 is NULL
    std::vector<std::unordered_map<int, double>> table_;                // per source word: t(e | f)
    double tension_;
    double log_likelihood_ = 0;
};

// Both directions trained on the pairs (source→target, and target→source
// with its links turned round), then symmetrised: `write` receives one
// alignment per pair, in order, in a last pass. `progress` hears each
// direction's iterations (forward first).
void align_statistically(PairPasses& pairs, Symmetrization method, const std::function<void(const Links&)>& write,
                         const StatisticalAlignerOptions& options = {},
                         const std::function<void(bool backward, const AlignerProgress&)>& progress = {});
std::vector<Links> align_statistically(const std::vector<std::string>& sources,
                                       const std::vector<std::string>& targets, Symmetrization method,
                                       const StatisticalAlignerOptions& options = {});

}  // namespace nmt
