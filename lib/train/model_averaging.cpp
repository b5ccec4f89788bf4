#include "train/model_averaging.h"

#include <map>
#include <vector>

#include "train/checkpoint.h"
#include "core/error.h"
#include "core/sha256.h"

namespace nmt {

namespace {

// The same architecture and vocabularies, so that weights of one name mean the same thing.
void require_same_model(const Model& first, const std::string& first_path, const Model& other,
                        const std::string& path) {
    if (to_json(other.config) != to_json(first.config))
        throw Error(path + ": its configuration differs from " + first_path + "'s; only snapshots of one model average");
    if (other.source_vocab.serialized() != first.source_vocab.serialized() ||
        other.target_vocab.serialized() != first.target_vocab.serialized())
        throw Error(path + ": its vocabularies differ from " + first_path + "'s; only snapshots of one model average");
}

}  // namespace

Model load_weights_for_averaging(const std::string& path) {
    if (!is_checkpoint_file(path)) return load_model(path);
    Checkpoint checkpoint = load_checkpoint(path);
    if (!checkpoint.average.empty()) checkpoint.average.swap_with(checkpoint.model);
    // A checkpoint's provenance is the run's, as of its last saved model:
    // say which update these weights are from.
    checkpoint.model.provenance["checkpoint_step"] = checkpoint.state.step;
    checkpoint.model.provenance["checkpoint_weights"] = checkpoint.average.empty() ? "raw" : "parameter average";
    return std::move(checkpoint.model);
}

Model average_model_files(const std::vector<std::string>& paths) {
    if (paths.empty()) throw Error("averaging needs at least one model or checkpoint");
    std::map<std::string, std::vector<double>> sums;
    nlohmann::json inputs = nlohmann::json::array();
    auto add = [&](const Model& model, const std::string& path) {
        for (const auto& [name, t] : model.parameters) {
            auto& sum = sums[name];
            sum.resize(t.values.size(), 0.0);
            for (size_t i = 0; i < sum.size(); ++i) sum[i] += t.values[i];
        }
        inputs.push_back({{"path", path}, {"sha256", sha256_file(path)}, {"provenance", model.provenance}});
    };
    Model result = load_weights_for_averaging(paths[0]);  // its configuration and vocabularies are the mean's
    add(result, paths[0]);
    for (size_t k = 1; k < paths.size(); ++k) {
        const Model model = load_weights_for_averaging(paths[k]);
        require_same_model(result, paths[0], model, paths[k]);
        add(model, paths[k]);
    }
    const double n = static_cast<double>(paths.size());
    for (auto& [name, t] : result.parameters) {
        const auto& sum = sums.at(name);
        for (size_t i = 0; i < sum.size(); ++i) t.values[i] = static_cast<float>(sum[i] / n);
    }
    result.provenance = {{"averaged", inputs}};
    result.decoding = nlohmann::json::object();
    return result;
}

}  // namespace nmt
