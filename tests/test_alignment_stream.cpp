// nmt align's pieces: links from attention (argmax, threshold, shifted) and
// sentence pairs read from one or two inputs.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "align/alignment_stream.h"
#include "core/error.h"

using namespace nmt;

namespace {

// Source words "a b", target words "x y"; rows are the steps producing x, y
// and "</s>", over a, b and "</s>".
TranslationResult two_by_two() {
    TranslationResult result;
    result.source_pieces = {"\u2581a", "\u2581b", "</s>"};
    Hypothesis h;
    h.target_pieces = {"\u2581x", "\u2581y", "</s>"};
    h.attention = {{0.6f, 0.3f, 0.1f}, {0.25f, 0.65f, 0.1f}, {0.7f, 0.1f, 0.2f}};
    result.hypotheses.push_back(h);
    return result;
}

}  // namespace

TEST_CASE("alignment stream: links from attention by argmax, by threshold, and read one step late") {
    const TranslationResult result = two_by_two();
    CHECK(attention_links(result) == Links{{0, 0}, {1, 1}});
    LinkExtraction threshold;
    threshold.threshold = 0.3f;
    CHECK(attention_links(result, threshold) == Links{{0, 0}, {1, 0}, {1, 1}});
    threshold.threshold = 0.9f;
    CHECK(attention_links(result, threshold).empty());
    // Shifted: x reads the row of the step producing y, y the row of "</s>".
    LinkExtraction shifted;
    shifted.shifted = true;
    CHECK(attention_links(result, shifted) == Links{{0, 1}, {1, 0}});
    CHECK(attention_links(TranslationResult{}).empty());
}

TEST_CASE("alignment stream: links over the user's tokens, whatever SentencePiece's words are") {
    // Pieces "▁l", "'", "▁homme": SentencePiece sees two words; the user's
    // tokens "l'" "homme" cut them the same way, "l'homme" as one token.
    TranslationResult result;
    result.source_pieces = {"\u2581the", "\u2581man", "</s>"};
    Hypothesis h;
    h.target_pieces = {"\u2581l", "'", "\u2581homme", "</s>"};
    h.attention = {{0.9f, 0.05f, 0.05f}, {0.2f, 0.7f, 0.1f}, {0.1f, 0.8f, 0.1f}, {0.3f, 0.3f, 0.4f}};
    result.hypotheses.push_back(h);
    CHECK(attention_links(result) == Links{{0, 0}, {1, 1}});  // "l'" (mean 0.55, 0.375) to "the"

    PairWords words;
    words.source = token_words({"the", "man"}, {1, 1}, 2);
    words.target = token_words({"l'", "homme"}, {2, 1}, 3);
    CHECK(attention_links(result, {}, &words) == Links{{0, 0}, {1, 1}});
    // Pieces split differently: "l" alone, "'homme" one token.
    words.target = token_words({"l", "'homme"}, {1, 2}, 3);
    CHECK(attention_links(result, {}, &words) == Links{{0, 0}, {1, 1}});
    // A token with no pieces (cropped, or normalised away) has no link.
    words.target = token_words({"l'", "homme", "extra"}, {2, 1, 0}, 3);
    CHECK(attention_links(result, {}, &words) == Links{{0, 0}, {1, 1}});
    const WordAttention merged = merge_attention(words.source, words.target, h.attention);
    CHECK(merged.weights[2] == std::vector<float>{0, 0, 0});
    CHECK(merged.weights[0][0] == doctest::Approx(0.55));
    CHECK_THROWS_AS(token_words({"a", "b"}, {2, 2}, 3), std::invalid_argument);
}

TEST_CASE("alignment stream: pairs from two inputs or from '|||' lines, trimmed, with a line for every line") {
    std::istringstream sources("a dog\n\nthe cat\n"), targets("un chien\nrien\nle chat\n");
    LineReader source_reader(sources, "src"), target_reader(targets, "trg");
    PairReader two(source_reader, &target_reader, "src", "trg");
    std::string source, target;
    std::vector<std::string> warnings;
    REQUIRE(two.next(source, target, &warnings));
    CHECK((source == "a dog" && target == "un chien"));
    REQUIRE(two.next(source, target, &warnings));
    CHECK((source.empty() && target == "rien"));
    REQUIRE(two.next(source, target, &warnings));
    CHECK(!two.next(source, target, &warnings));
    CHECK(warnings.empty());

    std::istringstream lines("a dog ||| un chien\nno bars\n  the cat|||le chat  \n");
    LineReader line_reader(lines, "pairs");
    PairReader one(line_reader, nullptr, "pairs", "");
    REQUIRE(one.next(source, target, &warnings));
    CHECK((source == "a dog" && target == "un chien"));
    REQUIRE(one.next(source, target, &warnings));
    CHECK((source == "no bars" && target.empty()));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == "line 2: no ' ||| ' between source and target");
    REQUIRE(one.next(source, target, &warnings));
    CHECK((source == "the cat" && target == "le chat"));
    CHECK(one.line_number() == 3);

    std::istringstream longer("a\nb\n"), shorter("x\n");
    LineReader longer_reader(longer, "long"), shorter_reader(shorter, "short");
    PairReader uneven(longer_reader, &shorter_reader, "long", "short");
    REQUIRE(uneven.next(source, target, &warnings));
    CHECK_THROWS_WITH_AS(uneven.next(source, target, &warnings),
                         "short ends at line 1, before long: the two sides must have as many lines", Error);
}
