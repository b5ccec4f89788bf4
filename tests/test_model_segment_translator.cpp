// The model-backed SegmentTranslator: word spans that cover both texts, links
// inside them, segments of several sentences joined as nmt translate joins a
// line, and the same results however the segments are batched.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "formats/model_segment_translator.h"
#include "test_support.h"

using namespace nmt;

namespace {

using Strings = std::vector<std::string>;

Model segment_model() {
    return testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive), 61);
}

Strings sample_segments() {
    return {"the cat sat on the mat",
            "the cat sat on the mat. A dog runs in the park!  Bird sings?",
            "",
            "   ",
            "  dog\truns  ",
            "a bird\xC2\xA0sings in the park",
            "the dog runs. The cat sat. A bird sings. The mat."};
}

// Every non-space byte lies in exactly one word, words are in order, never
// empty, and hold no space.
void check_words_cover(const std::string& text, const std::vector<ByteSpan>& words) {
    CAPTURE(text);
    CHECK(words == text_words(text));
    std::vector<int> covered(text.size(), 0);
    size_t previous_end = 0;
    for (const auto& w : words) {
        REQUIRE(w.begin < w.end);
        REQUIRE(w.end <= text.size());
        CHECK(w.begin >= previous_end);
        previous_end = w.end;
        for (size_t b = w.begin; b < w.end; ++b) ++covered[b];
    }
    for (size_t b = 0; b < text.size(); ++b) {
        const char c = text[b];
        const bool nbsp = text.compare(b, 2, "\xC2\xA0") == 0 || (b > 0 && text.compare(b - 1, 2, "\xC2\xA0") == 0);
        const bool space = c == ' ' || c == '\t' || nbsp;
        CHECK(covered[b] == (space ? 0 : 1));
    }
}

void check_same(const SegmentTranslation& a, const SegmentTranslation& b) {
    CHECK(a.text == b.text);
    CHECK(a.source_words == b.source_words);
    CHECK(a.target_words == b.target_words);
    CHECK(a.links == b.links);
}

}  // namespace

TEST_CASE("model segment translator: words are the texts' non-space runs") {
    const std::string text = " a  bc\td\xC2\xA0" "e\xE2\x80\xAF" "f\xE2\x80\x89g h\xC3\xA9 ";
    const std::vector<ByteSpan> words = text_words(text);
    Strings found;
    for (const auto& w : words) found.push_back(text.substr(w.begin, w.end - w.begin));
    CHECK(found == Strings{"a", "bc", "d", "e", "f", "g", "h\xC3\xA9"});
    CHECK(text_words("").empty());
    CHECK(text_words(" \t ").empty());
}

TEST_CASE("model segment translator: word spans cover both texts and links stay inside them") {
    Model model = segment_model();
    Translator translator(model);
    TranslateOptions options;
    options.search.beam_size = 3;
    ModelSegmentTranslator segments(translator, options);
    const Strings input = sample_segments();
    const auto out = segments.translate(input);
    REQUIRE(out.size() == input.size());
    for (size_t i = 0; i < input.size(); ++i) {
        CAPTURE(i);
        check_words_cover(input[i], out[i].source_words);
        check_words_cover(out[i].text, out[i].target_words);
        for (const auto& [s, t] : out[i].links) {
            CHECK(s >= 0);
            CHECK(t >= 0);
            CHECK(size_t(s) < out[i].source_words.size());
            CHECK(size_t(t) < out[i].target_words.size());
        }
        for (size_t k = 1; k < out[i].links.size(); ++k) CHECK(out[i].links[k - 1] < out[i].links[k]);
        // A translation with words has links (hard alignment: one per target word).
        if (!out[i].target_words.empty() && !out[i].source_words.empty()) CHECK(!out[i].links.empty());
    }
    CHECK(out[2].text.empty());
    CHECK(out[2].source_words.empty());
    CHECK(out[3].text.empty());
    CHECK(out[3].target_words.empty());
}

TEST_CASE("model segment translator: a segment of sentences is their translations rejoined") {
    Model model = segment_model();
    Translator translator(model);
    TranslateOptions options;
    options.search.beam_size = 2;
    ModelSegmentTranslator segments(translator, options);
    const std::string first = "the cat sat on the mat.", second = "A dog runs in the park!";
    const auto joined = segments.translate({first + " \t" + second}).at(0);
    const auto apart = segments.translate({first, second});
    CHECK(joined.text == apart[0].text + " \t" + apart[1].text);
    CHECK(joined.target_words.size() == apart[0].target_words.size() + apart[1].target_words.size());
    CHECK(joined.source_words.size() == apart[0].source_words.size() + apart[1].source_words.size());
    // The second sentence's links, shifted past the first's words.
    const int s0 = static_cast<int>(apart[0].source_words.size()), t0 = static_cast<int>(apart[0].target_words.size());
    Links expected = apart[0].links;
    for (const auto& [s, t] : apart[1].links) expected.emplace_back(s + s0, t + t0);
    CHECK(joined.links == expected);
    // Without splitting, the segment goes to the model whole.
    ModelSegmentTranslator whole(translator, options, false);
    CHECK(whole.translate({first + " " + second}).at(0).text ==
          translator.translate({first + " " + second}, options).at(0).hypotheses.at(0).translation);
}

TEST_CASE("model segment translator: batched segments translate as one by one") {
    Model model = segment_model();
    Translator translator(model);
    TranslateOptions options;
    options.search.beam_size = 3;
    options.batch_size = 32;
    ModelSegmentTranslator batched(translator, options);
    const Strings input = sample_segments();
    const auto together = batched.translate(input);
    options.batch_size = 1;
    ModelSegmentTranslator single(translator, options);
    for (size_t i = 0; i < input.size(); ++i) {
        CAPTURE(i);
        check_same(together[i], single.translate({input[i]}).at(0));
    }
}

TEST_CASE("model segment translator: warnings name the segment of a cropped sentence") {
    Model model = segment_model();
    Translator translator(model);
    TranslateOptions options;
    options.search.beam_size = 1;
    ModelSegmentTranslator segments(translator, options);
    std::vector<std::string> warnings;
    segments.warn = [&](const std::string& w) { warnings.push_back(w); };
    std::string long_sentence = "The";
    for (int i = 0; i < 200; ++i) long_sentence += " cat";
    const auto out = segments.translate({"dog. Cat. Bird.", "the dog. " + long_sentence + "."});
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].rfind("segment 2: ", 0) == 0);
    // The cropped sentence's words are all there; its links still name them.
    check_words_cover("the dog. " + long_sentence + ".", out[1].source_words);
    for (const auto& [s, t] : out[1].links) CHECK(size_t(s) < out[1].source_words.size());
}
