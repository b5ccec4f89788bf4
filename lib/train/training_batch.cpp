#include "train/training_batch.h"

namespace nmt {

int64_t TrainingBatch::target_tokens() const {
    int64_t n = 0;
    for (const auto& t : targets) n += t.size();
    return n;
}

}  // namespace nmt
