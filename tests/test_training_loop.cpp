// The training loop's parts: corpus reading, batching, Adam, the learning
// rate schedule, clipping, checkpoints, and an interrupted run that resumes
// to exactly the parameters of an uninterrupted one.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <unistd.h>

#include "train/adam.h"
#include "train/batching.h"
#include "train/checkpoint.h"
#include "train/corpus.h"
#include "core/error.h"
#include "train/run_lock.h"
#include "core/sha256.h"
#include "test_support.h"
#include "train/trainer.h"
#include "train/training_step.h"

using namespace nmt;
namespace fs = std::filesystem;

namespace {

fs::path training_path(const std::string& name) { return testing::temp_path("training", name); }

void write_corpus_file(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

using testing::error_of;

// Pairs with target lengths 1..max_target and source lengths varying independently.
std::vector<SentencePair> synthetic_pairs(int count, int max_target, uint64_t seed) {
    Random random(seed);
    std::vector<SentencePair> pairs(count);
    for (int i = 0; i < count; ++i) {
        pairs[i].source.assign(1 + random.below(max_target), 3);
        pairs[i].target.assign(1 + random.below(max_target), 4);
        pairs[i].line = i + 1;
    }
    return pairs;
}

bool same_bits(const Tensor& a, const Tensor& b) {
    return a.shape == b.shape && std::memcmp(a.data(), b.data(), a.values.size() * sizeof(float)) == 0;
}

Model two_parameter_model() {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive), 5);
    model.parameters.clear();
    model.parameters.emplace("w", Tensor({2}));
    return model;
}

}  // namespace

TEST_CASE("training loop: SHA-256 matches the FIPS 180-2 test vectors") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    Sha256 million;
    const std::string chunk(1000, 'a');
    for (int i = 0; i < 1000; ++i) million.update(chunk);
    CHECK(million.hex_digest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    const auto path = training_path("abc.txt");
    write_corpus_file(path, "abc");
    CHECK(sha256_file(path.string()) == sha256_hex("abc"));
}

TEST_CASE("training loop: the corpus skips empty and long pairs, appends EOS and refuses misaligned files") {
    const Vocabulary vocab(testing::tiny_spm(40), "tiny");
    const auto source = training_path("c.src"), target = training_path("c.tgt");
    write_corpus_file(source, "the cat sat\r\n\r\na dog runs\nthe cat sat on the mat the cat sat on the mat\nbird\n");
    write_corpus_file(target, "a dog runs\r\nthe mat\n   \nsings\nthe cat\n");
    CorpusOptions options;
    options.max_length = 8;
    options.keep_text = true;
    const Corpus corpus = read_corpus(source.string(), target.string(), vocab, vocab, options);
    CHECK(corpus.lines == 5);
    CHECK(corpus.skipped_empty == 2);
    REQUIRE(corpus.skipped_too_long == 1);
    REQUIRE(corpus.pairs.size() == 2);
    CHECK(corpus.pairs[0].line == 1);
    CHECK(corpus.pairs[1].line == 5);
    CHECK(corpus.pairs[0].source.back() == vocab.eos_id());
    CHECK(corpus.pairs[0].target.back() == vocab.eos_id());
    std::vector<int> expected = vocab.encode("a dog runs");
    expected.push_back(vocab.eos_id());
    CHECK(corpus.pairs[0].target == expected);
    CHECK(corpus.target_text[0] == "a dog runs");  // '\r' gone
    CHECK(corpus.source_sha256 == sha256_file(source.string()));

    write_corpus_file(target, "one\ntwo\n");
    const std::string message = error_of([&] { read_corpus(source.string(), target.string(), vocab, vocab, {}); });
    CHECK(message.find(source.string()) != std::string::npos);
    CHECK(message.find(target.string()) != std::string::npos);
    CHECK(message.find("5 lines") != std::string::npos);
    CHECK(message.find("2") != std::string::npos);
    CHECK(error_of([&] { read_corpus("/nonexistent/x", target.string(), vocab, vocab, {}); }).find("/nonexistent/x") !=
          std::string::npos);
}

