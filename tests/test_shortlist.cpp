// The lexical shortlist (issue 36): candidates of a batch, the aligner's
// lexical table it is built from, storage in the model file, and decoding
// restricted to it: a shortlist of every piece changes nothing, a smaller one
// only ever produces its candidates, normalised over them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "align/shortlist_builder.h"
#include "align/statistical_aligner.h"
#include "decode/precision.h"
#include "decode/translator.h"
#include "layers/decoder.h"
#include "layers/encoder.h"
#include "model/model.h"
#include "test_support.h"

using namespace nmt;

namespace {

Shortlist every_piece(const Model& model) {
    Shortlist s;
    s.per_source = 1;
    s.by_source.assign(model.config.source_vocab_size, -1);
    for (int id = 0; id < model.config.target_vocab_size; ++id) s.frequent.push_back(id);
    return s;
}

}  // namespace

TEST_CASE("shortlist: a batch's candidates are its pieces' rows, the frequent pieces and EOS, sorted and distinct") {
    Shortlist s;
    s.per_source = 3;
    s.by_source = {4, 5, -1,  // source piece 0
                   9, 4, 8,   // 1
                   -1, -1, -1};
    s.frequent = {7, 5};
    CHECK(s.candidates({{0, 2}}, {2}) == std::vector<int>{2, 4, 5, 7});
    CHECK(s.candidates({{1}, {0, 0}}, {2}) == std::vector<int>{2, 4, 5, 7, 8, 9});
    CHECK(s.candidates({{}}, {}) == std::vector<int>{5, 7});
    CHECK(s.candidates({{17}}, {}) == std::vector<int>{5, 7});  // a piece past the table adds nothing
}

TEST_CASE("shortlist: the aligner's lexical table ranks each word's translations, best first") {
    // "a" is always "x"; "b" is "y" three times in four and "z" once.
    const std::vector<std::string> sources = {"a b", "b a", "a b", "b", "a", "a b"};
    const std::vector<std::string> targets = {"x y", "y x", "x z", "y", "x", "x y"};
    StatisticalAligner aligner;
    aligner.train(sources, targets);
    const auto table = aligner.translations(2);
    REQUIRE(table.count("a") == 1);
    REQUIRE(table.count("b") == 1);
    CHECK(table.at("a").front().first == "x");
    REQUIRE(table.at("b").size() == 2);
    CHECK(table.at("b")[0].first == "y");
    CHECK(table.at("b")[0].second >= table.at("b")[1].second);
    CHECK(aligner.translations(1).at("b").size() == 1);
}

TEST_CASE("shortlist: built over the model's pieces, k per source piece and the most frequent targets") {
    const Model model = testing::random_model(testing::all_architectures().front(), 71);
    const std::vector<std::string> lines = {"the cat sat on the mat", "a dog runs in the park", "the bird sings",
                                            "a cat runs", "the dog sat on a mat"};
    ShortlistOptions options;
    options.per_source = 4;
    options.frequent = 3;
    const Shortlist s = build_shortlist(lines, lines, model.source_vocab, model.target_vocab, options);
    CHECK(s.per_source == 4);
    CHECK(s.by_source.size() == size_t(model.config.source_vocab_size) * 4);
    CHECK(s.frequent.size() == 3);
    // The same text on both sides: each piece's best translation is itself.
    for (int piece : model.source_vocab.encode("the cat sat on the mat")) {
        CAPTURE(piece);
        CHECK(s.by_source[piece * 4] == piece);
    }
    // "the" and "a" begin most lines: their pieces are among the most frequent.
    CHECK(std::count(s.frequent.begin(), s.frequent.end(), model.target_vocab.encode("the").front()) == 1);
    // A piece that never occurs has no candidates.
    std::vector<bool> seen(model.config.source_vocab_size, false);
    for (const auto& line : lines)
        for (int id : model.source_vocab.encode(line)) seen[id] = true;
    for (int id = 0; id < model.config.source_vocab_size; ++id)
        if (!seen[id]) CHECK(s.by_source[id * 4] == -1);
}

