// int8 decoding (issue 36): quantisation, int8 products against exact
// integer arithmetic and against f32 within the quantisation error, and
// decoding with int8 products: close to f32, and batched equal to one-by-one.
#include <doctest/doctest.h>

#include <cmath>

#include "core/int8_gemm.h"
#include "core/int8_small_batch.h"
#include "decode/precision.h"
#include "decode/translator.h"
#include "layers/decoder.h"
#include "layers/encoder.h"
#include "test_support.h"

using namespace nmt;

namespace {

Tensor random_tensor(Shape shape, uint64_t seed, float scale) {
    Tensor t(std::move(shape));
    t.values = testing::random_vector(t.size(), seed, scale);
    return t;
}

// W[k, n] of a [K, N] matrix, or of an [N, K] one read transposed.
float weight(const Tensor& W, bool transposed, int64_t k, int64_t n) {
    return transposed ? W[n * W.shape[1] + k] : W[k * W.shape[1] + n];
}

// What int8_product must compute, in plain loops: each row of x quantised to
// the activation levels (±127 with VNNI, ±63 without) with its own scale,
// the integer dot products summed exactly in 64 bits, then scaled back.
std::vector<double> exact_int8_reference(const std::vector<float>& x, int64_t M, const QuantizedMatrix& q) {
    std::vector<double> out(M * q.N);
    for (int64_t m = 0; m < M; ++m) {
        float max_abs = 0.0f;
        for (int64_t k = 0; k < q.K; ++k) max_abs = std::max(max_abs, std::fabs(x[m * q.K + k]));
        const float scale = max_abs > 0.0f ? max_abs / static_cast<float>(int8_activation_levels()) : 1.0f;
        for (int64_t n = 0; n < q.N; ++n) {
            int64_t sum = 0;
            for (int64_t k = 0; k < q.K; ++k)
                sum += static_cast<int64_t>(std::nearbyint(x[m * q.K + k] * (1.0f / scale))) * q.values[k * q.N + n];
            out[m * q.N + n] = static_cast<double>(sum) * scale * q.scales[n];
        }
    }
    return out;
}

}  // namespace

TEST_CASE("int8: quantised weights are within half a step of the f32 weights, per output column") {
    const int levels = int8_weight_levels;  // on every CPU
    for (bool transposed : {false, true}) {
        CAPTURE(transposed);
        const Tensor W = random_tensor(transposed ? Shape{37, 19} : Shape{19, 37}, 3, 0.5f);
        const QuantizedMatrix q = quantize_columns(W, transposed);
        REQUIRE(q.K == 19);
        REQUIRE(q.N == 37);
        REQUIRE(q.by_output == transposed);
        for (int64_t n = 0; n < q.N; ++n) {
            float max_abs = 0.0f;
            for (int64_t k = 0; k < q.K; ++k) max_abs = std::max(max_abs, std::fabs(weight(W, transposed, k, n)));
            CHECK(q.scales[n] == doctest::Approx(max_abs / levels));
            for (int64_t k = 0; k < q.K; ++k) {
                // Laid out as W is: by output when transposed.
                const int v = q.values[q.by_output ? n * q.K + k : k * q.N + n];
                CHECK(std::abs(v) <= levels);
                CHECK(std::fabs(v * q.scales[n] - weight(W, transposed, k, n)) <= 0.5f * q.scales[n] * 1.0001f);
            }
        }
    }
}

// Quantising rounds w / scale to the nearest integer, ties to even, as
// std::nearbyint does: a column whose largest magnitude is 127 has scale 1,
// so its values are rounded as they are, halves included.
TEST_CASE("int8: quantising rounds halves to even, either layout") {
    const std::vector<float> column = {127.0f, 0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 3.49f, -126.5f, 125.5f, 0.0f};
    const int64_t K = static_cast<int64_t>(column.size());
    Tensor by_rows({K, 1}), by_columns({1, K});
    for (int64_t k = 0; k < K; ++k) by_rows[k] = by_columns[k] = column[k];
    for (bool transposed : {false, true}) {
        CAPTURE(transposed);
        const QuantizedMatrix q = quantize_columns(transposed ? by_columns : by_rows, transposed);
        REQUIRE(q.scales.size() == 1);
        CHECK(q.scales[0] == 1.0f);
        for (int64_t k = 0; k < K; ++k) CHECK(q.values[k] == static_cast<int8_t>(std::nearbyint(column[k])));
    }
}