TEST_CASE("training loop: the corpus reads word alignments for guided alignment, line by line, and checks them") {
    const Vocabulary vocab(testing::tiny_spm(40), "tiny");
    const auto source = training_path("g.src"), target = training_path("g.tgt"), links = training_path("g.align");
    write_corpus_file(source, "the cat sat\n\na dog\n");
    write_corpus_file(target, "a dog runs\nthe mat\nsings\n");
    write_corpus_file(links, "0-0 2-1 1-2\n0-0\n1-0\n");
    CorpusOptions options;
    options.alignment_path = links.string();
    const Corpus corpus = read_corpus(source.string(), target.string(), vocab, vocab, options);
    REQUIRE(corpus.pairs.size() == 2);  // the empty line's pair is skipped with its links
    CHECK(corpus.pairs[0].alignment == Links{{0, 0}, {1, 2}, {2, 1}});
    CHECK(corpus.pairs[1].alignment == Links{{1, 0}});
    CHECK(corpus.alignment_sha256 == sha256_file(links.string()));
    const TrainingBatch batch = make_batch(corpus.pairs, {1, 0});
    REQUIRE(batch.alignments.size() == 2);
    CHECK(batch.alignments[0] == Links{{1, 0}});

    auto error_with = [&](const std::string& text) {
        write_corpus_file(links, text);
        return error_of([&] { read_corpus(source.string(), target.string(), vocab, vocab, options); });
    };
    std::string message = error_with("0-0\n0-0\n");
    CHECK(message.find(links.string()) != std::string::npos);
    CHECK(message.find("2 lines") != std::string::npos);
    message = error_with("0-0\n\n0-x\n");
    CHECK(message.find(links.string() + " line 3") != std::string::npos);
    message = error_with("0-0 3-0\n\n0-0\n");  // "the cat sat" has 3 words: 0..2
    CHECK(message.find(links.string() + " line 1") != std::string::npos);
    CHECK(message.find("3-0") != std::string::npos);
    CHECK(message.find("3 source words") != std::string::npos);
}

// nmt bench --train-target: the timed updates are counted, their target
// tokens summed, and they do train the model.
TEST_CASE("training loop: measuring training speed runs and counts real updates") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive), 5);
    Corpus corpus;
    Random random(2);
    for (int i = 0; i < 40; ++i) {
        SentencePair pair;
        for (int k = 0; k < 3 + i % 4; ++k) pair.source.push_back(3 + random.below(model.config.source_vocab_size - 3));
        for (int k = 0; k < 2 + i % 5; ++k) pair.target.push_back(3 + random.below(model.config.target_vocab_size - 3));
        pair.source.push_back(model.source_vocab.eos_id());
        pair.target.push_back(model.target_vocab.eos_id());
        corpus.pairs.push_back(pair);
    }
    const Tensor before = model.param("decoder.output.W");
    const TrainingSpeed speed = measure_training_speed(model, corpus, 30, 4);
    CHECK(speed.steps == 4);
    CHECK(speed.target_tokens >= 4 * 2);
    CHECK(speed.target_tokens <= 4 * 30 + 4 * 7);  // a batch passes its budget by at most one pair
    CHECK(speed.seconds > 0);
    CHECK(model.param("decoder.output.W").values != before.values);
    CHECK_THROWS_AS(measure_training_speed(model, Corpus{}, 30, 1), Error);
}

TEST_CASE("training loop: batching covers every pair exactly once per epoch within the token budget") {
    const auto pairs = synthetic_pairs(1000, 30, 3);
    BatchingOptions options;
    options.batch_tokens = 120;
    options.maxi_batch = 5;
    options.seed = 11;
    for (int64_t epoch = 0; epoch < 3; ++epoch) {
        const auto plan = plan_epoch(pairs, options, epoch);
        std::vector<int> seen(pairs.size(), 0);
        for (const auto& batch : plan) {
            REQUIRE(!batch.empty());
            size_t longest = 0;
            for (int64_t i : batch) {
                ++seen[i];
                longest = std::max(longest, pairs[i].target.size());
            }
            CHECK(static_cast<int64_t>(batch.size() * longest) <= options.batch_tokens);
        }
        for (int count : seen) REQUIRE(count == 1);
    }
    // A pair longer than the budget still gets a batch (of its own).
    auto long_pairs = synthetic_pairs(10, 5, 4);
    long_pairs[3].target.assign(500, 4);
    const auto plan = plan_epoch(long_pairs, options, 0);
    int64_t covered = 0;
    for (const auto& batch : plan) {
        covered += static_cast<int64_t>(batch.size());
        for (int64_t i : batch)
            if (i == 3) CHECK(batch.size() == 1);
    }
    CHECK(covered == 10);
    // Validation batches: in length order, every pair once.
    const auto ordered = plan_in_order(pairs, 120);
    int64_t total = 0;
    for (const auto& batch : ordered) total += static_cast<int64_t>(batch.size());
    CHECK(total == 1000);
}

