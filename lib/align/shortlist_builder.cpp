#include "align/shortlist_builder.h"

#include <algorithm>

#include "core/error.h"

namespace nmt {

namespace {

// A line as the aligner's "words": its piece ids, space-separated.
std::string id_words(const std::vector<int>& ids) {
    std::string text;
    for (int id : ids) {
        if (!text.empty()) text += ' ';
        text += std::to_string(id);
    }
    return text;
}

std::vector<int32_t> most_frequent(const std::vector<int64_t>& counts, int n) {
    std::vector<int32_t> ids(counts.size());
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
    const size_t kept = std::min<size_t>(std::max(n, 0), ids.size());
    std::partial_sort(ids.begin(), ids.begin() + kept, ids.end(), [&](int32_t a, int32_t b) {
        return counts[a] != counts[b] ? counts[a] > counts[b] : a < b;
    });
    ids.resize(kept);
    while (!ids.empty() && counts[ids.back()] == 0) ids.pop_back();  // never-seen pieces are not "frequent"
    return ids;
}

}  // namespace

Shortlist build_shortlist(const std::vector<std::string>& sources, const std::vector<std::string>& targets,
                          const Vocabulary& source_vocab, const Vocabulary& target_vocab,
                          const ShortlistOptions& options, const AlignerProgressSink& progress) {
    if (sources.size() != targets.size()) throw Error("shortlist: as many target lines as source lines are needed");
    if (options.per_source < 1) throw Error("shortlist: candidates per source piece must be at least 1");
    std::vector<std::string> source_words, target_words;
    std::vector<int64_t> target_counts(target_vocab.size(), 0);
    for (size_t i = 0; i < sources.size(); ++i) {
        const std::vector<int> s = source_vocab.encode(sources[i]), t = target_vocab.encode(targets[i]);
        if (s.empty() || t.empty()) continue;
        for (int id : t) ++target_counts[id];
        source_words.push_back(id_words(s));
        target_words.push_back(id_words(t));
    }
    StatisticalAligner aligner(options.aligner);
    PairsInMemory pairs(source_words, target_words);
    aligner.train(pairs, progress);

    Shortlist shortlist;
    shortlist.per_source = options.per_source;
    shortlist.by_source.assign(static_cast<size_t>(source_vocab.size()) * options.per_source, -1);
    for (const auto& [word, best] : aligner.translations(options.per_source)) {
        int32_t* row = shortlist.by_source.data() + static_cast<int64_t>(std::stoi(word)) * options.per_source;
        for (size_t i = 0; i < best.size(); ++i) row[i] = std::stoi(best[i].first);
    }
    shortlist.frequent = most_frequent(target_counts, options.frequent);
    return shortlist;
}

}  // namespace nmt
