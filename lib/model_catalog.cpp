#include "model_catalog.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "error.h"

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

std::vector<InstalledModel> installed_models() {
    std::vector<InstalledModel> found;
    std::set<std::string> seen;  // a language pair is served by the first directory that has it
    for (const auto& dir : model_directories()) {
        std::error_code error;
        if (!fs::is_directory(dir, error)) continue;
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(dir, error))
            if (entry.path().extension() == ".nmt") files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const auto& file : files) {
            const std::string stem = file.stem().string();
            const auto dash = stem.find('-');
            if (dash == std::string::npos || !seen.insert(stem).second) continue;
            found.push_back({fs::canonical(file, error).string(), stem.substr(0, dash), stem.substr(dash + 1)});
        }
    }
    return found;
}

namespace {

std::string installed_pairs(const std::vector<InstalledModel>& models) {
    if (models.empty()) return " (no models installed)";
    std::string pairs = " (installed:";
    for (const auto& m : models) pairs += " " + m.source_language + "-" + m.target_language;
    return pairs + ")";
}

}  // namespace

std::string choose_model(const std::vector<InstalledModel>& models, const std::string& from, const std::string& to) {
    if (from.empty() && to == "en") {
        // The default source is English, which cannot be the target too: take
        // the one installed model into English, and ask for --from if several.
        std::vector<InstalledModel> into_english;
        for (const auto& m : models)
            if (m.target_language == "en") into_english.push_back(m);
        if (into_english.size() == 1) return into_english.front().path;
        if (into_english.empty())
            throw Error("no installed model for ->en" + installed_pairs(models) + "; give one with -m MODEL");
        throw Error("several installed models translate into en" + installed_pairs(into_english) +
                    "; choose one with --from, or give one with -m MODEL");
    }
    const std::string source = from.empty() ? "en" : from;
    const std::string target = to.empty() ? (source == "en" ? "fr" : "en") : to;
    for (const auto& m : models)
        if (m.source_language == source && m.target_language == target) return m.path;
    throw Error("no installed model for " + source + "->" + target + installed_pairs(models) +
                "; give one with -m MODEL");
}

std::string resolve_model(const std::string& model, const std::string& from, const std::string& to) {
    return model.empty() ? choose_model(installed_models(), from, to) : model;
}

void print_model_list(std::FILE* out) {
    const auto models = installed_models();
    if (models.empty()) std::fprintf(out, "no models installed (searched $NMT_MODELS and models/ directories)\n");
    for (const auto& m : models)
        std::fprintf(out, "%s-%s\t%s\n", m.source_language.c_str(), m.target_language.c_str(), m.path.c_str());
}

}  // namespace nmt