TEST_CASE("training loop: batches hold similar lengths (sorted within maxi-batches)") {
    const auto pairs = synthetic_pairs(2000, 40, 8);
    BatchingOptions options;
    options.batch_tokens = 200;
    options.maxi_batch = 100;
    int64_t padded = 0, real = 0;
    for (const auto& batch : plan_epoch(pairs, options, 0)) {
        size_t longest = 0;
        for (int64_t i : batch) {
            longest = std::max(longest, pairs[i].target.size());
            real += static_cast<int64_t>(pairs[i].target.size());
        }
        padded += static_cast<int64_t>(longest * batch.size());
    }
    CHECK(static_cast<double>(real) / static_cast<double>(padded) > 0.95);
}

TEST_CASE("training loop: batch order is a function of seed and epoch, and restorable from a position") {
    const auto pairs = synthetic_pairs(300, 20, 5);
    BatchingOptions options;
    options.batch_tokens = 60;
    options.maxi_batch = 4;
    options.seed = 7;
    CHECK(plan_epoch(pairs, options, 0) == plan_epoch(pairs, options, 0));
    CHECK(plan_epoch(pairs, options, 0) != plan_epoch(pairs, options, 1));
    BatchingOptions other = options;
    other.seed = 8;
    CHECK(plan_epoch(pairs, options, 0) != plan_epoch(pairs, other, 0));

    // Epochs may differ in batch count: the maxi-batches group different pairs.
    const auto per_epoch = static_cast<int64_t>(plan_epoch(pairs, options, 0).size());
    const auto second_epoch = static_cast<int64_t>(plan_epoch(pairs, options, 1).size());
    BatchGenerator straight(pairs, options);
    std::vector<TrainingBatch> expected;
    for (int64_t i = 0; i < per_epoch + second_epoch + 5; ++i) expected.push_back(straight.next());
    CHECK(straight.position() == BatchPosition{2, 5});

    for (int64_t stop : {int64_t{0}, int64_t{3}, per_epoch - 1, per_epoch, per_epoch + 7}) {
        BatchGenerator first(pairs, options);
        for (int64_t i = 0; i < stop; ++i) first.next();
        const BatchPosition saved = first.position();
        BatchGenerator resumed(pairs, options);
        resumed.restore(saved);
        for (int64_t i = stop; i < static_cast<int64_t>(expected.size()); ++i) {
            const TrainingBatch batch = resumed.next();
            REQUIRE(batch.sources == expected[i].sources);
            REQUIRE(batch.targets == expected[i].targets);
        }
    }
}

TEST_CASE("training loop: Adam matches a hand-computed update on two parameters") {
    Model model = two_parameter_model();
    model.param("w").values = {1.0f, -2.0f};
    Adam adam(model, AdamOptions{0.9, 0.98, 1e-9});
    Gradients g;
    g.emplace("w", Tensor({2}));
    // Step 1: bias-corrected moments are g and g², so each parameter moves by lr·sign(g).
    g.at("w").values = {0.5f, -1.0f};
    adam.update(model, g, 0.1);
    CHECK(model.param("w")[0] == doctest::Approx(0.9).epsilon(1e-6));
    CHECK(model.param("w")[1] == doctest::Approx(-1.9).epsilon(1e-6));
    // Step 2, g = (0.5, 1): m = (0.095, 0.01), v = (0.0099, 0.0396), 1−β1² = 0.19, 1−β2² = 0.0396,
    // so m̂ = (0.5, 0.0526316), v̂ = (0.25, 1) and the steps are 0.1 and 0.00526316.
    g.at("w").values = {0.5f, 1.0f};
    adam.update(model, g, 0.1);
    CHECK(adam.first_moments.at("w")[0] == doctest::Approx(0.095));
    CHECK(adam.first_moments.at("w")[1] == doctest::Approx(0.01));
    CHECK(adam.second_moments.at("w")[0] == doctest::Approx(0.0099));
    CHECK(adam.second_moments.at("w")[1] == doctest::Approx(0.0396));
    CHECK(model.param("w")[0] == doctest::Approx(0.8).epsilon(1e-6));
    CHECK(model.param("w")[1] == doctest::Approx(-1.9052632).epsilon(1e-6));
    CHECK(adam.steps() == 2);
}

