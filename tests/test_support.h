// Shared fixtures for the unit tests: tiny SentencePiece models trained on the
// fly and randomly initialised models of every architecture.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "model/model.h"

namespace nmt::testing {

// A SentencePiece model trained once per (size, type) on a small synthetic
// corpus; returns its serialized bytes. "char" with size 7 gives a vocabulary
// of {unk, bos, eos, ▁, a, b, c}: small enough for exhaustive search.
const std::string& tiny_spm(int vocab_size, const std::string& model_type = "unigram");

ModelConfig small_config(CellType enc, CellType dec, DecoderStyle style, AttentionType attention);

// Random weights, scaled up so that attention and outputs are far from uniform.
Model random_model(ModelConfig config, uint64_t seed, int vocab_size = 60, const std::string& type = "unigram");

// Every encoder cell × decoder cell × decoder style × attention, plus the
// Luong variant without input feeding and a tied-embedding model.
std::vector<ModelConfig> all_architectures();
std::string describe(const ModelConfig& c);

std::vector<float> random_vector(size_t n, uint64_t seed, float scale = 1.0f);

// `name` in this process's temporary directory for a group of tests (created on first use).
std::filesystem::path temp_path(const std::string& group, const std::string& name);

// The message of the nmt::Error that f throws; "" when it throws none.
std::string error_of(const std::function<void()>& f);

// |a − b| ≤ 1e-4 · max(1, |b|): relative where values are large, absolute near zero.
bool close(float a, float b, float tolerance = 1e-4f);

}  // namespace nmt::testing
