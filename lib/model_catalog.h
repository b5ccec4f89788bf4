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

// The model among `models` for from→to, either possibly empty: the source
// defaults to English and the target to fr (en when the source is not
// English); with only `to` = en, the one model into English. Throws
// nmt::Error naming the installed pairs when none fits, or several do.
std::string choose_model(const std::vector<InstalledModel>& models, const std::string& from, const std::string& to);

// `model` when given; otherwise choose_model among installed_models().
std::string resolve_model(const std::string& model, const std::string& from, const std::string& to);

void print_model_list(std::FILE* out);

}  // namespace nmt
