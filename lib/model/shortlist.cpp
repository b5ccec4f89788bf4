#include "model/shortlist.h"

#include <algorithm>

namespace nmt {

std::vector<int> Shortlist::candidates(const std::vector<std::vector<int>>& sources,
                                       const std::vector<int>& always) const {
    std::vector<int> ids(frequent.begin(), frequent.end());
    ids.insert(ids.end(), always.begin(), always.end());
    const int64_t rows = per_source > 0 ? static_cast<int64_t>(by_source.size()) / per_source : 0;
    for (const auto& sentence : sources)
        for (int piece : sentence) {
            if (piece < 0 || piece >= rows) continue;
            const int32_t* row = by_source.data() + piece * per_source;
            for (int64_t i = 0; i < per_source && row[i] >= 0; ++i) ids.push_back(row[i]);
        }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

}  // namespace nmt
