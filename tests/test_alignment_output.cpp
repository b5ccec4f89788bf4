#include <doctest/doctest.h>

#include <numeric>
#include <string>
#include <vector>

#include "decode/alignment_output.h"
#include "decode/alignment_svg.h"

using namespace nmt;

namespace {

size_t count(const std::string& haystack, const std::string& needle) {
    size_t n = 0;
    for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
    return n;
}

// A small XML checker: every element closed in order, no raw '<' or '&' in
// text or attributes. Enough to catch an unescaped label or a missing tag.
bool well_formed(const std::string& xml) {
    std::vector<std::string> open;
    size_t i = 0;
    while (i < xml.size()) {
        if (xml[i] == '&') {
            const size_t semi = xml.find(';', i);
            if (semi == std::string::npos) return false;
            const std::string entity = xml.substr(i, semi + 1 - i);
            if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;") {
                return false;
            }
            i = semi + 1;
            continue;
        }
        if (xml[i] != '<') {
            ++i;
            continue;
        }
        const size_t close = xml.find('>', i);
        if (close == std::string::npos) return false;
        const std::string tag = xml.substr(i + 1, close - i - 1);
        if (tag.find('<') != std::string::npos) return false;
        if (count(tag, "\"") % 2 != 0) return false;
        if (tag[0] == '?') {
        } else if (tag[0] == '/') {
            if (open.empty() || open.back() != tag.substr(1)) return false;
            open.pop_back();
        } else if (tag.back() != '/') {
            open.push_back(tag.substr(0, tag.find(' ')));
        }
        i = close + 1;
    }
    return open.empty();
}

// "▁the ▁black ▁cat ▁sle eps </s>" → "▁le ▁chat ▁no ir ▁dort </s>".
// Sources: 0 the, 1 black, 2 cat, 3 sleeps (pieces 3, 4), 4 </s> (piece 5).
// Targets: 0 le, 1 chat, 2 noir (pieces 2, 3), 3 dort (piece 4), 4 </s> (piece 5).
TranslationResult cat_example() {
    TranslationResult r;
    r.source_pieces = {"▁the", "▁black", "▁cat", "▁sle", "eps", "</s>"};
    Hypothesis h;
    h.target_pieces = {"▁le", "▁chat", "▁no", "ir", "▁dort", "</s>"};
    h.target_ids = {10, 11, 12, 13, 14};
    h.translation = "le chat noir dort";
    h.score = -1.77f;
    h.normalized_score = -0.739f;
    h.attention = {
        {0.80f, 0.05f, 0.05f, 0.04f, 0.04f, 0.02f},  // le → the
        {0.05f, 0.10f, 0.70f, 0.05f, 0.05f, 0.05f},  // chat → cat
        {0.05f, 0.60f, 0.20f, 0.05f, 0.05f, 0.05f},  // no → black
        {0.05f, 0.40f, 0.05f, 0.10f, 0.10f, 0.30f},  // ir → black (0.40) ahead of sleeps (0.20)
        {0.02f, 0.03f, 0.05f, 0.45f, 0.40f, 0.05f},  // dort → sleeps (two pieces: 0.85)
        {0.05f, 0.05f, 0.05f, 0.05f, 0.05f, 0.75f},  // </s> → </s>
    };
    r.hypotheses.push_back(h);
    return r;
}

}  // namespace

TEST_CASE("group_words merges pieces after a word-start marker and keeps </s> alone") {
    const auto words = group_words({"▁un", "believ", "able", "▁story", "</s>"});
    REQUIRE(words.size() == 3);
    CHECK(words[0].text == "unbelievable");
    CHECK(words[0].first == 0);
    CHECK(words[0].count == 3);
    CHECK(words[1].text == "story");
    CHECK(words[1].first == 3);
    CHECK(words[2].text == "</s>");
    CHECK(words[2].end);
    CHECK_FALSE(words[0].end);

    // A first piece without a marker still starts a word; a lone marker is a word of its own.
    const auto odd = group_words({"ab", "c", "▁", ",", "▁x", "</s>"});
    CHECK(word_texts(odd) == std::vector<std::string>{"abc", ",", "x", "</s>"});
    CHECK(word_texts(group_words({"▁a", "▁", "</s>"})) == std::vector<std::string>{"a", "▁", "</s>"});
    // A word the user typed as "</s>" is text, not the end token.
    const auto typed = group_words({"▁</", "s", ">", "</s>"});
    REQUIRE(typed.size() == 2);
    CHECK(typed[0].text == "</s>");
    CHECK_FALSE(typed[0].end);
    CHECK(typed[1].end);
    CHECK(group_words({}).empty());
}

