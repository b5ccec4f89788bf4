// nmt translate --from auto: the installed models, each loaded the first
// time a text in its language asks for it (English-only input loads none).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "decode/language_router.h"
#include "model/model.h"
#include "model/model_catalog.h"

namespace nmt::app {

class LazyModels {
public:
    // `options_for`: the translate options for a loaded model (its tuned
    // length penalty, the memory checks); it may throw to refuse it.
    using OptionsFor = std::function<TranslateOptions(const Model& model, const std::string& path)>;
    // `loaded`: told each model's name and path as it loads (-v).
    LazyModels(std::vector<InstalledModel> models, std::string target, std::string domain, bool int8,
               OptionsFor options_for, std::function<void(const std::string&, const std::string&)> loaded);

    // The model for source->target, loaded now if need be; null when none is installed.
    const RoutedModel* model_for(const std::string& source);

private:
    struct Loaded {
        Model model;
        std::unique_ptr<Translator> translator;
        RoutedModel routed;
    };
    std::vector<InstalledModel> models_;
    std::string target_, domain_;
    bool int8_;
    OptionsFor options_for_;
    std::function<void(const std::string&, const std::string&)> loaded_;
    std::vector<std::unique_ptr<Loaded>> kept_;
};

}  // namespace nmt::app
