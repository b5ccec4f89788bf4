// nmt translate --from auto: which installed model each text (a line, or a
// whole document) goes to, by detecting its language among the languages the
// installed models know (text/language_detection.h). A text already in the
// target language, or in one no model translates into it, is passed through
// unchanged: one output per input, nothing lost.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "decode/translator.h"

namespace nmt {

// A model ready to translate one source language into the target.
struct RoutedModel {
    Translator* translator = nullptr;
    TranslateOptions options;  // its own: a model may carry a tuned length penalty
    std::string name;          // "fr-en", for reports
};

// Where one text goes.
struct LanguageRoute {
    // Detected; empty when the text has nothing to judge (blank, digits), or
    // reads as none of the candidates (then with a note).
    std::string language;
    const RoutedModel* model = nullptr;  // null: the text passes through unchanged
    // Why the text passes through, for a warning ("already in en"); empty
    // when it is translated, has nothing to judge, or is kept on purpose.
    std::string note;
};

class LanguageRouter {
public:
    // The model for source->target, loaded on first use, or null when none
    // is installed. Called once per language at most.
    using ModelFor = std::function<const RoutedModel*(const std::string& source)>;

    // `candidates`: the languages a text may be detected as (the target
    // among them, so that a text already in it is recognised).
    // `keep_target_language`: a text in the target language passes through
    // without a note (the user asked for it), else with one.
    LanguageRouter(std::vector<std::string> candidates, std::string target, ModelFor model_for,
                   bool keep_target_language);

    LanguageRoute route(std::string_view text);

    const std::vector<std::string>& candidates() const { return candidates_; }
    const std::string& target() const { return target_; }

private:
    const RoutedModel* model_for(const std::string& source);

    std::vector<std::string> candidates_;
    std::string target_;
    ModelFor load_;
    bool keep_target_;
    std::vector<std::pair<std::string, const RoutedModel*>> known_;  // languages already asked for
};

}  // namespace nmt
