// The process-wide oneDNN CPU engine and stream. oneDNN parallelises with
// OpenMP; set_threads decides how many cores every primitive and sgemm uses.
#pragma once
#include <dnnl.hpp>

namespace nmt {

dnnl::engine& cpu_engine();
dnnl::stream& cpu_stream();
void set_threads(int threads);  // 0 leaves OpenMP's default (OMP_NUM_THREADS or all cores)

}  // namespace nmt
