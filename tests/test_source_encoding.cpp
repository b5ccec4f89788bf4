// encode_source: what the encoder receives for a line, cropped to the model's limit.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "decode/source_encoding.h"
#include "test_support.h"

using namespace nmt;

TEST_CASE("source encoding: pieces end with EOS, and a line over the limit keeps its beginning") {
    const Vocabulary vocab(testing::tiny_spm(60, "unigram"), "tiny");
    const std::string line = "a small dog runs on the grass";
    const std::vector<int> pieces = vocab.encode(line);
    REQUIRE(pieces.size() > 6);

    SourceIds whole = encode_source(vocab, 256, line);
    std::vector<int> expected = pieces;
    expected.push_back(vocab.eos_id());
    CHECK(whole.ids == expected);
    CHECK(!whole.cropped);

    // Exactly at the limit (EOS included) nothing is lost; one piece fewer crops.
    const int exact = static_cast<int>(pieces.size()) + 1;
    CHECK(encode_source(vocab, exact, line).ids == expected);
    CHECK(!encode_source(vocab, exact, line).cropped);
    SourceIds cropped = encode_source(vocab, 5, line);
    CHECK(cropped.cropped);
    CHECK(cropped.ids == std::vector<int>{pieces[0], pieces[1], pieces[2], pieces[3], vocab.eos_id()});

    CHECK(encode_source(vocab, 5, "").ids.empty());
    CHECK(!encode_source(vocab, 5, "").cropped);
    CHECK_THROWS_AS(encode_source(vocab, 1, line), Error);
}

TEST_CASE("source encoding: bytes that cannot fit are dropped before encoding, at a character boundary") {
    const Vocabulary vocab(testing::tiny_spm(60, "unigram"), "tiny");
    // 3 pieces allowed besides EOS: at most 64 * 3 = 192 bytes are looked
    // at, and byte 192 is the second of an "é", so the cut comes before it.
    std::string line = "x";
    while (line.size() < 1000) line += "é a ";
    REQUIRE((static_cast<unsigned char>(line[192]) & 0xC0) == 0x80);
    SourceIds source = encode_source(vocab, 4, line);
    CHECK(source.cropped);
    CHECK(source.ids.size() == 4);
    CHECK(source.ids.back() == vocab.eos_id());
    // The pieces are those of the line's beginning, cut at the boundary.
    std::vector<int> beginning = vocab.encode(line.substr(0, 191));
    beginning.resize(3);
    beginning.push_back(vocab.eos_id());
    CHECK(source.ids == beginning);
}

TEST_CASE("source encoding: tokens encoded one by one, each piece counted to its token") {
    const Vocabulary vocab(testing::tiny_spm(60, "unigram"), "tiny");
    const std::vector<std::string> tokens = split_tokens("  a small\tdog  runs ");
    REQUIRE(tokens == std::vector<std::string>{"a", "small", "dog", "runs"});
    std::vector<int> counts;
    const SourceIds whole = encode_tokens(vocab, 256, tokens, counts);
    std::vector<int> expected;
    for (size_t k = 0; k < tokens.size(); ++k) {
        const std::vector<int> alone = vocab.encode(tokens[k]);
        CHECK(counts[k] == static_cast<int>(alone.size()));
        expected.insert(expected.end(), alone.begin(), alone.end());
    }
    expected.push_back(vocab.eos_id());
    CHECK(whole.ids == expected);
    CHECK(!whole.cropped);

    // Cropped inside the second token: its count is what remains, the rest 0.
    const int first = counts[0];
    const SourceIds cropped = encode_tokens(vocab, first + 2, tokens, counts);
    CHECK(cropped.cropped);
    CHECK(cropped.ids.size() == static_cast<size_t>(first + 2));
    CHECK(counts == std::vector<int>{first, 1, 0, 0});
    CHECK(encode_tokens(vocab, 8, {}, counts).ids.empty());
    CHECK(counts.empty());
}