TEST_CASE("training loop: learning rate warm-up, inverse square root decay and plateau") {
    LrSchedule s{1e-3, 100, LrDecay::InverseSqrt};
    CHECK(s.rate(1) == doctest::Approx(1e-5));
    CHECK(s.rate(50) == doctest::Approx(5e-4));
    CHECK(s.rate(100) == doctest::Approx(1e-3));
    CHECK(s.rate(400) == doctest::Approx(5e-4));
    CHECK(s.rate(10000) == doctest::Approx(1e-4));
    CHECK(s.rate(400, 0.5) == doctest::Approx(5e-4));  // the plateau scale is for plateau only
    LrSchedule constant{1e-3, 0, LrDecay::InverseSqrt};
    CHECK(constant.rate(1) == doctest::Approx(1e-3));
    CHECK(constant.rate(100000) == doctest::Approx(1e-3));
    LrSchedule plateau{2e-3, 10, LrDecay::Plateau};
    CHECK(plateau.rate(5, 0.25) == doctest::Approx(1e-3));  // warm-up is not scaled
    CHECK(plateau.rate(500) == doctest::Approx(2e-3));
    CHECK(plateau.rate(500, 0.25) == doctest::Approx(5e-4));
    CHECK(parse_lr_decay("plateau") == LrDecay::Plateau);
    LrSchedule both{1e-3, 100, LrDecay::InverseSqrtPlateau};
    CHECK(both.rate(50, 0.5) == doctest::Approx(5e-4));  // warm-up is not scaled
    CHECK(both.rate(400) == doctest::Approx(5e-4));
    CHECK(both.rate(400, 0.25) == doctest::Approx(1.25e-4));
    LrSchedule linear{1e-3, 100, LrDecay::Linear};
    CHECK(linear.rate(50, 1.0, 500) == doctest::Approx(5e-4));  // warm-up as before
    CHECK(linear.rate(100, 1.0, 500) == doctest::Approx(1e-3));
    CHECK(linear.rate(300, 0.25, 500) == doctest::Approx(5e-4));  // halfway down; no plateau scale
    CHECK(linear.rate(499, 1.0, 500) == doctest::Approx(2.5e-6));
    CHECK(linear.rate(500, 1.0, 500) == 0.0);
    CHECK(linear.rate(900, 1.0, 500) == 0.0);
    LrSchedule linear_from_start{1e-3, 0, LrDecay::Linear};
    CHECK(linear_from_start.rate(1, 1.0, 4) == doctest::Approx(7.5e-4));
    CHECK(error_of([&] { linear.rate(50, 1.0, 0); }).find("max_steps") != std::string::npos);
    CHECK(error_of([&] { linear.rate(200, 1.0, 100); }).find("max_steps") != std::string::npos);
    for (LrDecay decay : {LrDecay::InverseSqrt, LrDecay::Plateau, LrDecay::InverseSqrtPlateau, LrDecay::Linear})
        CHECK(parse_lr_decay(to_string(decay)) == decay);
    CHECK(!cuts_on_plateau(LrDecay::InverseSqrt));
    CHECK(!cuts_on_plateau(LrDecay::Linear));
    CHECK(cuts_on_plateau(LrDecay::InverseSqrtPlateau));
    CHECK(error_of([] { parse_lr_decay("cosine"); }).find("`lr_decay`") != std::string::npos);
}

