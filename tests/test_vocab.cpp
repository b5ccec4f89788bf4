#include <doctest/doctest.h>
#include <sentencepiece_processor.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "test_support.h"
#include "model/vocab_training.h"
#include "model/vocabulary.h"

namespace fs = std::filesystem;
using nmt::VocabOptions;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        char name[] = "/tmp/nmt_test_vocab_XXXXXX";
        REQUIRE(mkdtemp(name) != nullptr);
        path = name;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

// Sentences over a few hundred made-up words (syllable pairs and triples):
// enough distinct substrings for a 100-piece vocabulary, small enough to
// train in about a second.
std::string generated_text(int lines, const std::string& line_end = "\n") {
    const std::vector<std::string> syllables = {"ka", "ri", "mo", "te", "lu", "sa", "ne", "po", "vi", "da",
                                                "gor", "fen", "bal", "tis", "qua", "zum", "the", "cat", "on", "re"};
    unsigned state = 12345;
    auto next = [&state](unsigned n) {
        state = state * 1103515245u + 12345u;
        return (state >> 16) % n;
    };
    std::vector<std::string> words;
    for (int i = 0; i < 300; ++i) {
        std::string w;
        for (unsigned k = 0, n = 2 + next(2); k < n; ++k) w += syllables[next(syllables.size())];
        words.push_back(w);
    }
    std::string text;
    for (int i = 0; i < lines; ++i) {
        for (int k = 0, n = 4 + i % 6; k < n; ++k) text += (k ? " " : "") + words[next(words.size())];
        text += "." + line_end;
    }
    return text;
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

VocabOptions tiny(const TempDir& dir, const std::string& input) {
    VocabOptions o;
    o.inputs = {input};
    o.model_prefix = dir.file("spm");
    o.vocab_size = 100;
    o.threads = 1;
    return o;
}

}  // namespace

TEST_CASE("train_vocab: a tiny unigram vocabulary round-trips a sentence") {
    TempDir dir;
    write_file(dir.file("train.txt"), generated_text(400));
    const auto trained = nmt::train_vocab(tiny(dir, dir.file("train.txt")));
    CHECK(!fs::exists(dir.file("spm.model")));  // nothing in place before install()
    trained.install();
    const nmt::VocabSummary& summary = trained.summary;
    CHECK(summary.model_path == dir.file("spm.model"));
    CHECK(summary.vocab_path == dir.file("spm.vocab"));
    CHECK(fs::exists(summary.vocab_path));
    CHECK(summary.sentences == 400);
    CHECK(summary.vocab_size == 100);

    sentencepiece::SentencePieceProcessor sp;
    REQUIRE(sp.Load(summary.model_path).ok());
    CHECK(sp.unk_id() == nmt::kUnkId);
    CHECK(sp.bos_id() == nmt::kBosId);
    CHECK(sp.eos_id() == nmt::kEosId);
    CHECK(sp.pad_id() == -1);
    const std::string sentence = "the cat sat on a mat near the river.";
    const auto pieces = sp.EncodeAsPieces(sentence);
    CHECK(pieces.size() > 1);
    CHECK(pieces[0].rfind("\xE2\x96\x81", 0) == 0);  // word-start marker '▁'
    CHECK(sp.DecodePieces(pieces) == sentence);
    CHECK(sp.DecodeIds(sp.EncodeAsIds(sentence)) == sentence);  // no <unk>: every character was seen
    // The .vocab file lists every piece with its score, in id order.
    const std::string vocab = read_file(summary.vocab_path);
    CHECK(vocab.rfind("<unk>\t0\n<s>\t0\n</s>\t0\n", 0) == 0);
}

TEST_CASE("train_vocab: BPE, several inputs, CRLF and invalid bytes cleaned") {
    TempDir dir;
    write_file(dir.file("a.txt"), generated_text(200, "\r\n"));
    write_file(dir.file("b, with comma.txt"), generated_text(200) + "bad \xFF byte\n\n   \n");
    VocabOptions o = tiny(dir, dir.file("a.txt"));
    o.inputs.push_back(dir.file("b, with comma.txt"));
    o.model_type = "bpe";
    const auto trained = nmt::train_vocab(o);
    trained.install();
    const nmt::VocabSummary& summary = trained.summary;
    CHECK(summary.sentences == 401);  // blank lines are not sentences
    CHECK(summary.vocab_size == 100);
    CHECK(read_file(summary.vocab_path).find('\r') == std::string::npos);

    sentencepiece::SentencePieceProcessor sp;
    REQUIRE(sp.Load(summary.model_path).ok());
    const std::string sentence = "the river cat sat on a mat.";
    CHECK(sp.DecodeIds(sp.EncodeAsIds(sentence)) == sentence);
}

