// Which arithmetic decoding's products use (issue 36): f32 everywhere, or the
// decoder's per-step products in int8 (core/int8_gemm.h): the RNN input and
// recurrent products, the attention query projection, the deep output, the
// lexical model and the vocabulary projection. The encoder runs once per
// sentence through oneDNN's f32 RNN primitives either way.
#pragma once
#include <string>

#include "model/model.h"

namespace nmt {

enum class Precision { FP32, Int8 };

Precision parse_precision(const std::string& name);  // "fp32" or "int8"; throws nmt::Error otherwise
std::string to_string(Precision precision);

// Quantises the decoder's weight matrices into model.int8 for Int8, or
// empties it for FP32. The f32 parameters stay (training, the encoder and
// the embeddings read them).
void set_decoding_precision(Model& model, Precision precision);

}  // namespace nmt
