// The process-wide oneDNN CPU engine, and a stream per thread. oneDNN parallelises with
// OpenMP; set_threads decides how many cores every primitive and sgemm uses.
#pragma once
#include <dnnl.hpp>
#include <future>

namespace nmt {

dnnl::engine& cpu_engine();
dnnl::stream& cpu_stream();
void set_threads(int threads);  // 0 leaves OpenMP's default (OMP_NUM_THREADS or all cores)

// oneDNN JIT-compiles all its fp32 gemm kernels at the process's first
// sgemm (36–41 ms on one core here, whatever its size). Called before a
// model loads, this runs one tiny sgemm on another thread meanwhile; the
// future is ready when it has (waiting is optional: the first product
// waits). A model loaded for int8 compiles int8's kernels as it loads
// (compile_int8_kernels, core/int8_gemm.h).
std::future<void> prepare_fp32_gemm_kernels();

// Holds oneDNN to AVX-512 VNNI where the CPU has AMX too: its AMX int8 gemm
// loses at decoding's small products (a scalar pass over each output; int8
// with the shortlist at beam 5, batch 32 decoded 194 sentences/s with AMX
// and 305 held to VNNI on an AMX Xeon, best of two runs), and fp32 does not use
// AMX. Call before oneDNN's first use; ONEDNN_MAX_CPU_ISA, when set, wins.
void prefer_vnni_to_amx();

}  // namespace nmt