TEST_CASE("training loop: gradients are scaled per token, then clipped to the global norm") {
    Gradients g;
    g.emplace("a", Tensor({2}));
    g.emplace("b", Tensor({1}));
    g.at("a").values = {6.0f, 0.0f};
    g.at("b").values = {8.0f};
    CHECK(scale_and_clip(g, 0.5, 1.0) == doctest::Approx(5.0));
    CHECK(g.at("a")[0] == doctest::Approx(0.6));
    CHECK(g.at("a")[1] == 0.0f);
    CHECK(g.at("b")[0] == doctest::Approx(0.8));
    CHECK(scale_and_clip(g, 1.0, 5.0) == doctest::Approx(1.0));  // under the threshold: unchanged
    CHECK(g.at("b")[0] == doctest::Approx(0.8));
    CHECK(scale_and_clip(g, 2.0, 0.0) == doctest::Approx(2.0));  // 0: no clipping
    CHECK(g.at("b")[0] == doctest::Approx(1.6));
    g.at("a")[1] = NAN;
    CHECK(std::isnan(scale_and_clip(g, 1.0, 1.0)));
}

TEST_CASE("training loop: a checkpoint restores model, moments and state bit for bit") {
    Model model = testing::random_model(
        testing::small_config(CellType::LSTM, CellType::GRU, DecoderStyle::Luong, AttentionType::General), 21);
    model.provenance = {{"command", "nmt train ..."}, {"seed", 21}};
    Adam adam(model, AdamOptions{0.85, 0.995, 1e-8});
    uint64_t seed = 100;
    for (auto* moments : {&adam.first_moments, &adam.second_moments})
        for (auto& [name, t] : *moments) t.values = testing::random_vector(t.values.size(), seed++);
    adam.set_steps(37);
    TrainingState state = initial_training_state(9);
    Random random(3);
    for (int i = 0; i < 5; ++i) random.next();
    std::memcpy(state.random_state, random.state(), sizeof state.random_state);
    state.step = 42;
    state.position = {3, 17};
    state.lr_scale = 0.25;
    state.has_best = true;
    state.best_score = 12.345678901234567;
    state.best_step = 40;
    state.best_ce = 2.0 / 3.0;
    state.stalled_validations = 1;
    state.elapsed_seconds = 123.456;
    state.window_loss = 1.0 / 3.0;
    state.window_tokens = 77;
    state.window_seconds = 2.5;
    state.tokens_seen = 1234567;
    state.history = nlohmann::json::array({{{"step", 20}, {"bleu", 1.5}}, {{"step", 40}, {"bleu", 12.3}}});
    state.run = {{"seed", 9}, {"train_source_sha256", "abc"}};

    ParameterAverage average(model);
    for (auto& [name, t] : average.values) t.values[0] = 1.0f / 7.0f;

    const auto path = training_path("run.checkpoint").string();
    save_checkpoint(path, model, adam, average, state);
    const Checkpoint loaded = load_checkpoint(path);
    CHECK(to_json(loaded.model.config) == to_json(model.config));
    CHECK(loaded.model.provenance == model.provenance);
    CHECK(loaded.model.target_vocab.serialized() == model.target_vocab.serialized());
    REQUIRE(loaded.model.parameters.size() == model.parameters.size());
    for (const auto& [name, t] : model.parameters) {
        CHECK(same_bits(loaded.model.param(name), t));
        CHECK(same_bits(loaded.adam.first_moments.at(name), adam.first_moments.at(name)));
        CHECK(same_bits(loaded.adam.second_moments.at(name), adam.second_moments.at(name)));
        CHECK(same_bits(loaded.average.values.at(name), average.values.at(name)));
    }
    CHECK(loaded.adam.steps() == 37);
    CHECK(loaded.adam.options().beta1 == 0.85);
    CHECK(loaded.adam.options().epsilon == 1e-8);
    CHECK(loaded.state.to_json() == state.to_json());
    CHECK(loaded.state.best_score == state.best_score);  // doubles survive JSON exactly
    CHECK(std::memcmp(loaded.state.random_state, state.random_state, sizeof state.random_state) == 0);
    CHECK(loaded.state.position == state.position);
    // Checkpoints written before the display window's time was kept still load.
    nlohmann::json older = state.to_json();
    older["window"].erase("seconds");
    CHECK(TrainingState::from_json(older).window_seconds == 0);

    // A run without an average loads with none.
    save_checkpoint(path, model, adam, ParameterAverage{}, state);
    CHECK(load_checkpoint(path).average.empty());

    // Neither file type passes for the other.
    CHECK(error_of([&] { load_model(path); }).find("nmt-checkpoint") != std::string::npos);
    const auto model_path = training_path("plain.nmt").string();
    save_model(model_path, model);
    CHECK(error_of([&] { load_checkpoint(model_path); }).find("not an nmt training checkpoint") != std::string::npos);

    // A checkpoint is checked as a model file is (one reader for both): a
    // weight that is not finite.
    model.parameters.begin()->second.values[3] = NAN;
    save_checkpoint(path, model, adam, ParameterAverage{}, state);
    CHECK(error_of([&] { load_checkpoint(path); }).find("contains NaN or infinity") != std::string::npos);
}

