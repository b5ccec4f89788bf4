// BLEU and chrF against sacreBLEU's own expected values. The cases are ported
// from sacreBLEU's test suite (test/test_bleu.py, test/test_sentence_bleu.py,
// test/test_chrf.py, test/test.py) and README, as of sacreBLEU 2.x; each must
// agree to 0.01.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "eval/bleu.h"
#include "eval/chrf.h"
#include "core/error.h"
#include "eval/score_report.h"
#include "eval/score_tokenizers.h"
#include "test_support.h"

using namespace nmt;

namespace {

#define CHECK_CLOSE(actual, expected) CHECK(std::fabs((actual) - (expected)) < 0.01)

using Streams = std::vector<std::vector<std::string>>;

// README and test_bleu.py: three hypotheses, two reference streams.
const std::vector<std::string> kHyps = {"The dog bit the man.", "It wasn't surprising.",
                                        "The man had just bitten him."};
const Streams kRefs = {
    {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
    {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."},
};

// sacreBLEU's raw_corpus_bleu: no tokenization, floor smoothing, effective order.
BleuOptions raw_options(double floor_value) {
    BleuOptions options;
    options.tokenizer = BleuTokenizer::none;
    options.smooth = BleuSmooth::floor;
    options.smooth_value = floor_value;
    options.effective_order = true;
    return options;
}

BleuStats make_stats(std::vector<int64_t> correct, std::vector<int64_t> total, int64_t sys_len, int64_t ref_len) {
    BleuStats stats;
    stats.correct = std::move(correct);
    stats.total = std::move(total);
    stats.sys_len = sys_len;
    stats.ref_len = ref_len;
    return stats;
}

std::string tok13a(const std::string& line) { return u32_to_utf8(tokenize_13a(utf8_to_u32(line, "test"))); }
std::string tokintl(const std::string& line) { return u32_to_utf8(tokenize_intl(utf8_to_u32(line, "test"))); }
std::string lower(const std::string& line) { return u32_to_utf8(python_lower(utf8_to_u32(line, "test"))); }

}  // namespace

TEST_CASE("score: README corpus BLEU with two references") {
    BleuScore score = corpus_bleu(kHyps, kRefs, BleuOptions{});
    CHECK_CLOSE(score.score, 48.530827);
    CHECK(bleu_verbose(score) == "82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)");
    CHECK(bleu_signature(BleuOptions{}, nrefs_signature(kRefs)) ==
          std::string("nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:") + kSacrebleuVersion);
}

TEST_CASE("score: README variable number of references") {
    Streams refs = kRefs;
    refs[0][0] = "";  // the first segment has only the second reference
    BleuScore score = corpus_bleu(kHyps, refs, BleuOptions{});
    CHECK_CLOSE(score.score, 29.44);
    CHECK(bleu_verbose(score) == "82.4/42.9/27.3/12.5 (BP = 0.889 ratio = 0.895 hyp_len = 17 ref_len = 19)");
    CHECK(nrefs_signature(refs) == "var");
}

TEST_CASE("score: corpus BLEU per tokenizer and smoothing (test_bleu.py)") {
    BleuOptions options;
    CHECK_CLOSE(corpus_bleu(kHyps, kRefs, options).score, 48.530827);
    CHECK_CLOSE(corpus_bleu({"", "", ""}, kRefs, options).score, 0.0);
    options.tokenizer = BleuTokenizer::none;
    CHECK_CLOSE(corpus_bleu(kHyps, kRefs, options).score, 49.1919566);
    options.tokenizer = BleuTokenizer::intl;
    CHECK_CLOSE(corpus_bleu(kHyps, kRefs, options).score, 43.91623493);
    options.tokenizer = BleuTokenizer::v13a;
    options.smooth = BleuSmooth::none;
    CHECK_CLOSE(corpus_bleu(kHyps, kRefs, options).score, 48.530827);
}

TEST_CASE("score: BLEU max n-gram order (test_bleu.py)") {
    const double expected[] = {77.65, 60.50, 53.93, 48.53, 46.14, 43.28};
    for (int order = 1; order <= 6; ++order) {
        BleuOptions options;
        options.max_ngram_order = order;
        CAPTURE(order);
        CHECK_CLOSE(corpus_bleu(kHyps, kRefs, options).score, expected[order - 1]);
    }
}

TEST_CASE("score: raw corpus BLEU (test_bleu.py)") {
    // No n-gram matches at all give 0 whatever the smoothing (sacreBLEU #141).
    CHECK_CLOSE(corpus_bleu({"this is a test", "another test"}, {{"ref1", "ref2"}}, raw_options(0.01)).score, 0.0);
    CHECK_CLOSE(corpus_bleu({"this is a test"}, {{"this is a test"}}, raw_options(0.01)).score, 100.0);
    CHECK_CLOSE(corpus_bleu({"this is a fest"}, {{"this is a test"}}, raw_options(0.01)).score, 22.3606797749979);
}

TEST_CASE("score: BLEU effective order (test_bleu.py)") {
    CHECK_CLOSE(corpus_bleu({"test"}, {{"a test"}}, raw_options(0.01)).score, 36.78794411714425);
    CHECK_CLOSE(corpus_bleu({"a test"}, {{"a test"}}, raw_options(0.01)).score, 100.0);
    CHECK_CLOSE(corpus_bleu({"a little test"}, {{"a test"}}, raw_options(0.01)).score, 3.218297948685433);
}

TEST_CASE("score: BLEU statistics and floor offset (test_bleu.py)") {
    const std::vector<std::string> hyp = {"am I am a character sequence"};
    const Streams ref = {{"I am a symbol string sequence a a"}};
    BleuScore score = corpus_bleu(hyp, ref, raw_options(0.01));
    CHECK(score.counts == std::vector<double>{4, 2, 1, 0});
    CHECK(score.totals == std::vector<double>{6, 5, 4, 3});

    CHECK_CLOSE(corpus_bleu(hyp, ref, raw_options(0.0)).score, 0.0);
    BleuOptions default_floor = raw_options(0.0);
    default_floor.smooth_value.reset();  // sacreBLEU's default floor, 0.1
    CHECK_CLOSE(corpus_bleu(hyp, ref, default_floor).score, 15.55722182);
}

TEST_CASE("score: BLEU from statistics (test_bleu.py)") {
    BleuOptions none;
    none.smooth = BleuSmooth::none;
    CHECK_CLOSE(compute_bleu(make_stats({9, 7, 5, 3}, {10, 8, 6, 4}, 11, 11), none).score, 83.75922397);

    struct Degenerate {
        BleuStats stats;
        double offset;
    };
    const Degenerate cases[] = {
        {make_stats({0, 0, 0, 0}, {4, 4, 2, 1}, 0, 1), 0.0},
        {make_stats({0, 0, 0, 0}, {10, 11, 12, 0}, 14, 10), 0.0},
        {make_stats({0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0), 0.0},
        {make_stats({6, 5, 4, 0}, {6, 5, 4, 3}, 6, 6), 0.0},
        {make_stats({0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0), 0.1},
        {make_stats({0, 0, 0, 0}, {0, 0, 0, 0}, 1, 5), 0.01},
    };
    for (const auto& c : cases) {
        BleuOptions floor;
        floor.smooth = BleuSmooth::floor;
        floor.smooth_value = c.offset;
        CHECK(compute_bleu(c.stats, floor).score == 0.0);
    }
}

TEST_CASE("score: sentence BLEU smoothing and tokenizers (test_sentence_bleu.py)") {
    const std::string ref = "producţia de zahăr brut se exprimă în zahăr alb;";
    const std::string sys = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;";
    struct Case {
        BleuSmooth smooth;
        std::optional<double> value;
        BleuTokenizer tokenizer;
        double expected;
    };
    const Case cases[] = {
        {BleuSmooth::exp, std::nullopt, BleuTokenizer::v13a, 8.493},
        {BleuSmooth::none, std::nullopt, BleuTokenizer::v13a, 0.0},
        {BleuSmooth::floor, std::nullopt, BleuTokenizer::v13a, 4.51688},
        {BleuSmooth::floor, 0.1, BleuTokenizer::v13a, 4.51688},
        {BleuSmooth::floor, 0.5, BleuTokenizer::v13a, 10.10},
        {BleuSmooth::add_k, std::nullopt, BleuTokenizer::v13a, 14.882},
        {BleuSmooth::add_k, 1.0, BleuTokenizer::v13a, 14.882},
        {BleuSmooth::add_k, 2.0, BleuTokenizer::v13a, 21.389},
        {BleuSmooth::exp, std::nullopt, BleuTokenizer::none, 7.347},
        {BleuSmooth::exp, std::nullopt, BleuTokenizer::intl, 8.493},
    };
    for (const auto& c : cases) {
        BleuOptions options;
        options.smooth = c.smooth;
        options.smooth_value = c.value;
        options.tokenizer = c.tokenizer;
        options.effective_order = true;
        CAPTURE(c.expected);
        CHECK_CLOSE(sentence_bleu(sys, {ref}, options).score, c.expected);
    }

    // No match at all stays 0 under every smoothing (sacreBLEU #141).
    for (BleuSmooth smooth : {BleuSmooth::exp, BleuSmooth::none, BleuSmooth::floor, BleuSmooth::add_k}) {
        BleuOptions options;
        options.smooth = smooth;
        options.effective_order = true;
        CHECK(sentence_bleu("this is a cat", {"okay thanks"}, options).score == 0.0);
    }
}

TEST_CASE("score: README corpus chrF") {
    ChrfOptions options;
    CHECK_CLOSE(corpus_chrf(kHyps, kRefs, options), 59.73);
    CHECK(chrf_name(options) == "chrF2");
    CHECK(chrf_signature(options, "1") ==
          std::string("nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:") + kSacrebleuVersion);
}

TEST_CASE("score: chrF with epsilon smoothing, beta 3 (test_chrf.py)") {
    struct Case {
        std::vector<std::string> hyps, refs;
        double expected;
    };
    const Case cases[] = {
        {{"abcdefg"}, {"hijklmnop"}, 0.0},
        {{"a"}, {"b"}, 0.0},
        {{""}, {"b"}, 0.0},
        {{""}, {"ref"}, 0.0},
        {{""}, {"reference"}, 0.0},
        {{"aa"}, {"ab"}, 8.3333},
        {{"a", "b"}, {"a", "c"}, 8.3333},
        {{"a"}, {"a"}, 16.6667},
        {{"a b c"}, {"a b c"}, 50.0},
        {{"a b c"}, {"abc"}, 50.0},
        {{" risk assessment must be made of those who are qualified and expertise in the sector - these are the "
          "scientists ."},
         {"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the "
          "scientists ."},
         63.361730},
        {{" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "},
         {"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."},
         64.1302698},
        {{"Niemand hat die Absicht, eine Mauer zu errichten"},
         {"Niemand hat die Absicht, eine Mauer zu errichten"},
         100.0},
    };
    ChrfOptions options;
    options.beta = 3;
    options.eps_smoothing = true;
    for (const auto& c : cases) {
        CAPTURE(c.expected);
        CHECK_CLOSE(corpus_chrf(c.hyps, {c.refs}, options), c.expected);
    }
}

TEST_CASE("score: chrF effective order, beta 3 (test_chrf.py)") {
    struct Case {
        std::vector<std::string> hyps, refs;
        double expected;
    };
    const Case cases[] = {
        {{"a"}, {"a"}, 100.0},       {{""}, {"reference"}, 0.0}, {{"a b c"}, {"a b c"}, 100.0},
        {{"a b c"}, {"abc"}, 100.0}, {{""}, {"c"}, 0.0},         {{"a", "b"}, {"a", "c"}, 50.0},
        {{"aa"}, {"ab"}, 25.0},
    };
    ChrfOptions options;
    options.beta = 3;
    for (const auto& c : cases) {
        CAPTURE(c.expected);
        CHECK_CLOSE(corpus_chrf(c.hyps, {c.refs}, options), c.expected);
    }
}

TEST_CASE("score: chrF keeping whitespace, beta 3 (test_chrf.py)") {
    ChrfOptions options;
    options.beta = 3;
    options.whitespace = true;
    CHECK_CLOSE(corpus_chrf({"Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."},
                            {{"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."}},
                            options),
                67.3481606);
    CHECK_CLOSE(corpus_chrf({"risk assessment must be made of those who are qualified and expertise in the sector - "
                             "these are the scientists ."},
                            {{"risk assessment has to be undertaken by those who are qualified and expert in that "
                              "area - that is the scientists ."}},
                            options),
                65.2414427);
}

TEST_CASE("score: sentence chrF with epsilon smoothing (test_chrf.py)") {
    ChrfOptions options;
    options.eps_smoothing = true;
    CHECK_CLOSE(sentence_chrf("Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
                              {"Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."},
                              options),
                39.14078509);
    CHECK_CLOSE(sentence_chrf("Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
                              {"A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."}, options),
                31.22557079);
    CHECK_CLOSE(sentence_chrf("Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
                              {"Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli."},
                              options),
                57.15704367);
}

TEST_CASE("score: chrF order 3 and 6 edge cases (test.py)") {
    ChrfOptions options;
    options.beta = 3;
    CHECK_CLOSE(corpus_chrf({"Consistency is the last refuge of the unimaginative"},
                            {{"Consistency is the last refuge of the unimaginative"}}, options),
                100.0);
    CHECK_CLOSE(corpus_chrf({""}, {{"A"}}, options), 0.0);
    CHECK_CLOSE(corpus_chrf({"A"}, {{""}}, options), 0.0);
    CHECK_CLOSE(corpus_chrf({"AA"}, {{"AB"}}, options), 25.0);
    CHECK_CLOSE(corpus_chrf({"A"}, {{"A"}}, options), 100.0);
    CHECK_CLOSE(corpus_chrf({" risk assessment must be made of those who are qualified and expertise in the sector - "
                             "these are the scientists ."},
                            {{"risk assessment has to be undertaken by those who are qualified and expert in that "
                              "area - that is the scientists ."}},
                            options),
                63.362);
    options.char_order = 3;
    CHECK_CLOSE(corpus_chrf({"BBBB"}, {{"AAAAAA"}}, options), 0.0);
}

// The expectations below were checked against sacreBLEU's tokenizer code
// (tokenizer_13a.py, tokenizer_re.py, tokenizer_intl.py) run in Python.
TEST_CASE("score: 13a tokenizer") {
    CHECK(tok13a("Hello, world! (It's 3.14, isn't it?)") == "Hello , world ! ( It's 3.14 , isn't it ? )");
    CHECK(tok13a("&quot;Hi&quot; &amp;lt; &amp;quot; &gt;") == "\" Hi \" < & quot ; >");
    CHECK(tok13a("a <skipped> b") == "a b");
    CHECK(tok13a("wait-\nthere\nhere") == "waitthere here");
    CHECK(tok13a("1,000.50 and 5-6 or a-b; end.") == "1,000.50 and 5 - 6 or a-b ; end .");
    CHECK(tok13a("U.S. e.g.,x") == "U . S . e . g . , x");
    CHECK(tok13a("\u00a0 spaced\u3000out ") == "spaced out");
}

TEST_CASE("score: intl tokenizer") {
    CHECK(tokintl("„Zitat“ — 1.000,50 € und 5%.") == "„ Zitat “ — 1.000,50 € und 5 % .");
    CHECK(tokintl("in 1990.") == "in 1990.");  // mteval-v14's quirk, kept by sacreBLEU
    CHECK(tokintl("日本語、テスト。") == "日本語 、 テスト 。");
    CHECK(tokintl("a+b=c 😀") == "a + b = c 😀");
}

TEST_CASE("score: lowercasing follows Python's str.lower") {
    CHECK(lower("ΣΑΣ Σ ΑΣ.") == "σας σ ας.");
    CHECK(lower("İstanbul STRASSE ǅ") == "i̇stanbul strasse ǆ");
    BleuOptions options;
    options.lowercase = true;
    options.effective_order = true;
    CHECK_CLOSE(sentence_bleu("THE DOG", {"the dog"}, options).score, 100.0);
    CHECK(bleu_signature(options, "1").find("case:lc|eff:yes") != std::string::npos);
}

TEST_CASE("score: chrF counts characters, not bytes") {
    // "é" is two bytes in UTF-8 but one character: "éa" vs "éb" share one
    // of two unigrams and none of their single bigram, so P = R = 1/4.
    ChrfOptions options;
    CHECK_CLOSE(sentence_chrf("éa", {"éb"}, options), 25.0);
    CHECK_THROWS_AS(sentence_chrf("\xff", {"a"}, options), Error);
}

TEST_CASE("score: empty lines score instead of aborting") {
    // sacreBLEU aborts on an empty reference; we score it as empty.
    BleuScore bleu = corpus_bleu({"a b", ""}, {{"", ""}}, BleuOptions{});
    CHECK(bleu.score == 0.0);
    CHECK(bleu.sys_len == 2);
    CHECK(bleu.ref_len == 0);
    CHECK(corpus_chrf({"a b", ""}, {{"", ""}}, ChrfOptions{}) == 0.0);
    CHECK(nrefs_signature({{"", ""}}) == "1");
    CHECK(corpus_bleu({}, {{}}, BleuOptions{}).score == 0.0);
}

namespace {

// Lines written to a file of the report tests' temporary directory; returns its path.
std::string write_lines(const std::string& name, const std::vector<std::string>& lines) {
    const std::string path = testing::temp_path("score_report", name).string();
    std::ofstream out(path);
    for (const auto& line : lines) out << line << "\n";
    return path;
}

std::string report(const ScoreSettings& settings) {
    std::ostringstream out;
    write_score_report(settings, out);
    return out.str();
}

}  // namespace

// The whole report as sacreBLEU's README prints it for the same files: several
// metrics right-aligned on their " = " (BLEU's signature is two characters
// shorter), scores to one decimal.
TEST_CASE("score: the report reads the files and prints sacreBLEU's lines") {
    ScoreSettings settings;
    settings.input = write_lines("hyps.txt", kHyps);
    settings.references = {write_lines("ref1.txt", kRefs[0]), write_lines("ref2.txt", kRefs[1])};
    const std::string version = kSacrebleuVersion;
    CHECK(report(settings) ==
          "  BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:" + version +
              " = 48.5 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)\n"
              "chrF2|nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:" + version + " = 59.7\n");

    settings.metrics = {"bleu"};
    settings.score_only = true;
    settings.width = 2;
    CHECK(report(settings) == "48.53\n");

    settings.score_only = false;
    settings.json = true;
    const auto json = nlohmann::json::parse(report(settings));
    CHECK(json["name"] == "BLEU");
    CHECK(json["score"] == 48.53);
    CHECK(json["tok"] == "13a");
    CHECK(json["verbose_score"] == "82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)");

    settings.json = false;
    settings.sentence = true;
    settings.score_only = true;
    settings.metrics = {"bleu", "chrf"};
    const std::string lines = report(settings);
    CHECK(std::count(lines.begin(), lines.end(), '\n') == 3);  // one line per hypothesis
    CHECK(lines.substr(0, lines.find('\n')) == "100.00\t100.00");  // the first is one of its references
}

TEST_CASE("score: the report refuses mismatched files and unknown metrics, naming them") {
    ScoreSettings settings;
    settings.input = write_lines("two.txt", {"a", "b"});
    settings.references = {write_lines("three.txt", {"a", "b", "c"})};
    CHECK(testing::error_of([&] { report(settings); }).find("two.txt has 2 lines but") != std::string::npos);
    settings.references = {write_lines("two_refs.txt", {"a", "b"})};
    settings.metrics = {"ter"};
    CHECK(testing::error_of([&] { report(settings); }) == "metrics: unknown metric 'ter' (expected bleu, chrf or both)");
}

TEST_CASE("score: the alignment report counts sure and possible links over the file") {
    ScoreSettings settings;
    settings.aer = true;
    // Sure 0-0, possible 1-1: links {0-0, 1-1} are perfect; {0-1} has precision 0, recall 0.
    settings.input = write_lines("links.txt", {"0-0 1-1", "0-1"});
    settings.references = {write_lines("gold.txt", {"0-0 1?1", "0-0"})};
    // Over the file: |A| = 3, |S| = 2, |A∩S| = 1, |A∩P| = 2 (P includes S): AER = 1 − (2 + 1) / 5 = 40%.
    CHECK(report(settings) == "AER = 40.0 (precision 66.7, recall 50.0; 2 sentences)\n");
}