TEST_CASE("int8: products equal exact integer arithmetic, and f32 within the quantisation error") {
    // K = 300: long enough that a kernel adding u8·s8 pairs in 16 bits would
    // saturate on these values, were the weights not kept to its range.
    const int64_t M = 7, K = 300, N = 45;
    const Tensor W = random_tensor({K, N}, 11, 0.3f);
    const QuantizedMatrix q = quantize_columns(W, false);
    std::vector<float> x = testing::random_vector(M * K, 12, 2.0f);
    for (int64_t k = 0; k < K; ++k) x[3 * K + k] = 0.0f;  // an all-zero row
    const std::vector<double> exact = exact_int8_reference(x, M, q);

    std::vector<float> out(M * N, 0.0f);
    int8_product(x.data(), M, q, 0, N, out.data(), N, false);
    for (int64_t m = 0; m < M; ++m) {
        float max_abs = 0.0f;
        for (int64_t k = 0; k < K; ++k) max_abs = std::max(max_abs, std::fabs(x[m * K + k]));
        const float row_scale = max_abs > 0.0f ? max_abs / static_cast<float>(int8_activation_levels()) : 1.0f;
        for (int64_t n = 0; n < N; ++n) {
            CAPTURE(m);
            CAPTURE(n);
            const float got = out[m * N + n];
            CHECK(got == doctest::Approx(exact[m * N + n]).epsilon(1e-5).scale(1e-3));
            // Rounding x and w each by at most half a step bounds the error.
            double f32 = 0.0, bound = 0.0;
            for (int64_t k = 0; k < K; ++k) {
                const double xv = x[m * K + k], wv = W[k * N + n];
                f32 += xv * wv;
                bound += std::fabs(xv) * q.scales[n] / 2 + std::fabs(wv) * row_scale / 2 + row_scale * q.scales[n] / 4;
            }
            CHECK(std::fabs(got - f32) <= bound + 1e-4);
            if (m == 3) CHECK(got == 0.0f);
        }
    }
}

// The small-batch kernel (core/int8_small_batch.h) sums the same integers as
// oneDNN's gemm: a product of a few rows gives the same floats whichever
// runs it, for every row count it takes and one more, either layout, K not a
// multiple of its 32-value vectors, an odd column block, into a strided
// output. (Where it does not run, with VNNI, both sides are oneDNN's.)
TEST_CASE("int8: the small-batch kernel gives what oneDNN's gemm gives, bit for bit") {
    for (bool transposed : {false, true}) {
        for (int64_t K : {int64_t{40}, int64_t{300}, int64_t{384}}) {
            const int64_t N = 45, first = 6, count = 31, ldc = 48;
            const Tensor W = random_tensor(transposed ? Shape{N, K} : Shape{K, N}, 31, 0.5f);
            const QuantizedMatrix plain = quantize_columns(W, transposed);
            QuantizedMatrix prepared = plain;
            prepare_small_batches(prepared);
            CHECK(prepared.column_sums.empty() == !small_batch_kernel_available());
            for (int64_t M = 1; M <= kSmallBatchRows + 1; ++M) {
                CAPTURE(transposed);
                CAPTURE(K);
                CAPTURE(M);
                CHECK(prepared.small_batch(M) == (small_batch_kernel_available() && M <= kSmallBatchRows));
                std::vector<float> x = testing::random_vector(M * K, 32 + M, 3.0f);
                std::vector<float> by_onednn(M * ldc, 7.0f), by_kernel(M * ldc, 7.0f);
                int8_product(x.data(), M, plain, first, count, by_onednn.data(), ldc, false);
                int8_product(x.data(), M, prepared, first, count, by_kernel.data(), ldc, false);
                CHECK(by_kernel == by_onednn);
                int8_product(x.data(), M, prepared, 0, N, by_kernel.data(), N, true);  // accumulating, whole
                int8_product(x.data(), M, plain, 0, N, by_onednn.data(), N, true);
                CHECK(by_kernel == by_onednn);
            }
        }
    }
}