TEST_CASE("training loop: a checkpoint with one flipped bit in its data is refused, one without a checksum loads") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive), 22);
    const Adam adam(model, AdamOptions{});
    const TrainingState state = initial_training_state(9);
    const auto path = training_path("flipped.checkpoint").string();
    save_checkpoint(path, model, adam, ParameterAverage{}, state);
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    uint64_t header_length = 0;
    std::memcpy(&header_length, bytes.data(), 8);

    // A bit among the Adam moments, which nothing else would check.
    std::string flipped = bytes;
    flipped[8 + header_length + (bytes.size() - 8 - header_length) / 2] ^= 0x01;
    std::ofstream(path, std::ios::binary) << flipped;
    CHECK(error_of([&] { load_checkpoint(path); }) ==
          path + ": the tensor data does not match its checksum: the file is damaged (re-download or re-convert it)");

    // Written before checkpoints stored a checksum: loads.
    nlohmann::json header = nlohmann::json::parse(bytes.substr(8, header_length));
    REQUIRE(header["__metadata__"].contains("data_xxh3_64"));
    header["__metadata__"].erase("data_xxh3_64");
    const std::string text = header.dump();
    const uint64_t length = text.size();
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&length), 8);
    out << text << bytes.substr(8 + header_length);
    out.close();
    CHECK(load_checkpoint(path).state.to_json() == state.to_json());
}

TEST_CASE("training loop: a run lock is exclusive while held and free once released") {
    const std::string path = training_path("run.lock").string();
    {
        const RunLock first(path, "the checkpoint x");
        const std::string message = error_of([&] { RunLock second(path, "the checkpoint x"); });
        CHECK(message.find("the checkpoint x is in use by another running process") != std::string::npos);
        CHECK(message.find(path) != std::string::npos);
    }
    CHECK(error_of([&] { RunLock again(path, "the checkpoint x"); }).empty());
    CHECK(error_of([&] { RunLock nowhere("/nonexistent/dir/x.lock", "x"); }).find("/nonexistent/dir/x.lock") !=
          std::string::npos);
}

TEST_CASE("training loop: durations for --max-time") {
    CHECK(parse_duration("90") == 90);
    CHECK(parse_duration("90s") == 90);
    CHECK(parse_duration("30m") == 1800);
    CHECK(parse_duration("1.5h") == 5400);
    CHECK(error_of([] { parse_duration("soon"); }).find("`max_time`") != std::string::npos);
    CHECK(error_of([] { parse_duration("5d"); }).find("`max_time`") != std::string::npos);
    CHECK(format_duration(3723) == "1:02:03");
    CHECK(format_duration(7) == "0:00:07");
}

namespace {

// A toy run's options: 60 lines of words and the same words reversed
// (written once), validated on their first 8 lines.
TrainerOptions toy_run_options() {
    const auto source = training_path("loop.src"), target = training_path("loop.tgt");
    if (!fs::exists(target)) {
        std::ofstream s(source), t(target);
        Random random(17);
        const char* words[] = {"the", "cat", "sat", "on", "mat", "a", "dog", "runs", "in", "park"};
        for (int line = 0; line < 60; ++line) {
            std::string a, b;
            for (int w = 0, n = 1 + static_cast<int>(random.below(6)); w < n; ++w) {
                const int k = static_cast<int>(random.below(10));
                a += std::string(w ? " " : "") + words[k];
                b = words[9 - k] + std::string(b.empty() ? "" : " ") + b;
            }
            s << a << "\n";
            t << b << "\n";
        }
    }
    TrainerOptions options;
    options.train_source = options.valid_source = source.string();
    options.train_target = options.valid_target = target.string();
    options.batch_tokens = 40;
    options.seed = 5;
    options.lr = {1e-2, 3, LrDecay::Plateau};
    options.disp_freq = 2;
    options.valid_every = 4;
    options.save_every = 3;
    options.valid_beam = 2;
    options.valid_lines = 8;
    options.max_steps = 10;
    options.patience = 0;
    return options;
}

}  // namespace

