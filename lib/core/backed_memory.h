// Memory that is about to be written whole, backed by the kernel up front.
//
// A fresh allocation is only address space: each 4 KiB page is faulted in at
// its first write. On the virtual machines nmt runs on a fault costs about
// 10 µs, so filling the 40 MB of a 10M-parameter model's f32 weights took
// 10,000 faults, most of the 0.2 s it took to load. reserve_backed() asks
// for huge pages where the range holds an aligned 2 MiB stretch (one fault
// per 2 MiB) and populates the rest in one madvise call instead of a fault
// per page. Both are hints: a kernel without them faults pages in as before.
#pragma once
#include <cstddef>
#include <vector>

namespace nmt {

// Backs [data, data + bytes) with memory now (huge pages where possible).
void back_memory(void* data, size_t bytes);

// v.reserve(n), then back_memory over the new storage; v's size is unchanged.
template <typename T>
void reserve_backed(std::vector<T>& v, size_t n) {
    v.reserve(n);
    back_memory(v.data(), n * sizeof(T));
}

}  // namespace nmt