TEST_CASE("int8: a column block accumulates into a strided output, batched rows equal one-by-one, either layout") {
    const int64_t M = 6, K = 40, N = 30, first = 10, count = 12, ldc = 20;
    const QuantizedMatrix q = quantize_columns(random_tensor({K, N}, 21, 1.0f), false);
    const std::vector<float> x = testing::random_vector(M * K, 22, 1.0f);
    std::vector<float> full(M * N, 0.0f);
    int8_product(x.data(), M, q, 0, N, full.data(), N, false);

    std::vector<float> batched(M * ldc, 1.5f);
    int8_product(x.data(), M, q, first, count, batched.data(), ldc, true);
    for (int64_t m = 0; m < M; ++m) {
        std::vector<float> single(count, 0.0f);
        int8_product(x.data() + m * K, 1, q, first, count, single.data(), count, false);
        for (int64_t n = 0; n < count; ++n) {
            CHECK(single[n] == full[m * N + first + n]);  // bit for bit
            CHECK(batched[m * ldc + n] == 1.5f + single[n]);
        }
        for (int64_t n = count; n < ldc; ++n) CHECK(batched[m * ldc + n] == 1.5f);  // outside the block: untouched
    }
    // Laid out by output (as the shortlist cuts the output layer), the same sums.
    const QuantizedMatrix by_output = transposed_layout(q);
    REQUIRE(by_output.by_output);
    CHECK(transposed_layout(by_output).values == q.values);
    std::vector<float> block(M * count, 0.0f);
    int8_product(x.data(), M, by_output, first, count, block.data(), count, false);
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < count; ++n) CHECK(block[m * count + n] == full[m * N + first + n]);
}

// Turned round in 64 × 64 tiles: a shape of several tiles with ragged edges
// on both sides, every value checked where it lands.
TEST_CASE("int8: turning a layout round moves every value, across tiles and ragged edges") {
    QuantizedMatrix q;
    q.K = 150;
    q.N = 70;
    for (int64_t i = 0; i < q.K * q.N; ++i) q.values.push_back(static_cast<int8_t>(i * 7 % 251 - 125));
    for (int64_t n = 0; n < q.N; ++n) q.scales.push_back(0.01f * static_cast<float>(n + 1));
    const QuantizedMatrix turned = transposed_layout(q);
    REQUIRE(turned.by_output);
    REQUIRE(turned.K == q.K);
    REQUIRE(turned.N == q.N);
    CHECK(turned.scales == q.scales);
    int64_t misplaced = 0;
    for (int64_t k = 0; k < q.K; ++k)
        for (int64_t n = 0; n < q.N; ++n) misplaced += turned.values[n * q.K + k] != q.values[k * q.N + n];
    CHECK(misplaced == 0);
    const QuantizedMatrix back = transposed_layout(turned);
    CHECK(!back.by_output);
    CHECK(back.values == q.values);
}

TEST_CASE("int8: decoding steps stay close to f32, for every architecture") {
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 61);
        const int eos = model.source_vocab.eos_id();
        const std::vector<std::vector<int>> sources = {{5, 9, 14, eos}, {7, 3, 11, 20, 8, eos}};
        std::vector<Tensor> log_probs[2];
        for (Precision precision : {Precision::FP32, Precision::Int8}) {
            set_decoding_precision(model, precision);
            CHECK(model.int8.empty() == (precision == Precision::FP32));
            Encoder encoder(model);
            Decoder decoder(model);
            const EncodedBatch batch = encoder.encode(sources);
            DecoderState state = decoder.start(batch);
            std::vector<int> previous = {1, 1};
            Tensor step_log_probs, attention;
            for (int t = 0; t < 4; ++t) {
                decoder.step(batch, state, previous.data(), step_log_probs, attention);
                log_probs[precision == Precision::Int8].push_back(step_log_probs);
                previous = {4 + t, 9 + t};
            }
        }
        for (size_t t = 0; t < log_probs[0].size(); ++t) {
            double worst = 0.0;
            for (int64_t i = 0; i < log_probs[0][t].size(); ++i)
                worst = std::max(worst, std::fabs(double(log_probs[0][t][i]) - log_probs[1][t][i]));
            CAPTURE(t);
            // Activations kept to ±63 where the CPU lacks VNNI round twice as coarsely.
            CHECK(worst < 0.05 * 127.0 / int8_activation_levels());
            CHECK(worst > 0.0);  // the int8 path did run
        }
    }
}

