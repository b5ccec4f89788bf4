// SubRip subtitles through fake translators: reading and writing back byte
// for byte, numbers and timings kept, cue lines re-wrapped, sentences that
// run across cues translated together and cut back at the aligned word,
// dialogue lines apart, and blocks that are not cues copied with a warning.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fake_segment_translator.h"
#include "formats/srt_subtitles.h"

using namespace nmt;

namespace {

using Strings = std::vector<std::string>;

// Each word upper-cased, in order, linked one to one: where a cue's words go
// is exactly where they were.
class UppercaseTranslator : public SegmentTranslator {
public:
    std::vector<Strings> seen;
    std::vector<SegmentTranslation> translate(const Strings& segments) override {
        seen.push_back(segments);
        std::vector<SegmentTranslation> out;
        for (const auto& segment : segments) {
            SegmentTranslation r = testing::ReversingTranslator::reverse(segment);
            const int n = static_cast<int>(r.source_words.size());
            r.text.clear();
            r.target_words.clear();
            r.links.clear();
            for (int w = 0; w < n; ++w) {
                if (w > 0) r.text += ' ';
                const size_t begin = r.text.size();
                for (size_t b = r.source_words[w].begin; b < r.source_words[w].end; ++b)
                    r.text += static_cast<char>(std::toupper(static_cast<unsigned char>(segment[b])));
                r.target_words.push_back({begin, r.text.size()});
                r.links.emplace_back(w, w);
            }
            out.push_back(std::move(r));
        }
        return out;
    }
};

// One fixed French translation whatever the input: "Amuse-toi bien !"
// with a no-break space before "!", its words linked to "Have" and "fun".
class FixedTranslator : public SegmentTranslator {
public:
    std::vector<SegmentTranslation> translate(const Strings& segments) override {
        std::vector<SegmentTranslation> out;
        for (const auto& segment : segments) {
            SegmentTranslation r = testing::ReversingTranslator::reverse(segment);
            r.text = "Amuse-toi bien\xC2\xA0!";
            r.target_words = {{0, 9}, {10, 14}, {16, 17}};
            r.links = {{0, 0}, {1, 1}, {1, 2}};
            out.push_back(std::move(r));
        }
        return out;
    }
};

std::string translate(SegmentTranslator& translator, const std::string& text, Strings* warnings = nullptr) {
    DocumentOptions options;
    options.target_language = "fr";
    if (warnings) options.warn = [warnings](const std::string& w) { warnings->push_back(w); };
    return translate_srt(text, "test.srt", translator, options);
}

}  // namespace

TEST_CASE("srt: reading and writing back gives the file byte for byte") {
    for (const std::string& text :
         {std::string(""), std::string("\n\n"), std::string("1\n00:00:01,000 --> 00:00:02,000\nHello\n"),
          std::string("\xEF\xBB\xBF" "1\r\n00:00:01,000 --> 00:00:02,000\r\nHello\r\nthere\r\n\r\n2\r\n0:00:03.5 --> 0:00:04.25\r\nBye"),
          std::string("junk\nmore junk\n\n\n1\n00:00:01,000 --> 00:00:02,000 X1:10\n\n2\nnot a timing\ntext\n")}) {
        CAPTURE(text);
        const auto blocks = read_srt(text);
        CHECK(write_srt(blocks) == text);
    }
    const auto blocks = read_srt("\xEF\xBB\xBF" "7\n00:00:01,000 --> 00:00:02,000\nHello\nthere\n\nnope\n");
    REQUIRE(blocks.size() == 3);
    CHECK(blocks[0].cue);
    CHECK(blocks[0].lines == Strings{"Hello", "there"});
    CHECK(blocks[1].line == 5);
    CHECK(!blocks[2].cue);
    CHECK(blocks[2].line == 6);
}

TEST_CASE("srt: numbers and timings are kept, a cue's lines re-wrapped to its line count") {
    testing::ReversingTranslator fake;
    const std::string in =
        "1\n00:00:01,500 --> 00:00:04,000\nthe quick brown fox\njumps over the dog.\n\n"
        "2\n00:00:05,000 --> 00:00:06,000\nOne line only.\n";
    const std::string out = translate(fake, in);
    CHECK(out ==
          "1\n00:00:01,500 --> 00:00:04,000\nDOG. THE OVER JUMPS\nFOX BROWN QUICK THE\n\n"
          "2\n00:00:05,000 --> 00:00:06,000\nONLY. LINE ONE\n");
    REQUIRE(fake.seen.size() == 1);  // one call for the whole file
    CHECK(fake.seen[0] == Strings{"the quick brown fox jumps over the dog.", "One line only."});
    // CRLF and a missing final newline come out as they went in.
    const std::string crlf = "1\r\n00:00:01,000 --> 00:00:02,000\r\nYes\r\nno.\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nHi there";
    CHECK(translate(fake, crlf) ==
          "1\r\n00:00:01,000 --> 00:00:02,000\r\nNO.\r\nYES\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nTHERE HI");
}

