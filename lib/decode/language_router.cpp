#include "decode/language_router.h"

#include <utility>

#include "text/language_detection.h"

namespace nmt {

LanguageRouter::LanguageRouter(std::vector<std::string> candidates, std::string target, ModelFor model_for,
                               bool keep_target_language)
    : candidates_(std::move(candidates)),
      target_(std::move(target)),
      load_(std::move(model_for)),
      keep_target_(keep_target_language) {}

const RoutedModel* LanguageRouter::model_for(const std::string& source) {
    for (const auto& [language, model] : known_)
        if (language == source) return model;
    const RoutedModel* model = load_(source);
    known_.emplace_back(source, model);
    return model;
}

LanguageRoute LanguageRouter::route(std::string_view text) {
    LanguageRoute route;
    const LanguageGuess guess = detect_language(text, candidates_);
    // No letters CLD2 could judge (a blank line, "12345", a lone URL): such
    // a text reads the same in every language.
    if (!guess.has_words) return route;
    if (guess.confidence <= 0.0) {  // letters, but in none of the candidates as CLD2 reads them
        route.note = "not recognised as any of";
        for (const auto& c : candidates_) route.note += " " + c;
        route.note += "; passed through unchanged";
        return route;
    }
    route.language = guess.language;
    if (guess.language == target_) {
        if (!keep_target_) route.note = "already in " + target_ + "; passed through unchanged";
        return route;
    }
    route.model = model_for(guess.language);
    if (!route.model)
        route.note = "in " + guess.language + ", and no installed model translates " + guess.language + "->" +
                     target_ + "; passed through unchanged";
    return route;
}

}  // namespace nmt