TEST_CASE("shortlist: stored in the model file and read back, and damaged shortlists refused") {
    Model model = testing::random_model(testing::all_architectures().front(), 72);
    model.shortlist.per_source = 2;
    model.shortlist.by_source.assign(model.config.source_vocab_size * 2, -1);
    model.shortlist.by_source[0] = 5;
    model.shortlist.by_source[1] = 9;
    model.shortlist.frequent = {3, 1};
    const auto path = testing::temp_path("shortlist", "model.nmt").string();
    save_model(path, model, DType::F16);
    const Model back = load_model(path);
    CHECK(back.shortlist.per_source == 2);
    CHECK(back.shortlist.by_source == model.shortlist.by_source);
    CHECK(back.shortlist.frequent == model.shortlist.frequent);

    model.shortlist.frequent = {3, model.config.target_vocab_size};
    save_model(path, model, DType::F16);
    CHECK(testing::error_of([&] { load_model(path); }) ==
          path + ": shortlist.frequent holds " + std::to_string(model.config.target_vocab_size) + ", not a target id");

    SafetensorsFile file = read_safetensors(path);
    file.tensors.erase("shortlist.frequent");
    write_safetensors(path, file);
    CHECK(testing::error_of([&] { load_model(path); }) ==
          path + ": the shortlist needs both shortlist.by_source and shortlist.frequent");
}

TEST_CASE("shortlist: a restricted decoding step is the full step renormalised over the candidates") {
    for (Precision precision : {Precision::FP32, Precision::Int8}) {
        for (const auto& config : testing::all_architectures()) {
            CAPTURE(testing::describe(config));
            CAPTURE(to_string(precision));
            Model model = testing::random_model(config, 73);
            set_decoding_precision(model, precision);
            Encoder encoder(model);
            Decoder decoder(model);
            const int eos = model.source_vocab.eos_id();
            const EncodedBatch batch = encoder.encode({{5, 9, 14, eos}, {7, eos}});
            const std::vector<int> tokens = {1, 1};
            Tensor full, restricted, attention;
            DecoderState state = decoder.start(batch);
            decoder.step(batch, state, tokens.data(), full, attention);
            const std::vector<int> ids = {2, 3, 10, 11, 20, 27};
            REQUIRE(ids.back() < model.config.target_vocab_size);
            decoder.restrict_output(ids);
            CHECK(decoder.output_ids() == ids);
            state = decoder.start(batch);
            decoder.step(batch, state, tokens.data(), restricted, attention);
            REQUIRE(restricted.cols() == int64_t(ids.size()));
            for (int64_t m = 0; m < 2; ++m) {
                double total = 0;
                for (int id : ids) total += std::exp(double(full.row(m)[id]));
                for (size_t i = 0; i < ids.size(); ++i)
                    CHECK(restricted.row(m)[i] == doctest::Approx(full.row(m)[ids[i]] - std::log(total)).epsilon(1e-4));
            }
            decoder.restrict_output({});
            state = decoder.start(batch);
            decoder.step(batch, state, tokens.data(), restricted, attention);
            CHECK(restricted.values == full.values);
        }
    }
}

TEST_CASE("shortlist: translations keep to the candidates, and a shortlist of every piece changes nothing") {
    const std::vector<std::string> lines = {"the cat sat on the mat", "a dog runs", "", "bird sings in the park"};
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 74);
        TranslateOptions options;
        options.search.beam_size = 3;
        std::vector<TranslationResult> plain;
        {
            Translator translator(model);
            plain = translator.translate(lines, options);
        }
        model.shortlist = every_piece(model);
        {
            Translator translator(model);
            const auto all = translator.translate(lines, options);
            for (size_t i = 0; i < lines.size(); ++i)
                for (size_t k = 0; k < plain[i].hypotheses.size(); ++k)
                    CHECK(all[i].hypotheses[k].target_ids == plain[i].hypotheses[k].target_ids);
        }
        REQUIRE(model.config.target_vocab_size > 20);
        model.shortlist.frequent = {7, 12, 20};
        Translator translator(model);
        const auto few = translator.translate(lines, options);
        for (const auto& result : few)
            for (const auto& h : result.hypotheses)
                for (int id : h.target_ids) CHECK((id == 7 || id == 12 || id == 20));
        options.use_shortlist = false;
        const auto off = translator.translate(lines, options);
        for (size_t i = 0; i < lines.size(); ++i)
            for (size_t k = 0; k < plain[i].hypotheses.size(); ++k)
                CHECK(off[i].hypotheses[k].target_ids == plain[i].hypotheses[k].target_ids);
    }
}
