// Lines translated sentence by sentence: what the translator is given, the
// merged result (pieces, scores, block-diagonal attention), and that a line's
// translation is its sentences' translations rejoined.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "decode/alignment_output.h"
#include "decode/sentence_translation.h"
#include "test_support.h"

using namespace nmt;

namespace {

using Strings = std::vector<std::string>;
using Matrix = std::vector<std::vector<float>>;

TranslationResult result(Strings source, Strings target, std::string translation, float score, Matrix attention) {
    TranslationResult r;
    r.source_pieces = std::move(source);
    Hypothesis h;
    for (size_t t = 0; t < target.size(); ++t)
        if (target[t] != kEndToken) h.target_ids.push_back(static_cast<int>(10 + t));
    h.target_pieces = std::move(target);
    h.translation = std::move(translation);
    h.score = score;
    h.normalized_score = score / 2;
    h.attention = std::move(attention);
    r.hypotheses.push_back(std::move(h));
    return r;
}

void check_rows_sum_to_one(const Matrix& attention) {
    for (size_t t = 0; t < attention.size(); ++t) {
        CAPTURE(t);
        double sum = 0;
        for (float w : attention[t]) sum += w;
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
}

}  // namespace

TEST_CASE("sentence translation: merging two sentences' results") {
    const TranslationResult a = result({"\xE2\x96\x81Hello", ".", "</s>"}, {"\xE2\x96\x81" "Bonjour", ".", "</s>"},
                                       "Bonjour.", -1.5f, {{0.7f, 0.2f, 0.1f}, {0.1f, 0.6f, 0.3f}, {0.0f, 0.5f, 0.5f}});
    const TranslationResult b = result({"\xE2\x96\x81World", "</s>"}, {"\xE2\x96\x81Monde", "</s>"}, "Monde", -0.5f,
                                       {{0.9f, 0.1f}, {0.25f, 0.75f}});
    const TranslationResult merged = merge_translation_results({a, b}, {"  "});
    CHECK(merged.source_pieces == Strings{"\xE2\x96\x81Hello", ".", "\xE2\x96\x81World", "</s>"});
    REQUIRE(merged.hypotheses.size() == 1);
    const Hypothesis& h = merged.hypotheses[0];
    CHECK(h.target_pieces == Strings{"\xE2\x96\x81" "Bonjour", ".", "\xE2\x96\x81Monde", "</s>"});
    CHECK(h.target_ids == std::vector<int>{10, 11, 10});
    CHECK(h.translation == "Bonjour.  Monde");
    CHECK(h.score == doctest::Approx(-2.0));
    CHECK(h.normalized_score == doctest::Approx(-1.0));
    // Sentence 1's "</s>" row is dropped and its "</s>" column folded into ".".
    const Matrix expected = {{0.7f, 0.3f, 0.0f, 0.0f},
                             {0.1f, 0.9f, 0.0f, 0.0f},
                             {0.0f, 0.0f, 0.9f, 0.1f},
                             {0.0f, 0.0f, 0.25f, 0.75f}};
    REQUIRE(h.attention.size() == expected.size());
    for (size_t t = 0; t < expected.size(); ++t) {
        REQUIRE(h.attention[t].size() == expected[t].size());
        for (size_t j = 0; j < expected[t].size(); ++j) CHECK(h.attention[t][j] == doctest::Approx(expected[t][j]));
    }
    check_rows_sum_to_one(h.attention);
    // The printers accept it as one sentence's result.
    const WordAttention words = word_attention(merged.source_pieces, h.target_pieces, h.attention);
    CHECK(word_texts(words.source) == Strings{"Hello.", "World", "</s>"});
    CHECK(pharaoh(hard_alignment(words)) == "0-0 1-1");

    SUBCASE("without attention") {
        const TranslationResult plain = merge_translation_results({a, b}, {"  "}, false);
        CHECK(plain.hypotheses.at(0).attention.empty());
        CHECK(plain.hypotheses.at(0).translation == "Bonjour.  Monde");
    }
}

TEST_CASE("sentence translation: merging odd cases") {
    const TranslationResult a = result({"\xE2\x96\x81" "a", "</s>"}, {"\xE2\x96\x81x", "</s>"}, "x", -1, {{0.5f, 0.5f}, {0.2f, 0.8f}});
    // A hypothesis cut at the maximum length has no "</s>": nothing is dropped from it.
    const TranslationResult cut = result({"\xE2\x96\x81" "b", "</s>"}, {"\xE2\x96\x81y", "\xE2\x96\x81y"}, "y y", -3,
                                         {{0.4f, 0.6f}, {1.0f, 0.0f}});
    TranslationResult nothing;  // a sentence with nothing to translate

    SUBCASE("a cut hypothesis keeps all its pieces") {
        const TranslationResult m = merge_translation_results({cut, a}, {" "});
        CHECK(m.hypotheses[0].target_pieces == Strings{"\xE2\x96\x81y", "\xE2\x96\x81y", "\xE2\x96\x81x", "</s>"});
        CHECK(m.hypotheses[0].attention[0] == std::vector<float>{1.0f, 0.0f, 0.0f});
        CHECK(m.hypotheses[0].attention[3] == std::vector<float>{0.0f, 0.2f, 0.8f});
        check_rows_sum_to_one(m.hypotheses[0].attention);
    }
    SUBCASE("an empty sentence adds only its separators; the last real one keeps its </s>") {
        const TranslationResult m = merge_translation_results({a, nothing, a, nothing}, {"1", "2", "3"});
        CHECK(m.hypotheses[0].translation == "x12x3");
        CHECK(m.source_pieces == Strings{"\xE2\x96\x81" "a", "\xE2\x96\x81" "a", "</s>"});
        CHECK(m.hypotheses[0].target_pieces == Strings{"\xE2\x96\x81x", "\xE2\x96\x81x", "</s>"});
        check_rows_sum_to_one(m.hypotheses[0].attention);
    }
    SUBCASE("a single sentence comes back unchanged, n-best list and all") {
        TranslationResult two = a;
        two.hypotheses.push_back(cut.hypotheses[0]);
        const TranslationResult m = merge_translation_results({two}, {});
        CHECK(m.hypotheses.size() == 2);
        CHECK(m.source_pieces == two.source_pieces);
    }
    SUBCASE("a result without attention gives a merged result without attention") {
        TranslationResult bare = a;
        bare.hypotheses[0].attention.clear();
        CHECK(merge_translation_results({a, bare}, {" "}).hypotheses[0].attention.empty());
    }
    SUBCASE("wrong counts and shapes are errors") {
        CHECK_THROWS_AS(merge_translation_results({a, a}, {}), std::invalid_argument);
        CHECK_THROWS_AS(merge_translation_results({}, {}), std::invalid_argument);
        TranslationResult bad = a;
        bad.hypotheses[0].attention[0].pop_back();
        CHECK_THROWS_AS(merge_translation_results({a, bad}, {" "}), std::invalid_argument);
    }
}

TEST_CASE("sentence translation: what the translator is given for a line") {
    const LineSentences two = line_sentences("  The cat sat.   A dog ran!  ", true);
    CHECK(two.sentences == Strings{"The cat sat.", "A dog ran!"});
    CHECK(two.separators == Strings{"   "});
    // One sentence, no sentence, or splitting off: the line itself, untouched.
    CHECK(line_sentences("  The cat sat.  ", true).sentences == Strings{"  The cat sat.  "});
    CHECK(line_sentences("", true).sentences == Strings{""});
    CHECK(line_sentences(" \t ", true).sentences == Strings{" \t "});
    CHECK(line_sentences("The cat sat. A dog ran!", false).sentences == Strings{"The cat sat. A dog ran!"});
    CHECK(line_sentences("The cat sat. A dog ran!", false).separators.empty());

    // Past kMaxSentencesPerLine the rest of the line stays with the last sentence.
    std::string line;
    for (size_t k = 0; k < kMaxSentencesPerLine + 10; ++k) line += "Sentence " + std::to_string(k) + ". ";
    const LineSentences many = line_sentences(line, true);
    REQUIRE(many.sentences.size() == kMaxSentencesPerLine);
    CHECK(many.separators.size() == kMaxSentencesPerLine - 1);
    CHECK(many.sentences[0] == "Sentence 0.");
    const std::string& rest = many.sentences.back();
    CHECK(rest.rfind("Sentence " + std::to_string(kMaxSentencesPerLine - 1) + ". ", 0) == 0);
    CHECK(rest.size() > 20);
    CHECK(rest.substr(rest.size() - 12) == "Sentence 73.");
}

TEST_CASE("sentence translation: a line of two sentences translates as the two sentences joined") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive), 81);
    Translator translator(model);
    TranslateOptions options;
    options.search.beam_size = 3;
    const std::string first = "the cat sat on the mat.", second = "A dog runs in the park!";
    const std::vector<LineSentences> lines = {line_sentences("dog sings", true),
                                              line_sentences(first + " \t" + second, true), line_sentences("", true)};
    REQUIRE(lines[1].sentences == Strings{first, second});

    const auto translations = translate_lines(translator, lines, options);
    REQUIRE(translations.size() == 3);
    // Each sentence in a call of its own, as if it had been a line.
    std::vector<TranslationResult> separately;
    for (const std::string& text : Strings{"dog sings", first, second, ""})
        separately.push_back(translator.translate({text}, options).at(0));
    const TranslationResult merged = merge_translation_results(translations[1].sentences, translations[1].separators);

    REQUIRE(merged.hypotheses.size() == 1);
    const Hypothesis& h = merged.hypotheses[0];
    CHECK(h.translation == separately[1].hypotheses[0].translation + " \t" + separately[2].hypotheses[0].translation);
    CHECK(h.score == doctest::Approx(separately[1].hypotheses[0].score + separately[2].hypotheses[0].score));
    CHECK(merged.source_pieces.size() == separately[1].source_pieces.size() + separately[2].source_pieces.size() - 1);
    CHECK(merged.source_pieces.back() == kEndToken);
    REQUIRE(h.attention.size() == h.target_pieces.size());
    for (const auto& row : h.attention) REQUIRE(row.size() == merged.source_pieces.size());
    check_rows_sum_to_one(h.attention);
    // Lines of one sentence (or none) are translated as they were.
    const TranslationResult single = merge_translation_results(translations[0].sentences, translations[0].separators);
    CHECK(single.hypotheses.at(0).translation == separately[0].hypotheses.at(0).translation);
    CHECK(merge_translation_results(translations[2].sentences, translations[2].separators).hypotheses.empty());
}

TEST_CASE("sentence translation: warnings name the input line a sentence came from") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive), 91);
    Translator translator(model);
    std::string long_sentence = "The";
    for (int i = 0; i < 200; ++i) long_sentence += " cat";
    const std::vector<LineSentences> lines = {line_sentences("dog. Cat. Bird.", true),
                                              line_sentences("the dog. " + long_sentence + ".", true)};
    REQUIRE(lines[0].sentences.size() == 3);
    REQUIRE(lines[1].sentences.size() == 2);
    std::vector<std::string> warnings;
    TranslateOptions options;
    options.search.beam_size = 1;
    const auto translations = translate_lines(translator, lines, options, &warnings, 10);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].rfind("line 11: ", 0) == 0);
    CHECK(warnings[0].find("cropped") != std::string::npos);
    CHECK(translations[1].sentences.at(1).source_pieces.size() == size_t(model.config.max_source_pieces));
}
