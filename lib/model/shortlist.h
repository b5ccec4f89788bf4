// A lexical shortlist (issue 36; Marian's --shortlist): for each source piece
// the target pieces it most likely translates into, plus the most frequent
// target pieces. Decoding a batch then scores only the union of its sources'
// candidates instead of the whole target vocabulary: the vocabulary
// projection, the softmax and beam search's ranking shrink from V to a few
// hundred columns. Built by nmt shortlist (align/shortlist_builder.h) and
// stored in the model file, so that nmt translate uses it by default.
#pragma once
#include <cstdint>
#include <vector>

namespace nmt {

struct Shortlist {
    int64_t per_source = 0;          // k: candidates kept per source piece
    std::vector<int32_t> by_source;  // [source vocabulary × k], best first; −1 fills short rows
    std::vector<int32_t> frequent;   // the most frequent target pieces

    bool empty() const { return per_source == 0 && frequent.empty(); }

    // The sorted, distinct target ids a batch of `sources` may produce: the
    // frequent pieces, every source piece's candidates, and `always` (EOS).
    std::vector<int> candidates(const std::vector<std::vector<int>>& sources, const std::vector<int>& always) const;
};

}  // namespace nmt