TEST_CASE("training loop: validations without improvement cut the rate under the plateau schedules only") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive);
    for (LrDecay decay : {LrDecay::InverseSqrt, LrDecay::Plateau, LrDecay::InverseSqrtPlateau}) {
        CAPTURE(to_string(decay));
        Model model = testing::random_model(config, 31, 40);
        TrainerOptions options = toy_run_options();
        // A rate far below a float's resolution at these weights: they do not
        // move, so no validation after the first improves on it.
        options.lr = {1e-12, 0, decay};
        options.lr_decay_factor = 0.5;
        options.valid_every = 2;
        options.max_steps = 8;
        options.output = training_path("plateau-" + to_string(decay) + ".nmt").string();
        Adam adam(model, options.adam);
        ParameterAverage average;
        TrainingState state = initial_training_state(options.seed);
        TrainingLog log("", "", false, nullptr);
        train(model, adam, average, state, options, log);
        std::vector<double> scales;
        for (const auto& record : state.history) {
            CHECK(record.at("improved") == (scales.empty()));
            scales.push_back(record.at("lr_scale").get<double>());
        }
        REQUIRE(scales.size() == 4);
        const std::vector<double> expected =
            cuts_on_plateau(decay) ? std::vector<double>{1, 0.5, 0.25, 0.125} : std::vector<double>{1, 1, 1, 1};
        CHECK(scales == expected);
        CHECK(state.lr_scale == expected.back());
    }
}

TEST_CASE("training loop: the linear schedule needs max_steps and reaches 0 at its last update") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive);
    const Model start = testing::random_model(config, 31, 40);
    // The weights after a run of `steps` updates under lr 1e-2, linear, no warm-up.
    auto trained = [&](int64_t steps) {
        Model model = start;
        TrainerOptions options = toy_run_options();
        options.lr = {1e-2, 0, LrDecay::Linear};
        options.valid_source.clear();
        options.valid_target.clear();
        options.max_steps = steps;
        options.output = training_path("linear-" + std::to_string(steps) + ".nmt").string();
        Adam adam(model, options.adam);
        ParameterAverage average;
        TrainingState state = initial_training_state(options.seed);
        TrainingLog log("", "", false, nullptr);
        train(model, adam, average, state, options, log);
        CHECK(state.step == steps);
        return model;
    };
    CHECK(error_of([&] { trained(0); }).find("max_steps") != std::string::npos);  // no end to fall to
    // One update is the last: rate 1e-2·(1 − 1)/1 = 0, so nothing moves; with
    // two, the first runs at 5e-3 and moves the weights.
    const Model one = trained(1), two = trained(2);
    bool moved = false;
    for (const auto& [name, value] : start.parameters) {
        CHECK(one.param(name).values == value.values);
        moved = moved || two.param(name).values != value.values;
    }
    CHECK(moved);
}

