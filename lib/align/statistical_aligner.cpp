#include "align/statistical_aligner.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "core/error.h"

namespace nmt {

namespace {

double feature(int i, int j, int m, int n) {  // h: i of m target words, j of n source words, 1-based
    return -std::fabs(static_cast<double>(i) / m - static_cast<double>(j) / n);
}

// The diagonal prior over source positions 1..n for target position i of m:
// weights exp(λ·h) / Z, and the mean and variance of h under them.
void diagonal_prior(int i, int m, int n, double tension, std::vector<double>& prior, double* mean = nullptr,
                    double* variance = nullptr) {
    prior.resize(n + 1);
    double z = 0, first = 0, second = 0;
    for (int j = 1; j <= n; ++j) {
        const double h = feature(i, j, m, n);
        prior[j] = std::exp(tension * h);
        z += prior[j];
        first += prior[j] * h;
        second += prior[j] * h * h;
    }
    for (int j = 1; j <= n; ++j) prior[j] /= z;
    if (mean) *mean = first / z;
    if (variance) *variance = std::max(0.0, second / z - (first / z) * (first / z));
}

// (i, m, n) as one key: sentence lengths are bounded by the line limit.
uint64_t position_key(int i, int m, int n) {
    return (static_cast<uint64_t>(i) << 42) | (static_cast<uint64_t>(m) << 21) | static_cast<uint64_t>(n);
}

// ψ(x), the digamma function: recurrence up to x ≥ 6, then the asymptotic series.
double digamma(double x) {
    double result = 0;
    while (x < 6) {
        result -= 1 / x;
        x += 1;
    }
    const double f = 1 / (x * x);
    return result + std::log(x) - 0.5 / x -
           f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}

std::vector<std::string> words_of(const std::string& text) {
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string word; in >> word;) words.push_back(word);
    return words;
}

}  // namespace

StatisticalAligner::StatisticalAligner(StatisticalAlignerOptions options)
    : options_(options), tension_(options.tension) {
    if (!(options_.null_probability > 0 && options_.null_probability < 1))
        throw Error("the NULL probability must lie between 0 and 1");
    if (options_.iterations < 1) throw Error("the aligner needs at least one EM iteration");
}

namespace {

// A word's id, added to the vocabulary when new; ids count from first_id.
std::vector<int> ids_adding(std::unordered_map<std::string, int>& vocab, const std::string& text, int first_id) {
    std::vector<int> ids;
    for (const auto& word : words_of(text))
        ids.push_back(vocab.emplace(word, static_cast<int>(vocab.size()) + first_id).first->second);
    return ids;
}

// Words never seen in training get -1, past the tables: t falls back to its floor.
std::vector<int> ids_known(const std::unordered_map<std::string, int>& vocab, const std::string& text) {
    std::vector<int> ids;
    for (const auto& word : words_of(text)) {
        auto it = vocab.find(word);
        ids.push_back(it == vocab.end() ? -1 : it->second);
    }
    return ids;
}

}  // namespace

StatisticalAligner::Sentence StatisticalAligner::source_ids(const std::string& text) {
    return ids_adding(source_vocab_, text, 1);  // id 0 is NULL
}

StatisticalAligner::Sentence StatisticalAligner::target_ids(const std::string& text) {
    return ids_adding(target_vocab_, text, 0);
}

StatisticalAligner::Sentence StatisticalAligner::known_source_ids(const std::string& text) const {
    return ids_known(source_vocab_, text);
}

StatisticalAligner::Sentence StatisticalAligner::known_target_ids(const std::string& text) const {
    return ids_known(target_vocab_, text);
}

double StatisticalAligner::translation(int source, int target) const {
    constexpr double kFloor = 1e-9;  // an unseen pair, or a word never seen in training
    if (source < 0 || target < 0 || source >= static_cast<int>(table_.size())) return kFloor;
    const auto& row = table_[source];
    auto it = row.find(target);
    return it == row.end() ? kFloor : std::max(it->second, kFloor);
}

std::unordered_map<std::string, std::vector<std::pair<std::string, double>>> StatisticalAligner::translations(
    size_t k) const {
    std::vector<const std::string*> target_words(target_vocab_.size());
    for (const auto& [word, id] : target_vocab_) target_words[id] = &word;
    std::unordered_map<std::string, std::vector<std::pair<std::string, double>>> out;
    for (const auto& [word, id] : source_vocab_) {
        if (id >= static_cast<int>(table_.size())) continue;
        std::vector<std::pair<int, double>> row(table_[id].begin(), table_[id].end());
        const size_t kept = std::min(k, row.size());
        std::partial_sort(row.begin(), row.begin() + kept, row.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second > b.second : a.first < b.first;
        });
        auto& best = out[word];
        for (size_t i = 0; i < kept; ++i) best.emplace_back(*target_words[row[i].first], row[i].second);
    }
    return out;
}