TEST_CASE("srt: lines never break at a no-break space") {
    FixedTranslator fixed;
    CHECK(translate(fixed, "1\n00:00:01,000 --> 00:00:02,000\nHave\nfun\nnow!\n") ==
          "1\n00:00:01,000 --> 00:00:02,000\nAmuse-toi\nbien\xC2\xA0!\n");
}

TEST_CASE("srt: a sentence that runs across cues is translated whole and cut at the aligned word") {
    UppercaseTranslator upper;
    const std::string in =
        "1\n00:00:01,000 --> 00:00:02,000\nThis is an example\nsubtitle file\n\n"
        "2\n00:00:02,500 --> 00:00:04,000\nof the popular format.\n\n"
        "3\n00:00:05,000 --> 00:00:06,000\n<i>Have fun!</i>\n";
    const std::string out = translate(upper, in);
    REQUIRE(upper.seen.size() == 1);
    CHECK(upper.seen[0] == Strings{"This is an example subtitle file of the popular format.", "<i>Have fun!</i>"});
    CHECK(out ==
          "1\n00:00:01,000 --> 00:00:02,000\nTHIS IS AN EXAMPLE\nSUBTITLE FILE\n\n"
          "2\n00:00:02,500 --> 00:00:04,000\nOF THE POPULAR FORMAT.\n\n"
          "3\n00:00:05,000 --> 00:00:06,000\n<I>HAVE FUN!</I>\n");

    // Reversed words: the cut that crosses the fewest links, each cue keeping
    // a word; the source's word order is gone, so the counts follow the links.
    testing::ReversingTranslator reverse;
    const std::string two = "1\n00:00:01,000 --> 00:00:02,000\na b c d\n\n2\n00:00:03,000 --> 00:00:04,000\ne.\n";
    CHECK(translate(reverse, two) ==
          "1\n00:00:01,000 --> 00:00:02,000\nE. D C B\n\n2\n00:00:03,000 --> 00:00:04,000\nA\n");

    // A cue starting with a capital starts a sentence of its own ("I" aside).
    UppercaseTranslator capital;
    translate(capital, "1\n00:00:01,000 --> 00:00:02,000\nof the format\n\n2\n00:00:03,000 --> 00:00:04,000\nAny comments\n\n"
                       "3\n00:00:05,000 --> 00:00:06,000\nI think so\n");
    REQUIRE(capital.seen.size() == 1);
    CHECK(capital.seen[0] == Strings{"of the format", "Any comments I think so"});

    // At most kMaxJoinedCues run together.
    UppercaseTranslator many;
    std::string run_on;
    for (int k = 1; k <= 6; ++k)
        run_on += std::to_string(k) + "\n00:00:0" + std::to_string(k) + ",000 --> 00:00:0" + std::to_string(k) +
                  ",500\nword" + std::to_string(k) + "\n\n";
    const std::string joined = translate(many, run_on);
    REQUIRE(many.seen.size() == 1);
    CHECK(many.seen[0] == Strings{"word1 word2 word3 word4", "word5 word6"});
    CHECK(joined.find("\nWORD1\n") != std::string::npos);
    CHECK(joined.find("\nWORD6\n") != std::string::npos);
}

TEST_CASE("srt: dialogue lines are translated one by one") {
    UppercaseTranslator upper;
    const std::string out =
        translate(upper, "1\n00:00:01,000 --> 00:00:02,000\n- Where are you going\n- Home.\n\n"
                         "2\n00:00:03,000 --> 00:00:04,000\nnext cue here.\n");
    REQUIRE(upper.seen.size() == 1);
    CHECK(upper.seen[0] == Strings{"- Where are you going", "- Home.", "next cue here."});
    CHECK(out.find("\n- WHERE ARE YOU GOING\n- HOME.\n") != std::string::npos);
}

TEST_CASE("srt: a block that is not a cue is copied through with a warning naming its line") {
    UppercaseTranslator upper;
    Strings warnings;
    const std::string in =
        "1\n00:00:01,000 --> 00:00:02,000\nfirst part of\n\n"
        "two\n00:00:03 -> 00:00:04\nbroken cue\n\n"
        "3\n00:00:05,000 --> 00:00:06,000\nlast one.\n";
    const std::string out = translate(upper, in, &warnings);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].rfind("test.srt: line 5: not a subtitle cue", 0) == 0);
    CHECK(out.find("\n\ntwo\n00:00:03 -> 00:00:04\nbroken cue\n\n") != std::string::npos);
    // Nothing runs across the broken block.
    REQUIRE(upper.seen.size() == 1);
    CHECK(upper.seen[0] == Strings{"first part of", "last one."});
    CHECK(out.find("\nFIRST PART OF\n") != std::string::npos);
}