TEST_CASE("training loop: an interrupted and resumed run ends with the same parameters as an uninterrupted one") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive);
    const Model initial = testing::random_model(config, 31, 40);
    TrainerOptions options = toy_run_options();
    options.exponential_smoothing = 0.2;

    auto copy_of = [&] {
        Model m{initial.config, initial.parameters, Vocabulary(initial.source_vocab.serialized(), "s"),
                Vocabulary(initial.target_vocab.serialized(), "t")};
        return m;
    };
    auto fresh_run = [&](const std::string& name, int64_t max_steps) {
        Model model = copy_of();
        Adam adam(model, options.adam);
        ParameterAverage average;
        TrainingState state = initial_training_state(options.seed);
        TrainerOptions o = options;
        o.output = training_path(name + ".nmt").string();
        o.max_steps = max_steps;
        TrainingLog log("", training_path(name + ".jsonl").string(), false, nullptr);
        const TrainingOutcome outcome = train(model, adam, average, state, o, log);
        CHECK(outcome.steps == max_steps);
        CHECK(outcome.stop_reason == "max-steps");
        return o;
    };
    const TrainerOptions straight = fresh_run("straight", 10);
    const TrainerOptions first_half = fresh_run("halves", 5);

    Checkpoint checkpoint = load_checkpoint(first_half.checkpoint_path());
    CHECK(checkpoint.state.step == 5);
    TrainerOptions second_half = first_half;
    second_half.max_steps = 10;
    TrainingLog log("", training_path("halves.jsonl").string(), true, nullptr);
    const TrainingOutcome outcome = train(checkpoint.model, checkpoint.adam, checkpoint.average, checkpoint.state, second_half, log);
    CHECK(outcome.steps == 10);

    const Checkpoint a = load_checkpoint(straight.checkpoint_path());
    const Checkpoint& b = checkpoint;
    CHECK(b.state.position == a.state.position);
    CHECK(std::memcmp(a.state.random_state, b.state.random_state, sizeof a.state.random_state) == 0);
    CHECK(a.adam.steps() == b.adam.steps());
    for (const auto& [name, t] : a.model.parameters) {
        CHECK_MESSAGE(same_bits(b.model.param(name), t), name);
        CHECK_MESSAGE(same_bits(b.adam.second_moments.at(name), a.adam.second_moments.at(name)), name);
        CHECK_MESSAGE(same_bits(b.average.values.at(name), a.average.values.at(name)), name);
    }
    // The average is a real average: it differs from the final weights.
    const std::string some = a.model.parameters.begin()->first;
    CHECK_FALSE(same_bits(a.average.values.at(some), a.model.param(some)));
    // The training made progress, and the best model file is a loadable model with provenance.
    const Model best = load_model(straight.output);
    CHECK(best.provenance.at("trained") == true);
    CHECK(best.provenance.at("data").at("train_source_sha256") == sha256_file(options.train_source));
    CHECK(a.state.history.size() >= 2);

    // What is saved is the average: without a validation set the output is the latest model.
    Model model = copy_of();
    Adam adam(model, options.adam);
    ParameterAverage average;
    TrainingState state = initial_training_state(options.seed);
    TrainerOptions latest = options;
    latest.valid_source.clear();
    latest.valid_target.clear();
    latest.max_steps = 3;
    latest.output = training_path("latest.nmt").string();
    TrainingLog quiet("", "", false, nullptr);
    train(model, adam, average, state, latest, quiet);
    const Model saved = load_model(latest.output);
    for (const auto& [name, t] : saved.parameters) CHECK_MESSAGE(same_bits(t, average.values.at(name)), name);
    CHECK_FALSE(same_bits(saved.param(some), model.param(some)));
}

TEST_CASE("parameter average: follows the weights by its rate, after a warm-up, and swaps in and out") {
    auto config = testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Dot);
    Model model = testing::random_model(config, 3, 40);
    const std::string name = model.parameters.begin()->first;
    const Tensor start = model.param(name);
    ParameterAverage average(model);
    CHECK(same_bits(average.values.at(name), start));

    // Step 1: β = max(0.01, 1 − 2/11) = 9/11: the average moves most of the way.
    for (float& v : model.param(name).values) v += 1.0f;
    average.update(model, 0.01, 1);
    for (int64_t i = 0; i < start.size(); ++i)
        CHECK(average.values.at(name).values[i] == doctest::Approx(start.values[i] + 9.0 / 11.0).epsilon(1e-5));
    // Late: β is the rate.
    const Tensor before = average.values.at(name);
    for (float& v : model.param(name).values) v += 1.0f;
    average.update(model, 0.01, 100000);
    for (int64_t i = 0; i < start.size(); ++i) {
        const double expected = before.values[i] + 0.01 * (model.param(name).values[i] - before.values[i]);
        CHECK(average.values.at(name).values[i] == doctest::Approx(expected).epsilon(1e-5));
    }

    const Tensor weights = model.param(name), averaged = average.values.at(name);
    const float* buffer = model.param(name).data();
    {
        AveragedWeightsScope scope(average, model);
        CHECK(same_bits(model.param(name), averaged));
        CHECK(model.param(name).data() == buffer);  // references held by a graph stay valid
    }
    CHECK(same_bits(model.param(name), weights));
    CHECK(same_bits(average.values.at(name), averaged));
}
