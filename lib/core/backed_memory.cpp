#include "core/backed_memory.h"

#include <sys/mman.h>

#include <cstdint>

namespace nmt {

namespace {

constexpr uintptr_t kPage = 4096;
constexpr uintptr_t kHugePage = uintptr_t(2) << 20;

// Linux 5.14's MADV_POPULATE_WRITE; older headers lack the name, older
// kernels refuse it (EINVAL) and the pages fault in as before.
#ifndef MADV_POPULATE_WRITE
constexpr int kPopulateWrite = 23;
#else
constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#endif

}  // namespace

void back_memory(void* data, size_t bytes) {
    // Small ranges share pages with other allocations and cost a few faults at most.
    if (data == nullptr || bytes < 16 * kPage) return;
    const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
    const uintptr_t end = begin + bytes;
    const uintptr_t huge_begin = (begin + kHugePage - 1) & ~(kHugePage - 1);
    const uintptr_t huge_end = end & ~(kHugePage - 1);
    if (huge_begin < huge_end)
        ::madvise(reinterpret_cast<void*>(huge_begin), huge_end - huge_begin, MADV_HUGEPAGE);
    // Only whole pages inside the range: a page shared with a neighbour's
    // allocation is left to fault in as usual.
    const uintptr_t page_begin = (begin + kPage - 1) & ~(kPage - 1);
    const uintptr_t page_end = end & ~(kPage - 1);
    if (page_begin < page_end) ::madvise(reinterpret_cast<void*>(page_begin), page_end - page_begin, kPopulateWrite);
}

}  // namespace nmt
