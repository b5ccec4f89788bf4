// Installed models, so that `nmt translate` works with no -m: files named
// SOURCE-TARGET.nmt (e.g. en-fr.nmt, a general-purpose model) or
// SOURCE-TARGET.DOMAIN.nmt (e.g. en-fr.captions.nmt, a model for one domain,
// chosen with --domain) in these directories, each name served by the first
// directory that has it: $NMT_MODELS, <binary dir>/../share/nmt/models,
// <binary dir>/models, <binary dir>/../models (a build directory inside the
// source tree), and the source tree's models/ this binary was built from.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace nmt {

struct InstalledModel {
    std::string path, source_language, target_language;
    std::string domain;  // empty for a general-purpose model

    std::string name() const;  // "en-fr", "en-fr.captions"
};

std::vector<std::string> model_directories();
std::vector<InstalledModel> installed_models();

// The model a file's name describes: SOURCE-TARGET.nmt or
// SOURCE-TARGET.DOMAIN.nmt (path made canonical); nullopt for another name.
std::optional<InstalledModel> model_of_file(const std::string& path);
// The models of one directory (regular files, through links), by name.
std::vector<InstalledModel> models_in_directory(const std::string& directory);

// The model among `models` for from→to, either possibly empty: the source
// defaults to English and the target to fr (en when the source is not
// English), or, when that pair is not installed, the one language the
// installed models translate `from` into; with only `to` = en, the one
// language pair into English. With a
// `domain`, the model of that domain; without, the pair's general model, or
// its only model when it has no general one. Throws nmt::Error naming the
// installed models when none fits, or several do.
std::string choose_model(const std::vector<InstalledModel>& models, const std::string& from, const std::string& to,
                         const std::string& domain = "");

// --to's default with --from auto: en when an installed model of `domain`
// (general when empty) translates into English, else the one language they
// all translate into. Throws nmt::Error naming --to when there is no such
// model, or several targets without English.
std::string auto_target_language(const std::vector<InstalledModel>& models, const std::string& domain);

// Every language an installed model of `domain` reads or writes, and
// `target`, sorted: what --from auto detects a text as.
std::vector<std::string> model_languages(const std::vector<InstalledModel>& models, const std::string& domain,
                                         const std::string& target);

// `model` when given; otherwise choose_model among installed_models().
std::string resolve_model(const std::string& model, const std::string& from, const std::string& to,
                          const std::string& domain = "");

}  // namespace nmt
