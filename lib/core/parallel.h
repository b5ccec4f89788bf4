// When a loop is worth handing to OpenMP's threads. Waking them and waiting
// for the slowest costs microseconds, which is most of the work of a small
// loop: at beam 5, batch 1 a decoding step's loops have five rows, and
// dozens of such fork-joins a step were a visible share of batch-1 latency.
// Every loop this guards computes each row the same way on whichever thread,
// so the choice never changes a result.
#pragma once
#include <cstdint>

namespace nmt {

// `work`: about how many multiply-adds or element operations the loop does.
inline bool worth_threads(int64_t work) { return work >= (int64_t{1} << 15); }

}  // namespace nmt
