#include "formats/routed_segment_translator.h"

#include "formats/model_segment_translator.h"
#include "formats/text_words.h"

namespace nmt {

RoutedSegmentTranslator::RoutedSegmentTranslator(LanguageRouter& router, bool split_sentences)
    : router_(router), split_(split_sentences) {}

std::vector<SegmentTranslation> unchanged_segments(const std::vector<std::string>& segments) {
    std::vector<SegmentTranslation> out;
    for (const auto& segment : segments) {
        SegmentTranslation t;
        t.text = segment;
        t.source_words = text_words(segment);
        t.target_words = t.source_words;
        for (size_t w = 0; w < t.source_words.size(); ++w) t.links.emplace_back(int(w), int(w));
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<SegmentTranslation> RoutedSegmentTranslator::translate(const std::vector<std::string>& segments) {
    if (!route_) {
        // One decision for the whole document: its segments, one per line.
        std::string text;
        for (const auto& segment : segments) text += segment + "\n";
        LanguageRoute route = router_.route(text);
        if (route.language.empty() && route.note.empty()) return unchanged_segments(segments);  // nothing to judge yet
        route_ = std::move(route);
        if (on_route) on_route(*route_);
    }
    if (!route_->model) return unchanged_segments(segments);
    ModelSegmentTranslator model(*route_->model->translator, route_->model->options, split_);
    model.warn = warn;
    return model.translate(segments);
}

}  // namespace nmt
