// Installed models, so that `nmt translate` works with no -m: files named
// SOURCE-TARGET.nmt (e.g. en-fr.nmt) in these directories, a language pair
// served by the first that has it: $NMT_MODELS, <binary dir>/../share/nmt/models,
// <binary dir>/models, <binary dir>/../models (a build directory inside the
// source tree), and the source tree's models/ this binary was built from.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

namespace nmt {

struct InstalledModel {
    std::string path, source_language, target_language;
};

std::vector<std::string> model_directories();
std::vector<InstalledModel> installed_models();

// `model` when given; otherwise the installed model for from→to (defaults:
// en→fr; --to en alone: the one installed model into English). Throws
// nmt::Error listing what is installed when nothing fits.
std::string resolve_model(const std::string& model, const std::string& from, const std::string& to);

void print_model_list(std::FILE* out);

}  // namespace nmt