TEST_CASE("train_vocab: the same inputs give the same model, sampled and threaded") {
    TempDir dir;
    write_file(dir.file("train.txt"), generated_text(1000));
    VocabOptions o = tiny(dir, dir.file("train.txt"));
    o.input_sentence_size = 300;  // forces sampling
    o.threads = 4;
    o.model_prefix = dir.file("one");
    nmt::train_vocab(o).install();
    o.model_prefix = dir.file("two");
    nmt::train_vocab(o).install();
    // Compare pieces and scores: the .model also records its own file name.
    CHECK(read_file(dir.file("one.vocab")) == read_file(dir.file("two.vocab")));
}

TEST_CASE("train_vocab: errors name the file or option") {
    TempDir dir;
    write_file(dir.file("train.txt"), generated_text(50));
    write_file(dir.file("empty.txt"), "\n\n");

    VocabOptions o = tiny(dir, dir.file("missing.txt"));
    CHECK_THROWS_WITH_AS(nmt::train_vocab(o), doctest::Contains("missing.txt: cannot open: No such file or directory"), nmt::Error);

    o = tiny(dir, dir.file("empty.txt"));
    CHECK_THROWS_WITH_AS(nmt::train_vocab(o), doctest::Contains("no text to train on"), nmt::Error);

    o = tiny(dir, dir.file("train.txt"));
    o.model_prefix = dir.file("nowhere/spm");
    CHECK_THROWS_WITH_AS(nmt::train_vocab(o), doctest::Contains("does not exist"), nmt::Error);

    o = tiny(dir, dir.file("train.txt"));
    o.model_type = "wordpiece";
    CHECK_THROWS_WITH_AS(nmt::train_vocab(o), doctest::Contains("`type`"), nmt::Error);

    o = tiny(dir, dir.file("train.txt"));
    o.vocab_size = 5000;  // far more pieces than 50 lines can supply
    CHECK_THROWS_WITH_AS(nmt::train_vocab(o), doctest::Contains("Lower `size`, or train on more text"), nmt::Error);

    // The opposite: fewer pieces than the text has distinct characters.
    std::string alphabet;
    for (char c = '!'; c <= '~'; ++c) alphabet += std::string(1, c) + " ";
    std::string many_characters;
    for (int line = 0; line < 50; ++line) many_characters += alphabet + "\n";
    write_file(dir.file("characters.txt"), many_characters);
    o = tiny(dir, dir.file("characters.txt"));
    o.vocab_size = 40;
    CHECK_THROWS_WITH_AS(nmt::train_vocab(o), doctest::Contains("Raise `size`, or lower `character_coverage`"),
                         nmt::Error);
}

namespace {

// A SentencePiece ModelProto in protobuf's wire format holding these pieces
// (type NORMAL, score -1), and nothing else.
std::string model_proto_with_pieces(const std::vector<std::string>& pieces) {
    auto varint = [](uint64_t v) {
        std::string out;
        do {
            out += static_cast<char>((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
            v >>= 7;
        } while (v);
        return out;
    };
    std::string model;
    for (const std::string& text : pieces) {
        std::string piece = "\x0A" + varint(text.size()) + text;  // field 1: the text
        piece += std::string("\x15\x00\x00\x80\xBF", 5);           // field 2: score -1.0f
        piece += std::string("\x18\x01", 2);                      // field 3: type NORMAL
        model += "\x0A" + varint(piece.size()) + piece;           // ModelProto field 1
    }
    return model;
}

}  // namespace

TEST_CASE("vocabulary: a model with an empty piece or a NUL byte in one is refused, not a crash") {
    // SentencePiece's trie builder throws where the exception cannot pass:
    // such a model ended the process in std::terminate (found by fuzzing).
    const std::string nul = nmt::testing::error_of(
        [] { nmt::Vocabulary(model_proto_with_pieces({"<unk>", "a", std::string("\0", 1)}), "m.nmt: vocab.source"); });
    CHECK(nul.find("m.nmt: vocab.source") != std::string::npos);
    CHECK(nul.find("piece 2 holds a NUL byte") != std::string::npos);
    const std::string empty =
        nmt::testing::error_of([] { nmt::Vocabulary(model_proto_with_pieces({"<unk>", ""}), "v.model"); });
    CHECK(empty.find("piece 1 is empty") != std::string::npos);
    // Bytes that are not a protobuf at all still get SentencePiece's own refusal.
    CHECK(nmt::testing::error_of([] { nmt::Vocabulary("\xFF\xFF\xFF", "junk"); }).find("not a SentencePiece model") !=
          std::string::npos);
}
