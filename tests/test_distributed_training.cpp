// Data-parallel training's premise: the ranks' slices of a batch, each with
// the dropout masks it draws, give together exactly the loss and gradients
// of the whole batch (up to the order of float additions). The processes
// themselves are tested under mpirun (tests/mpi/).
#include <doctest/doctest.h>

#include <cmath>

#include "train/distributed_training.h"
#include "train/training_graph.h"
#include "test_support.h"

using namespace nmt;

namespace {

TrainingBatch five_sentences(const Model& model) {
    const int eos = model.target_vocab.eos_id();
    TrainingBatch b;
    b.sources = {{5, 6, 7, eos}, {8, eos}, {9, 10, 11, 12, 13, eos}, {20, 21, eos}, {22, 23, 24, 25, eos}};
    b.targets = {{14, 15, eos}, {16, 17, 18, 19, eos}, {eos}, {26, 27, 28, eos}, {29, eos}};
    return b;
}

}  // namespace

TEST_CASE("distributed training: a batch's slices cover it in order, one per rank") {
    Model model = testing::random_model(
        testing::small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive), 3);
    TrainingBatch batch = five_sentences(model);
    batch.weights = {1, 2, 3, 4, 5};
    for (int ranks : {1, 2, 3, 5, 7}) {
        CAPTURE(ranks);
        size_t next = 0;
        for (int r = 0; r < ranks; ++r) {
            const TrainingBatch slice = batch_slice(batch, r, ranks);
            CHECK(slice.first_sentence == static_cast<int64_t>(next));
            CHECK(slice.sources.size() == slice.targets.size());
            CHECK(slice.weights.size() == slice.sources.size());
            for (size_t i = 0; i < slice.sources.size(); ++i, ++next) {
                CHECK(slice.sources[i] == batch.sources[next]);
                CHECK(slice.targets[i] == batch.targets[next]);
                CHECK(slice.weights[i] == batch.weights[next]);
            }
        }
        CHECK(next == batch.sources.size());
    }
    int empty = 0;
    for (int r = 0; r < 7; ++r) empty += batch_slice(batch, r, 7).sources.empty();
    CHECK(empty == 2);  // more ranks than sentences: some train on nothing
    // Slices hold about equal numbers of pieces, not of sentences: one long
    // pair gets a rank to itself.
    TrainingBatch skewed;
    skewed.sources = {{1, 2}, {1, 2}, {1, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}};
    skewed.targets = {{1, 2}, {1, 2}, {1, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}};
    CHECK(batch_slice(skewed, 0, 2).sources.size() == 3);
    CHECK(batch_slice(skewed, 1, 2).sources.size() == 1);
}

TEST_CASE("distributed training: the slices' losses and gradients, every dropout on, sum to the whole batch's") {
    for (const ModelConfig& base : {testing::small_config(CellType::GRU, CellType::LSTM, DecoderStyle::Conditional,
                                                          AttentionType::Additive),
                                    testing::small_config(CellType::LSTM, CellType::GRU, DecoderStyle::Luong,
                                                          AttentionType::General)}) {
        ModelConfig config = base;
        config.encoder_depth = 2;
        config.lexical_model = config.decoder_style != DecoderStyle::Luong;  // Luong has none
        const Model model = testing::random_model(config, 77);
        const TrainingBatch batch = five_sentences(model);
        TrainingOptions options;
        options.dropout_embeddings = 0.2f;
        options.dropout_hidden = 0.3f;
        options.dropout_source_words = 0.2f;
        options.dropout_target_words = 0.2f;
        options.dropout_rnn = 0.25f;
        Gradients whole = zero_gradients(model);
        Random random(11);
        const BatchLoss whole_loss = forward_backward(model, batch, options, random, whole);
        for (int ranks : {2, 3}) {
            CAPTURE(ranks);
            Gradients summed = zero_gradients(model);
            BatchLoss summed_loss;
            for (int r = 0; r < ranks; ++r) {
                Random same(11);  // every rank's Random is in the same state
                Gradients g = zero_gradients(model);
                const BatchLoss part = forward_backward(model, batch_slice(batch, r, ranks), options, same, g);
                summed_loss.loss += part.loss;
                summed_loss.nll += part.nll;
                summed_loss.tokens += part.tokens;
                summed_loss.correct += part.correct;
                for (auto& [name, t] : summed)
                    for (int64_t i = 0; i < t.size(); ++i) t[i] += g.at(name)[i];
            }
            CHECK(summed_loss.loss == doctest::Approx(whole_loss.loss).epsilon(1e-5));
            CHECK(summed_loss.nll == doctest::Approx(whole_loss.nll).epsilon(1e-5));
            CHECK(summed_loss.tokens == whole_loss.tokens);
            CHECK(summed_loss.correct == whole_loss.correct);
            for (const auto& [name, t] : whole) {
                CAPTURE(name);
                const Tensor& got = summed.at(name);
                for (int64_t i = 0; i < t.size(); ++i) {
                    CAPTURE(i);
                    REQUIRE(std::fabs(got[i] - t[i]) <= 1e-4f * std::fabs(t[i]) + 1e-6f);
                }
            }
        }
        // And dropout really was on: another seed gives another loss.
        Gradients other = zero_gradients(model);
        Random another(12);
        CHECK(forward_backward(model, batch, options, another, other).loss != doctest::Approx(whole_loss.loss));
    }
}
