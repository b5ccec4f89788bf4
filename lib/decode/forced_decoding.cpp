#include "decode/forced_decoding.h"

#include <algorithm>
#include <stdexcept>

namespace nmt {

std::vector<Hypothesis> force_decode(Decoder& decoder, const EncodedBatch& batch,
                                     const std::vector<std::vector<int>>& targets, int bos, int eos) {
    if (static_cast<int64_t>(targets.size()) != batch.batch)
        throw std::invalid_argument("force_decode: one target per sentence of the batch");
    const int64_t N = batch.batch;
    std::vector<Hypothesis> out(N);
    size_t steps = 0;
    for (int64_t n = 0; n < N; ++n) {
        out[n].target_ids = targets[n];
        steps = std::max(steps, targets[n].size() + 1);  // + EOS
    }
    DecoderState state = decoder.start(batch);
    std::vector<int> previous(N, bos);
    Tensor log_probs, attention;
    for (size_t t = 0; t < steps; ++t) {
        decoder.step(batch, state, previous.data(), log_probs, attention);
        for (int64_t n = 0; n < N; ++n) {
            const std::vector<int>& target = targets[n];
            if (t > target.size()) continue;  // finished: its row runs on, unread
            const int token = t < target.size() ? target[t] : eos;
            out[n].token_scores.push_back(log_probs.row(n)[token]);
            out[n].score += out[n].token_scores.back();
            const float* row = attention.row(n);
            out[n].attention.emplace_back(row, row + batch.lengths[n]);
            previous[n] = token;
        }
    }
    return out;
}

}  // namespace nmt
