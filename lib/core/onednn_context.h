// The process-wide oneDNN CPU engine, and a stream per thread. oneDNN parallelises with
// OpenMP; set_threads decides how many cores every primitive and sgemm uses.
#pragma once
#include <dnnl.hpp>
#include <future>

namespace nmt {

dnnl::engine& cpu_engine();
dnnl::stream& cpu_stream();
void set_threads(int threads);  // 0 leaves OpenMP's default (OMP_NUM_THREADS or all cores)

// oneDNN JIT-compiles its sgemm kernels at the process's first sgemm, about
// 40 ms, a fifth of translating one line from start to end. Called before a
// model loads, this compiles them on another thread meanwhile; the future
// is ready when they are (waiting for it is optional: the first sgemm waits).
std::future<void> prepare_gemm_kernels();

}  // namespace nmt
