#include "decode/beam_search.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/parallel.h"

namespace nmt {

float length_penalty(int length, float alpha) {
    return alpha == 0.0f ? 1.0f : std::pow((5.0f + static_cast<float>(length)) / 6.0f, alpha);
}

namespace {

// The search tree: every surviving proposal is a node pointing at its parent,
// so a step costs O(beam) bookkeeping, not a copy of every history.
struct Node {
    int parent;
    int token;
    float score;
    int64_t attention_offset;
    int length;  // tokens so far, this one included
};

struct Candidate {
    float score;
    int row;
    int token;
};

// Higher score first; ties broken by row then token so that results never
// depend on anything but the scores themselves.
bool better(const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.row != b.row) return a.row < b.row;
    return a.token < b.token;
}

// The best `width` proposals over rows [begin, end) of log_probs, whose
// column v is token ids[v] (v itself when ids is empty). Nearly all of the
// rows × V proposals lose to the current worst, so that test comes first and
// costs one comparison.
void best_candidates(const Tensor& log_probs, const std::vector<int>& ids, const std::vector<float>& row_scores,
                     int begin, int end, int width, std::vector<Candidate>& best) {
    best.clear();
    const int64_t V = log_probs.cols();
    float threshold = -INFINITY;
    for (int r = begin; r < end; ++r) {
        const float* lp = log_probs.row(r);
        const float base = row_scores[r];
        for (int64_t v = 0; v < V; ++v) {
            const float score = base + lp[v];
            if (score < threshold) continue;
            const Candidate c{score, r, ids.empty() ? static_cast<int>(v) : ids[v]};
            if (static_cast<int>(best.size()) == width && !better(c, best.back())) continue;
            best.insert(std::upper_bound(best.begin(), best.end(), c, better), c);
            if (static_cast<int>(best.size()) > width) best.pop_back();
            if (static_cast<int>(best.size()) == width) threshold = best.back().score;
        }
    }
}

struct SentenceSearch {
    std::vector<int> open;       // node ids, in row order
    std::vector<int> open_rows;  // for each open node, the row of this step it extends
    std::vector<std::pair<int, bool>> finished;  // node id, ended with EOS
    int64_t source_length = 0;
    int max_length = 0;
    bool done = false;
};

}  // namespace

std::vector<std::vector<SearchHypothesis>> beam_search(StepModel& model, const std::vector<int64_t>& source_lengths,
                                                       int bos, int eos, const SearchOptions& options) {
    if (options.beam_size < 1) throw Error("beam size must be at least 1");
    const int K = options.beam_size;
    const int n_best = std::max(1, std::min(options.n_best, K));
    const int N = static_cast<int>(source_lengths.size());
    std::vector<Node> nodes;
    std::vector<float> attention_pool;
    std::vector<SentenceSearch> sentences(N);
    std::vector<int> parents, tokens, row_node;
    std::vector<float> row_scores;
    for (int s = 0; s < N; ++s) {
        auto& S = sentences[s];
        S.source_length = source_lengths[s];
        // In double and clamped before the cast: a huge or NaN factor must not overflow the int.
        const double limit = std::ceil(double(options.max_length_factor) * source_lengths[s]) + options.max_length_extra;
        S.max_length = limit >= 1 ? static_cast<int>(std::min(limit, 100000.0)) : 1;
        nodes.push_back({-1, bos, 0.0f, -1, 0});
        S.open.push_back(static_cast<int>(nodes.size()) - 1);
        parents.push_back(s);
        tokens.push_back(bos);
        row_node.push_back(S.open.back());
        row_scores.push_back(0.0f);
    }
    Tensor log_probs, attention;
    std::vector<std::vector<Candidate>> best_per_sentence;
    while (!parents.empty()) {
        model.step(parents, tokens, log_probs, attention);
        std::vector<int> next_parents, next_tokens, next_row_node;
        std::vector<float> next_scores;
        // Each open sentence picks its proposals independently: in parallel.
        std::vector<int> open_sentences, first_row;
        int row = 0;
        for (int s = 0; s < N; ++s)
            if (!sentences[s].done) {
                open_sentences.push_back(s);
                first_row.push_back(row);
                row += static_cast<int>(sentences[s].open.size());
            }
        best_per_sentence.resize(open_sentences.size());
#pragma omp parallel for schedule(dynamic) if (worth_threads(log_probs.size()))
        for (size_t i = 0; i < open_sentences.size(); ++i) {
            const auto& S = sentences[open_sentences[i]];
            best_candidates(log_probs, model.output_ids(), row_scores, first_row[i], first_row[i] + static_cast<int>(S.open.size()),
                            K - static_cast<int>(S.finished.size()), best_per_sentence[i]);
        }
        for (size_t i = 0; i < open_sentences.size(); ++i) {
            auto& S = sentences[open_sentences[i]];
            const auto& best = best_per_sentence[i];
            S.open.clear();
            S.open_rows.clear();
            for (const Candidate& c : best) {
                const Node& parent = nodes[row_node[c.row]];
                const int64_t offset = attention_pool.size();
                const float* a = attention.row(c.row);
                attention_pool.insert(attention_pool.end(), a, a + S.source_length);
                nodes.push_back({row_node[c.row], c.token, c.score, offset, parent.length + 1});
                const int id = static_cast<int>(nodes.size()) - 1;
                if (c.token == eos)
                    S.finished.push_back({id, true});
                else {
                    S.open.push_back(id);
                    S.open_rows.push_back(c.row);
                }
            }
            const bool at_limit = !S.open.empty() && nodes[S.open[0]].length >= S.max_length;
            if (at_limit) {
                for (int id : S.open) S.finished.push_back({id, false});
                S.open.clear();
            }
            if (S.open.empty()) {
                S.done = true;
                continue;
            }
            for (size_t i = 0; i < S.open.size(); ++i) {
                const int id = S.open[i];
                next_parents.push_back(S.open_rows[i]);
                next_tokens.push_back(nodes[id].token);
                next_row_node.push_back(id);
                next_scores.push_back(nodes[id].score);
            }
        }
        parents = std::move(next_parents);
        tokens = std::move(next_tokens);
        row_node = std::move(next_row_node);
        row_scores = std::move(next_scores);
    }

    std::vector<std::vector<SearchHypothesis>> results(N);
    for (int s = 0; s < N; ++s) {
        const auto& S = sentences[s];
        std::vector<SearchHypothesis> all;
        for (const auto& [id, with_eos] : S.finished) {
            SearchHypothesis h;
            h.ended_with_eos = with_eos;
            h.score = nodes[id].score;
            h.normalized_score = h.score / length_penalty(nodes[id].length, options.length_penalty);
            for (int n = id; nodes[n].parent >= 0; n = nodes[n].parent) {
                if (!(with_eos && n == id)) h.tokens.push_back(nodes[n].token);
                const float* a = attention_pool.data() + nodes[n].attention_offset;
                h.attention.emplace_back(a, a + S.source_length);
            }
            std::reverse(h.tokens.begin(), h.tokens.end());
            std::reverse(h.attention.begin(), h.attention.end());
            all.push_back(std::move(h));
        }
        std::stable_sort(all.begin(), all.end(), [](const SearchHypothesis& a, const SearchHypothesis& b) {
            return a.normalized_score > b.normalized_score;
        });
        if (static_cast<int>(all.size()) > n_best) all.resize(n_best);
        results[s] = std::move(all);
    }
    return results;
}

}  // namespace nmt