TEST_CASE("word_attention sums source pieces and averages target pieces") {
    const TranslationResult r = cat_example();
    const Hypothesis& h = r.hypotheses[0];
    const WordAttention w = word_attention(r.source_pieces, h.target_pieces, h.attention);
    CHECK(word_texts(w.source) == std::vector<std::string>{"the", "black", "cat", "sleeps", "</s>"});
    CHECK(word_texts(w.target) == std::vector<std::string>{"le", "chat", "noir", "dort", "</s>"});
    REQUIRE(w.weights.size() == 5);
    for (const auto& row : w.weights) {
        REQUIRE(row.size() == 5);
        CHECK(std::accumulate(row.begin(), row.end(), 0.0) == doctest::Approx(1.0).epsilon(1e-5));
    }
    // noir = mean of rows "▁no" and "ir"; sleeps = sum of columns "▁sle" and "eps".
    CHECK(w.weights[2][1] == doctest::Approx((0.60 + 0.40) / 2));
    CHECK(w.weights[2][3] == doctest::Approx((0.05 + 0.05 + 0.10 + 0.10) / 2));
    CHECK(w.weights[3][3] == doctest::Approx(0.85));
    CHECK(w.weights[0][0] == doctest::Approx(0.80));
}

TEST_CASE("word_attention rejects a matrix that does not match the pieces") {
    CHECK_THROWS_AS(word_attention({"▁a", "</s>"}, {"▁b", "</s>"}, {{0.5f, 0.5f}}), std::invalid_argument);
    CHECK_THROWS_AS(word_attention({"▁a", "</s>"}, {"</s>"}, {{1.0f}}), std::invalid_argument);
    // No attention kept: words, but no matrix and no links.
    const WordAttention w = word_attention({"▁a", "</s>"}, {"▁b", "</s>"}, {});
    CHECK(w.source.size() == 2);
    CHECK(w.weights.empty());
    CHECK(hard_alignment(w).empty());
}

TEST_CASE("hard_alignment: argmax source word per target word, </s> excluded, sorted") {
    const TranslationResult r = cat_example();
    const Hypothesis& h = r.hypotheses[0];
    const auto links = hard_alignment(word_attention(r.source_pieces, h.target_pieces, h.attention));
    // the-le, black-noir, cat-chat, sleeps-dort; "</s>" neither links nor is linked to.
    CHECK(pharaoh(links) == "0-0 1-2 2-1 3-3");

    // A word whose strongest column is "</s>" goes to its best real word instead.
    const WordAttention to_end = word_attention({"▁a", "▁b", "</s>"}, {"▁x", "</s>"},
                                                {{0.1f, 0.3f, 0.6f}, {0.2f, 0.2f, 0.6f}});
    CHECK(pharaoh(hard_alignment(to_end)) == "1-0");
    // Several target words on one source word, sorted by source then target.
    const WordAttention many = word_attention({"▁a", "▁b", "</s>"}, {"▁x", "▁y", "▁z", "</s>"},
                                              {{0.1f, 0.8f, 0.1f}, {0.8f, 0.1f, 0.1f}, {0.1f, 0.8f, 0.1f},
                                               {0.0f, 0.0f, 1.0f}});
    CHECK(pharaoh(hard_alignment(many)) == "0-1 1-0 1-2");
}

TEST_CASE("soft_alignment follows Marian: groups per target piece, commas within") {
    CHECK(soft_alignment({{0.25f, 0.75f}, {1.0f, 0.0f}}) == "0.2500,0.7500 1.0000,0.0000");
    CHECK(soft_alignment({}) == "");
}

TEST_CASE("alignment_json has every field, rounded to 4 decimals") {
    TranslationResult r = cat_example();
    r.hypotheses[0].attention[0][0] = 0.123456f;
    const nlohmann::json j = alignment_json(7, r, "the black cat sleeps");
    CHECK(j["id"] == 7);
    CHECK(j["source"] == "the black cat sleeps");
    CHECK(j["source_pieces"].size() == 6);
    CHECK(j["target_pieces"].back() == "</s>");
    CHECK(j["translation"] == "le chat noir dort");
    CHECK(j["score"].get<double>() == doctest::Approx(-1.77));
    CHECK(j["normalized_score"].get<double>() == doctest::Approx(-0.739));
    CHECK(j["attention"].size() == 6);
    CHECK(j["attention"][0].size() == 6);
    CHECK(j["attention"][0][0].get<double>() == 0.1235);
    CHECK(j["source_words"] == nlohmann::json({"the", "black", "cat", "sleeps", "</s>"}));
    CHECK(j["target_words"] == nlohmann::json({"le", "chat", "noir", "dort", "</s>"}));
    CHECK(j["word_attention"].size() == 5);
    CHECK(j["alignment"] == "0-0 1-2 2-1 3-3");
    CHECK_FALSE(j.contains("n_best"));
    // Rounding keeps the serialised numbers short.
    CHECK(j.dump().find("0.1235,") != std::string::npos);
    CHECK(j.dump().find("0.12345") == std::string::npos);
}