PairsInMemory::PairsInMemory(const std::vector<std::string>& sources, const std::vector<std::string>& targets)
    : sources_(sources), targets_(targets) {
    if (sources.size() != targets.size()) throw Error("statistical aligner: as many targets as sources are needed");
}

bool PairsInMemory::next(std::string& source, std::string& target) {
    if (next_ >= sources_.size()) return false;
    source = sources_[next_];
    target = targets_[next_];
    ++next_;
    return true;
}

namespace {

// The same pairs with the sides exchanged: the backward direction.
class FlippedPairs : public PairPasses {
public:
    explicit FlippedPairs(PairPasses& pairs) : pairs_(pairs) {}
    void rewind() override { pairs_.rewind(); }
    bool next(std::string& source, std::string& target) override { return pairs_.next(target, source); }

private:
    PairPasses& pairs_;
};

}  // namespace

void StatisticalAligner::train(const std::vector<std::string>& sources, const std::vector<std::string>& targets) {
    PairsInMemory pairs(sources, targets);
    train(pairs);
}

void StatisticalAligner::train(PairPasses& pairs, const AlignerProgressSink& progress) {
    int64_t pair_count = 0, target_words = 0;
    start_uniform(pairs, pair_count, target_words);
    for (int iteration = 0; iteration < options_.iterations; ++iteration) {
        const Expectations expected = expectations(pairs);
        log_likelihood_ = expected.log_likelihood;
        update_translations(expected);
        if (options_.optimize_tension && expected.aligned_mass > 0) update_tension(expected);
        if (progress)
            progress({iteration + 1, options_.iterations, pair_count, target_words, log_likelihood_, tension_});
    }
}

// First pass: the vocabularies, and a uniform start over the pairs of words
// that occur together (every target word equally likely from every source
// word it meets); the count of target words is known only at the end, so
// entries are set to 1 and scaled after.
void StatisticalAligner::start_uniform(PairPasses& pairs, int64_t& pair_count, int64_t& target_words) {
    source_vocab_.clear();
    target_vocab_.clear();
    table_.assign(1, {});
    pairs.rewind();
    for (std::string source, target; pairs.next(source, target);) {
        const Sentence f = source_ids(source), e = target_ids(target);
        if (table_.size() < source_vocab_.size() + 1) table_.resize(source_vocab_.size() + 1);
        for (int t : e) {
            table_[0][t] = 1;
            for (int s : f) table_[s][t] = 1;
        }
        ++pair_count;
        target_words += static_cast<int64_t>(e.size());
    }
    const double uniform = 1.0 / std::max<size_t>(1, target_vocab_.size());
    for (auto& row : table_)
        for (auto& entry : row) entry.second = uniform;
}

// The E step over every pair: each target word's posterior over NULL and the
// source positions, summed into expected link counts; and, for λ, the
// posterior-weighted feature h and the aligned mass at each (i, m, n), whose
// prior expectation of h depends on λ.
StatisticalAligner::Expectations StatisticalAligner::expectations(PairPasses& pairs) const {
    const double p0 = options_.null_probability;
    Expectations out;
    out.counts.resize(table_.size());
    std::vector<double> prior, posterior;
    pairs.rewind();
    for (std::string source, target; pairs.next(source, target);) {
        const Sentence f = known_source_ids(source), e = known_target_ids(target);
        const int n = static_cast<int>(f.size()), m = static_cast<int>(e.size());
        if (n == 0 || m == 0) continue;
        for (int i = 1; i <= m; ++i) {
            const int target_word = e[i - 1];
            if (target_word < 0) continue;  // unseen in the first pass: the file changed under us
            diagonal_prior(i, m, n, tension_, prior);
            posterior.assign(n + 1, 0.0);
            posterior[0] = p0 * translation(0, target_word);
            double total = posterior[0];
            for (int j = 1; j <= n; ++j) {
                posterior[j] = (1 - p0) * prior[j] * translation(f[j - 1], target_word);
                total += posterior[j];
            }
            out.log_likelihood += std::log(total);
            out.counts[0][target_word] += posterior[0] / total;
            double word_mass = 0, word_feature = 0;
            for (int j = 1; j <= n; ++j) {
                const double p = posterior[j] / total;
                if (f[j - 1] >= 0) out.counts[f[j - 1]][target_word] += p;
                word_mass += p;
                word_feature += p * feature(i, j, m, n);
            }
            out.posterior_feature += word_feature;
            out.aligned_mass += word_mass;
            out.mass_at[position_key(i, m, n)] += word_mass;
        }
    }
    return out;
}

