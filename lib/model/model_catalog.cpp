#include "model/model_catalog.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/error.h"

namespace nmt {

namespace fs = std::filesystem;

namespace {

fs::path binary_directory() {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::path() : exe.parent_path();
}

}  // namespace

std::vector<std::string> model_directories() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("NMT_MODELS")) dirs.push_back(env);
    const fs::path bin = binary_directory();
    if (!bin.empty())
        for (const char* rel : {"../share/nmt/models", "models", "../models"}) dirs.push_back((bin / rel).lexically_normal());
    dirs.push_back(fs::path(NMT_SOURCE_DIR) / "models");
    return dirs;
}

std::string InstalledModel::name() const {
    return source_language + "-" + target_language + (domain.empty() ? "" : "." + domain);
}

std::optional<InstalledModel> model_of_file(const std::string& path) {
    const fs::path file(path);
    if (file.extension() != ".nmt") return std::nullopt;
    const std::string stem = file.stem().string();  // "en-fr" or "en-fr.captions"
    const auto dot = stem.find('.');
    const std::string pair = stem.substr(0, dot);
    const auto dash = pair.find('-');
    if (dash == std::string::npos) return std::nullopt;
    std::error_code error;
    const fs::path canonical = fs::canonical(file, error);
    return InstalledModel{error ? path : canonical.string(), pair.substr(0, dash), pair.substr(dash + 1),
                          dot == std::string::npos ? "" : stem.substr(dot + 1)};
}

std::vector<InstalledModel> models_in_directory(const std::string& dir) {
    std::vector<InstalledModel> found;
    std::error_code error;
    if (!fs::is_directory(dir, error)) return found;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, error))
        // A model is a regular file (through links): not a directory
        // or a link to /dev/zero that happens to end in .nmt.
        if (entry.path().extension() == ".nmt" && fs::is_regular_file(entry.path(), error))
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files)
        if (auto model = model_of_file(file.string())) found.push_back(std::move(*model));
    return found;
}

std::vector<InstalledModel> installed_models() {
    std::vector<InstalledModel> found;
    std::set<std::string> seen;  // a name is served by the first directory that has it
    for (const auto& dir : model_directories())
        for (auto& model : models_in_directory(dir))
            if (seen.insert(model.name()).second) found.push_back(std::move(model));
    return found;
}

namespace {

std::string installed_names(const std::vector<InstalledModel>& models) {
    if (models.empty()) return " (no models installed)";
    std::string names = " (installed:";
    for (const auto& m : models) names += " " + m.name();
    return names + ")";
}

std::vector<InstalledModel> models_of_pair(const std::vector<InstalledModel>& models, const std::string& source,
                                           const std::string& target) {
    std::vector<InstalledModel> pair;
    for (const auto& m : models)
        if (m.source_language == source && m.target_language == target) pair.push_back(m);
    return pair;
}

}  // namespace

std::string choose_model(const std::vector<InstalledModel>& models, const std::string& from, const std::string& to,
                         const std::string& domain) {
    std::string source = from.empty() ? "en" : from;
    std::string target = to.empty() ? (source == "en" ? "fr" : "en") : to;
    if (!from.empty() && to.empty() && models_of_pair(models, source, target).empty()) {
        // No model into the usual target: the one language the installed
        // models translate `from` into, when there is only one.
        std::set<std::string> targets;
        for (const auto& m : models)
            if (m.source_language == source) targets.insert(m.target_language);
        if (targets.size() == 1) target = *targets.begin();
    }
    if (from.empty() && to == "en") {
        // The default source is English, which cannot be the target too: take
        // the one installed pair into English, and ask for --from if several.
        std::set<std::string> sources;
        std::vector<InstalledModel> into_english;
        for (const auto& m : models)
            if (m.target_language == "en") {
                into_english.push_back(m);
                sources.insert(m.source_language);
            }
        if (sources.empty())
            throw Error("no installed model for ->en" + installed_names(models) + "; give one with -m MODEL");
        if (sources.size() > 1)
            throw Error("several installed models translate into en" + installed_names(into_english) +
                        "; choose one with `from`, or give one with `model`");
        source = *sources.begin();
    }
    const auto pair = models_of_pair(models, source, target);
    for (const auto& m : pair)
        if (m.domain == domain) return m.path;
    if (domain.empty() && pair.size() == 1) return pair.front().path;  // no general model: the pair's only one
    if (domain.empty() && pair.size() > 1)
        throw Error("no general model for " + source + "-" + target + installed_names(pair) +
                    "; choose one with `domain`");
    throw Error("no installed model for " + source + "->" + target + (domain.empty() ? "" : " in domain " + domain) +
                installed_names(models) + "; give one with -m MODEL");
}

namespace {


// The models `domain` names: its own, or the general ones when empty.
std::vector<InstalledModel> of_domain(const std::vector<InstalledModel>& models, const std::string& domain) {
    std::vector<InstalledModel> kept;
    for (const auto& m : models)
        if (m.domain == domain) kept.push_back(m);
    return kept;
}

}  // namespace

std::string auto_target_language(const std::vector<InstalledModel>& models, const std::string& domain) {
    std::set<std::string> targets;
    for (const auto& m : of_domain(models, domain)) targets.insert(m.target_language);
    if (targets.count("en")) return "en";
    if (targets.size() == 1) return *targets.begin();
    std::string list;
    for (const auto& t : targets) list += (list.empty() ? "" : ", ") + t;
    if (targets.empty())
        throw Error("--from auto: no installed model" + (domain.empty() ? "" : " in domain " + domain) +
                    " to translate with; give --from and -m MODEL");
    throw Error("--from auto needs --to: the installed models translate into " + list);
}

std::vector<std::string> model_languages(const std::vector<InstalledModel>& models, const std::string& domain,
                                             const std::string& target) {
    std::set<std::string> languages = {target};
    for (const auto& m : of_domain(models, domain)) {
        languages.insert(m.source_language);
        languages.insert(m.target_language);
    }
    return {languages.begin(), languages.end()};
}

std::string resolve_model(const std::string& model, const std::string& from, const std::string& to,
                          const std::string& domain) {
    return model.empty() ? choose_model(installed_models(), from, to, domain) : model;
}

}  // namespace nmt