// The int8 encoder steps its cells (layers/rnn_layer.h) with rows quantised
// one by one: its states, keys and first decoder state stay close to f32's,
// and a sentence's states are the same alone as in a batch, bit for bit.
TEST_CASE("int8: the encoder stays close to f32, and batched equals one-by-one, for every architecture") {
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 63);
        const int eos = model.source_vocab.eos_id();
        const std::vector<std::vector<int>> sources = {{5, 9, 14, eos}, {7, 3, 11, 20, 8, 6, 12, eos}, {4, eos}};
        set_decoding_precision(model, Precision::FP32);
        const EncodedBatch f32 = Encoder(model).encode(sources);
        set_decoding_precision(model, Precision::Int8);
        REQUIRE(model.quantized("encoder.0.forward.W") != nullptr);
        Encoder encoder(model);
        const EncodedBatch int8 = encoder.encode(sources);
        auto worst_gap = [](const Tensor& a, const Tensor& b) {
            REQUIRE(a.shape == b.shape);
            double worst = 0.0;
            for (int64_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - b[i]));
            return worst;
        };
        const double bound = 0.05 * 127.0 / int8_activation_levels();  // ±63 activations round twice as coarsely
        const double states_gap = worst_gap(f32.states, int8.states);
        CHECK(states_gap < bound);
        CHECK(states_gap > 0.0);  // the int8 path did run
        CHECK(worst_gap(f32.init_state, int8.init_state) < bound);
        if (!f32.keys.values.empty()) CHECK(worst_gap(f32.keys, int8.keys) < bound);
        for (size_t i = 0; i < sources.size(); ++i) {
            CAPTURE(i);
            const EncodedBatch alone = encoder.encode({sources[i]});
            const int64_t C = alone.states.shape[2];
            for (int64_t t = 0; t < alone.max_length; ++t)
                for (int64_t k = 0; k < C; ++k)
                    REQUIRE(alone.state(0, t)[k] == int8.state(static_cast<int64_t>(i), t)[k]);
            // The first decoder state's tanh runs over the whole [N, D] block,
            // whose vectorised body and tail split it differently for another
            // N (in f32 too): equal to a float's last bits, not to all of them.
            for (int64_t k = 0; k < alone.init_state.cols(); ++k)
                REQUIRE(std::fabs(alone.init_state.row(0)[k] - int8.init_state.row(static_cast<int64_t>(i))[k]) <= 1e-6f);
        }
    }
}

TEST_CASE("int8: batched translation equals one-by-one, for every architecture") {
    const std::vector<std::string> lines = {"the cat sat on the mat", "", "a dog runs in the park",
                                            "bird sings", "the dog sat", "a cat runs on a mat in the park"};
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        Model model = testing::random_model(config, 52);
        set_decoding_precision(model, Precision::Int8);
        Translator translator(model);
        TranslateOptions options;
        options.search.beam_size = 3;
        options.batch_size = 32;
        const auto batched = translator.translate(lines, options);
        options.batch_size = 1;
        const auto single = translator.translate(lines, options);
        for (size_t i = 0; i < lines.size(); ++i) {
            REQUIRE(batched[i].hypotheses.size() == single[i].hypotheses.size());
            for (size_t k = 0; k < batched[i].hypotheses.size(); ++k) {
                CHECK(batched[i].hypotheses[k].target_ids == single[i].hypotheses[k].target_ids);
                // The encoder's oneDNN primitives sum in an order that depends on
                // the batch (as in f32: test_translator.cpp), so scores are close.
                CHECK(testing::close(batched[i].hypotheses[k].score, single[i].hypotheses[k].score));
            }
        }
    }
}