// M step for t: the mean-field update of a Dirichlet(α) prior, or relative
// frequencies when α = 0.
void StatisticalAligner::update_translations(const Expectations& expected) {
    for (size_t source = 0; source < expected.counts.size(); ++source) {
        const auto& row = expected.counts[source];
        if (row.empty()) continue;
        double sum = 0;
        for (const auto& [target, c] : row) sum += c;
        auto& out = table_[source];
        out.clear();
        const double alpha = options_.alpha;
        const double normaliser = alpha > 0 ? std::exp(digamma(sum + alpha * static_cast<double>(row.size()))) : sum;
        for (const auto& [target, c] : row) out[target] = alpha > 0 ? std::exp(digamma(c + alpha)) / normaliser : c / sum;
    }
}

// λ maximises Σ posterior · (λ·h − log Z(λ)) with the posteriors fixed: its
// derivative is Σ posterior·h − Σ mass · E_prior[h], its second derivative
// −Σ mass · Var_prior[h]. A few Newton steps.
void StatisticalAligner::update_tension(const Expectations& expected) {
    std::vector<double> prior;
    for (int step = 0; step < 8; ++step) {
        double gradient = expected.posterior_feature, curvature = 0;
        for (const auto& [key, mass] : expected.mass_at) {
            const int i = static_cast<int>(key >> 42), m = static_cast<int>((key >> 21) & 0x1FFFFF),
                      n = static_cast<int>(key & 0x1FFFFF);
            double mean = 0, variance = 0;
            diagonal_prior(i, m, n, tension_, prior, &mean, &variance);
            gradient -= mass * mean;
            curvature += mass * variance;
        }
        if (curvature <= 0) break;
        tension_ = std::clamp(tension_ + gradient / curvature, 0.0, 50.0);
    }
}

Links StatisticalAligner::align(const std::string& source, const std::string& target) const {
    const Sentence f = known_source_ids(source), e = known_target_ids(target);
    const int n = static_cast<int>(f.size()), m = static_cast<int>(e.size());
    Links links;
    if (n == 0) return links;
    std::vector<double> prior;
    const double p0 = options_.null_probability;
    for (int i = 1; i <= m; ++i) {
        diagonal_prior(i, m, n, tension_, prior);
        int best = 0;
        double best_p = p0 * translation(0, e[i - 1]);
        for (int j = 1; j <= n; ++j) {
            const double p = (1 - p0) * prior[j] * translation(f[j - 1], e[i - 1]);
            if (p > best_p) {
                best_p = p;
                best = j;
            }
        }
        if (best > 0) links.emplace_back(best - 1, i - 1);
    }
    std::sort(links.begin(), links.end());
    return links;
}

void align_statistically(PairPasses& pairs, Symmetrization method, const std::function<void(const Links&)>& write,
                         const StatisticalAlignerOptions& options,
                         const std::function<void(bool backward, const AlignerProgress&)>& progress) {
    StatisticalAligner forward(options), backward(options);
    FlippedPairs flipped(pairs);
    forward.train(pairs, [&](const AlignerProgress& p) {
        if (progress) progress(false, p);
    });
    backward.train(flipped, [&](const AlignerProgress& p) {
        if (progress) progress(true, p);
    });
    pairs.rewind();
    for (std::string source, target; pairs.next(source, target);) {
        Links turned;
        for (const auto& [t, s] : backward.align(target, source)) turned.emplace_back(s, t);
        write(symmetrize(forward.align(source, target), turned, method));
    }
}

std::vector<Links> align_statistically(const std::vector<std::string>& sources,
                                       const std::vector<std::string>& targets, Symmetrization method,
                                       const StatisticalAlignerOptions& options) {
    PairsInMemory pairs(sources, targets);
    std::vector<Links> out;
    out.reserve(sources.size());
    align_statistically(pairs, method, [&](const Links& links) { out.push_back(links); }, options);
    return out;
}

}  // namespace nmt
