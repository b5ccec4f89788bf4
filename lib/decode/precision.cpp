#include "decode/precision.h"

#include "core/error.h"
#include "core/int8_gemm.h"

namespace nmt {

Precision parse_precision(const std::string& name) {
    if (name == "fp32") return Precision::FP32;
    if (name == "int8") return Precision::Int8;
    if (name == "auto") return default_precision();
    throw Error("unknown precision '" + name + "' (fp32, int8 or auto)");
}

Precision default_precision() { return int8_has_avx2() ? Precision::Int8 : Precision::FP32; }

std::string to_string(Precision precision) { return precision == Precision::Int8 ? "int8" : "fp32"; }

void set_decoding_precision(Model& model, Precision precision) {
    model.int8.clear();
    if (precision == Precision::FP32) return;
    for (const auto& [name, matrix] : int8_matrices(model.config)) {
        QuantizedMatrix q = quantize_columns(model.param(name), matrix.transposed);
        prepare_small_batches(q);
        model.int8.emplace(name, std::move(q));
    }
}

}  // namespace nmt
