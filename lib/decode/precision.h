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

// What decoding uses unless told: int8 where oneDNN's int8 kernels run in
// AVX2 or wider vectors, else fp32. Measured (README Speed) against fp32 at
// beam 5, batch 32, with BLEU within a few tenths of fp32's: with VNNI
// 1.1–2.1× (with the shortlist), and on AVX2 alone about 1.8× without it
// (activations then kept to ±63). Below AVX2 int8 is not measured.
Precision default_precision();

// Quantises the weight matrices above (int8_matrices) into model.int8 for
// Int8, or empties it for FP32. The f32 parameters stay (training, general
// attention's W_a and the embeddings read them). A model to decode in int8
// alone loads faster with load_model(path, true): the same int8 weights,
// without f32 copies of them.
void set_decoding_precision(Model& model, Precision precision);

}  // namespace nmt
