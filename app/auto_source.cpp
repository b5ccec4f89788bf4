#include "auto_source.h"

#include <algorithm>

namespace nmt::app {

LazyModels::LazyModels(std::vector<InstalledModel> models, std::string target, std::string domain, bool int8,
                       OptionsFor options_for, std::function<void(const std::string&, const std::string&)> loaded)
    : models_(std::move(models)),
      target_(std::move(target)),
      domain_(std::move(domain)),
      int8_(int8),
      options_for_(std::move(options_for)),
      loaded_(std::move(loaded)) {}

const RoutedModel* LazyModels::model_for(const std::string& source) {
    const auto model = std::find_if(models_.begin(), models_.end(), [&](const InstalledModel& m) {
        return m.source_language == source && m.target_language == target_ && m.domain == domain_;
    });
    if (model == models_.end()) return nullptr;
    auto kept = std::make_unique<Loaded>(Loaded{load_model(model->path, int8_), nullptr, {}});
    kept->translator = std::make_unique<Translator>(kept->model);
    kept->routed = RoutedModel{kept->translator.get(), options_for_(kept->model, model->path), model->name()};
    if (loaded_) loaded_(model->name(), model->path);
    kept_.push_back(std::move(kept));
    return &kept_.back()->routed;
}

}  // namespace nmt::app
