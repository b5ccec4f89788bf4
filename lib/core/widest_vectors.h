// NMT_WIDEST_VECTORS before a function that walks long arrays: GCC and
// clang compile it for AVX-512, AVX2 and the baseline, and the loader picks
// the widest the CPU has when the program starts (one binary serves every
// CPU). Each clone is the same source in IEEE single precision, so every
// clone gives the same values. Clang cannot clone a template: clone a plain
// function that calls it (an inline callee is compiled for each clone).
#pragma once

#define NMT_WIDEST_VECTORS __attribute__((target_clones("avx512f", "avx2", "default")))
