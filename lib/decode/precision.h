// Which arithmetic decoding's products use (issue 36): f32 everywhere, or
// int8 (core/int8_gemm.h) for every weight matrix: the encoder's and the
// decoder's RNN input and recurrent products (an int8 encoder steps its
// cells as the decoder does, rather than on oneDNN's f32 RNN primitive), the
// decoder's initial state, the attention keys and query projection, the deep
// output, the lexical model and the vocabulary projection. (General
// attention's W_a stays f32.)
#pragma once
#include <string>

#include "model/model.h"

namespace nmt {

enum class Precision { FP32, Int8 };

// "fp32", "int8", or "auto": default_precision(); throws nmt::Error otherwise.
Precision parse_precision(const std::string& name);
std::string to_string(Precision precision);

// What decoding uses unless told: int8 where the CPU multiplies int8 with
// VNNI (with the shortlist, 1.1–2.1× the fp32 speed at every beam and batch
// size measured, BLEU within 0.19 of fp32's on every test set and +0.02 on
// average: README's Speed), else fp32: int8 without VNNI, where the weights
// keep to ±63, is not measured against it.
Precision default_precision();

// Quantises the weight matrices above (int8_matrices) into model.int8 for
// Int8, or empties it for FP32. The f32 parameters stay (training, general
// attention's W_a and the embeddings read them). A model to decode in int8
// alone loads faster with load_model(path, true): the same int8 weights,
// without f32 copies of them.
void set_decoding_precision(Model& model, Precision precision);

}  // namespace nmt
