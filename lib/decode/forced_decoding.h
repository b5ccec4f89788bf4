// Teacher forcing at inference: the decoder fed a given translation piece by
// piece instead of searching for one. Gives that translation's score under
// the model and the attention of every step, the same numbers beam search
// records for a hypothesis it finds: what `nmt align` reads to align a
// sentence with its human translation.
#pragma once
#include <vector>

#include "layers/decoder.h"
#include "layers/encoded_batch.h"
#include "decode/translation_result.h"

namespace nmt {

// One hypothesis per sentence of the batch: targets[n] (ids without EOS),
// then EOS. target_ids, token_scores (log p of each piece and of EOS), score
// (their sum) and attention (one row per target piece and EOS, over the
// sentence's source positions) are filled; pieces, text and normalized_score
// are the caller's.
std::vector<Hypothesis> force_decode(Decoder& decoder, const EncodedBatch& batch,
                                     const std::vector<std::vector<int>>& targets, int bos, int eos);

}  // namespace nmt