TEST_CASE("alignment_json lists the n-best hypotheses when there are several") {
    TranslationResult r = cat_example();
    Hypothesis second = r.hypotheses[0];
    second.translation = "le chat noir dort bien";
    second.score = -2.5f;
    r.hypotheses.push_back(second);
    const nlohmann::json j = alignment_json(0, r, "the black cat sleeps");
    REQUIRE(j.contains("n_best"));
    REQUIRE(j["n_best"].size() == 2);
    CHECK(j["n_best"][0]["translation"] == "le chat noir dort");
    CHECK(j["n_best"][1]["translation"] == "le chat noir dort bien");
    CHECK(j["n_best"][1]["score"].get<double>() == doctest::Approx(-2.5));
    CHECK(j["n_best"][1]["alignment"] == "0-0 1-2 2-1 3-3");
}

TEST_CASE("alignment_json of an empty line: same keys, empty lists") {
    auto check_empty = [](const nlohmann::json& j) {
        CHECK(j["id"] == 3);
        CHECK(j["source"] == "");
        CHECK(j["source_pieces"].empty());
        CHECK(j["translation"] == "");
        CHECK(j["source_words"].empty());
        CHECK(j["alignment"] == "");
        for (const char* key : {"target_pieces", "score", "attention", "target_words", "word_attention"}) {
            CHECK(j.contains(key));
        }
    };
    // With no hypothesis at all, and with one that only ends the sentence.
    check_empty(alignment_json(3, TranslationResult{}, ""));
    TranslationResult r;
    Hypothesis h;
    h.target_pieces = {"</s>"};
    h.attention = {{}};
    r.hypotheses.push_back(h);
    check_empty(alignment_json(3, r, ""));
}

TEST_CASE("nbest_line: Moses format, with Marian's optional alignment field") {
    const TranslationResult r = cat_example();
    CHECK(nbest_line(0, r.hypotheses[0]) == "0 ||| le chat noir dort ||| F0= -1.7700 ||| -0.7390");
    CHECK(nbest_line(12, r.hypotheses[0], std::string("0-0 1-2")) ==
          "12 ||| le chat noir dort ||| 0-0 1-2 ||| F0= -1.7700 ||| -0.7390");
    CHECK(nbest_line(1, Hypothesis{}) == "1 |||  ||| F0= 0.0000 ||| 0.0000");
}

TEST_CASE("alignment_svg: well-formed, escaped, one titled cell per weight") {
    const std::vector<std::string> source = {"the", "<b>&\"cat\"", "\xE4\xB8\xAD\xE6\x96\x87", "</s>"};
    const std::vector<std::string> target = {"le", "chat", "</s>"};
    const std::vector<std::vector<float>> weights = {
        {0.9f, 0.05f, 0.03f, 0.02f}, {0.1f, 0.87f, 0.02f, 0.01f}, {0.0f, 0.1f, 0.2f, 0.7f}};
    const std::string svg = alignment_svg(source, target, weights, "line 1 & <more>");

    CHECK(well_formed(svg));
    CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    CHECK(count(svg, "</rect>") == 12);               // cells are the only rects with a child
    CHECK(count(svg, "<title>") == 12 + 1);           // each cell, plus the document's
    CHECK(svg.find("&lt;b&gt;&amp;&quot;cat&quot; \xE2\x86\x92 chat: 0.87") != std::string::npos);
    CHECK(svg.find("line 1 &amp; &lt;more&gt;") != std::string::npos);
    CHECK(svg.find("<b>") == std::string::npos);
    CHECK(svg.find("\xE4\xB8\xAD\xE6\x96\x87") != std::string::npos);  // CJK kept as UTF-8
    CHECK(svg.find("sans-serif") != std::string::npos);
    // Values are printed only where the weight exceeds 0.3: 0.90, 0.87, 0.70.
    CHECK(count(svg, ">0.90</text>") == 1);
    CHECK(count(svg, ">0.87</text>") == 1);
    CHECK(count(svg, ">0.70</text>") == 1);
    CHECK(count(svg, ">0.20</text>") == 0);
}

TEST_CASE("alignment_svg: control bytes and invalid UTF-8 in labels still give valid XML") {
    const std::string svg = alignment_svg({std::string("a\0b", 3), "\xFF"}, {"x"}, {{0.5f, 0.5f}}, "");
    CHECK(well_formed(svg));
    CHECK(svg.find('\0') == std::string::npos);
    CHECK(svg.find("\xEF\xBF\xBD") != std::string::npos);
}

TEST_CASE("alignment_svg: a long label is shortened on the axis but whole on hover") {
    const std::string word = "Donaudampfschifffahrtsgesellschaftskapit\xC3\xA4n";
    const std::string svg = alignment_svg({word}, {"x"}, {{1.0f}}, "");
    CHECK(svg.find(">" + word + "</text>") == std::string::npos);
    CHECK(svg.find("\xE2\x80\xA6</text>") != std::string::npos);  // "…"
    CHECK(svg.find(word + " \xE2\x86\x92 x: 1.00") != std::string::npos);
}

TEST_CASE("alignment_svg: empty input gives a valid picture, and a bad shape is refused") {
    CHECK(well_formed(alignment_svg({}, {}, {}, "empty")));
    CHECK_THROWS_AS(alignment_svg({"a", "b"}, {"x"}, {{1.0f}}, ""), std::invalid_argument);
}
