#include "core/onednn_context.h"

#include <omp.h>

#include <cstdint>
#include <cstdlib>

#include <dnnl.h>

namespace nmt {

dnnl::engine& cpu_engine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

// One per thread: a translator runs batches on several threads at once
// (decode/translator.h), and oneDNN does not promise that a stream can be
// used from two threads at the same time.
dnnl::stream& cpu_stream() {
    thread_local dnnl::stream stream(cpu_engine());
    return stream;
}

void set_threads(int threads) {
    if (threads > 0) omp_set_num_threads(threads);
}

std::future<void> prepare_fp32_gemm_kernels() {
    return std::async(std::launch::async, [] {
        float a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0}, c[4];
        dnnl_sgemm('N', 'N', 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    });
}

void prefer_vnni_to_amx() {
    if (std::getenv("ONEDNN_MAX_CPU_ISA") || std::getenv("DNNL_MAX_CPU_ISA")) return;
    // A cap, not a requirement: a CPU without VNNI keeps its best ISA below it.
    dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx512_core_vnni);
}

}  // namespace nmt