TEST_CASE("int8: precision names") {
    CHECK(parse_precision("fp32") == Precision::FP32);
    CHECK(parse_precision("int8") == Precision::Int8);
    CHECK(to_string(Precision::Int8) == "int8");
    CHECK(parse_precision("auto") == default_precision());
    CHECK(default_precision() == (int8_has_avx2() ? Precision::Int8 : Precision::FP32));
    if (int8_has_vnni()) CHECK(int8_has_avx2());
    CHECK(testing::error_of([] { parse_precision("int4"); }) == "unknown precision 'int4' (fp32, int8 or auto)");
}

TEST_CASE("int8: a model loaded for int8 holds the same int8 weights, no f32 copy of them, and translates the same") {
    const std::vector<std::string> lines = {"the cat sat on the mat", "a dog runs in the park", "bird sings"};
    for (const auto& config : testing::all_architectures()) {
        CAPTURE(testing::describe(config));
        for (DType storage : {DType::F16, DType::F32}) {
            CAPTURE(dtype_name(storage));
            const std::string path = testing::temp_path("int8_load", "model.nmt").string();
            save_model(path, testing::random_model(config, 71), storage);
            Model converted = load_model(path);
            set_decoding_precision(converted, Precision::Int8);
            const Model loaded = load_model(path, true);

            REQUIRE(loaded.int8.size() == converted.int8.size());
            for (const auto& [name, q] : converted.int8) {
                const std::string& matrix = name;  // CAPTURE cannot take a structured binding under clang
                CAPTURE(matrix);
                const QuantizedMatrix* same = loaded.quantized(name);
                REQUIRE(same != nullptr);
                CHECK(same->values == q.values);
                CHECK(same->scales == q.scales);
                CHECK(same->by_output == q.by_output);
                // No f32 copies: a shape and no values.
                const Tensor& f32 = loaded.param(name);
                CHECK(f32.shape == converted.param(name).shape);
                CHECK(f32.cols() == converted.param(name).cols());
                CHECK(f32.values.empty());
                // An embedding table is looked up in its stored form.
                if (int8_matrices(config).at(name).looked_up) {
                    const EmbeddingTable table = loaded.embedding_table(name);
                    REQUIRE(table.stored != nullptr);
                    std::vector<float> row(table.dim);
                    for (int64_t id : {int64_t{0}, int64_t{7}, f32.rows() - 1}) {
                        table.row(id, row.data());
                        const Tensor& expected = converted.param(name);
                        CHECK(std::equal(row.begin(), row.end(), expected.row(id)));
                    }
                }
            }
            for (const auto& [name, values] : converted.parameters)
                if (!converted.int8.count(name)) CHECK(loaded.param(name).values == values.values);

            TranslateOptions options;
            options.search.beam_size = 3;
            const auto expected = Translator(converted).translate(lines, options);
            const auto got = Translator(loaded).translate(lines, options);
            for (size_t i = 0; i < lines.size(); ++i) {
                CHECK(got[i].hypotheses[0].target_ids == expected[i].hypotheses[0].target_ids);
                CHECK(got[i].hypotheses[0].score == expected[i].hypotheses[0].score);
            }
        }
    }
}

TEST_CASE("int8: loading for int8 refuses a weight matrix that holds NaN, naming the file and the tensor") {
    const ModelConfig config = testing::all_architectures().front();
    Model model = testing::random_model(config, 72);
    model.param("decoder.rnn.U").values[5] = std::nanf("");
    const std::string path = testing::temp_path("int8_load", "nan.nmt").string();
    save_model(path, model, DType::F16);
    const std::string error = testing::error_of([&] { load_model(path, true); });
    CHECK(error == path + ": tensor decoder.rnn.U contains NaN or infinity");
}
