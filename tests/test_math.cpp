// oneDNN sgemm, the vectorised elementwise functions and layer normalisation
// against plain loops, libm and finite differences.
#include <doctest/doctest.h>

#include <cmath>

#include "core/fast_math.h"
#include "core/gemm.h"
#include "layers/layer_norm.h"
#include "test_support.h"

using namespace nmt;
using nmt::testing::close;
using nmt::testing::random_vector;

TEST_CASE("math: gemm equals a plain triple loop for every transpose and odd sizes") {
    for (bool ta : {false, true})
        for (bool tb : {false, true})
            for (auto [M, N, K] : {std::tuple{1, 1, 1}, {3, 5, 7}, {17, 33, 65}, {160, 129, 256}}) {
                const auto A = random_vector(M * K, 1), B = random_vector(K * N, 2);
                std::vector<float> C = random_vector(M * N, 3), expected = C;
                const int lda = ta ? M : K, ldb = tb ? K : N;
                for (int m = 0; m < M; ++m)
                    for (int n = 0; n < N; ++n) {
                        double sum = 0;
                        for (int k = 0; k < K; ++k)
                            sum += double(ta ? A[k * lda + m] : A[m * lda + k]) * (tb ? B[n * ldb + k] : B[k * ldb + n]);
                        expected[m * N + n] = float(0.5 * sum + 2.0 * expected[m * N + n]);
                    }
                gemm(ta, tb, M, N, K, 0.5f, A.data(), lda, B.data(), ldb, 2.0f, C.data(), N);
                for (int i = 0; i < M * N; ++i) REQUIRE(close(C[i], expected[i]));
            }
}

TEST_CASE("math: exp, tanh and sigmoid match libm over their whole useful range") {
    std::vector<float> xs;
    for (float x = -90.0f; x <= 90.0f; x += 0.01f) xs.push_back(x);
    for (float x : {0.0f, -0.0f, 1e-8f, -1e-8f, 0.1249f, 0.1251f, 1e-3f}) xs.push_back(x);
    auto e = xs, t = xs, s = xs;
    exp_inplace(e.data(), e.size());
    tanh_inplace(t.data(), t.size());
    sigmoid_inplace(s.data(), s.size());
    for (size_t i = 0; i < xs.size(); ++i) {
        const double x = xs[i];
        if (x > -87 && x < 88) REQUIRE(std::fabs(e[i] - std::exp(x)) <= 1e-6 * std::exp(x));
        REQUIRE(std::fabs(t[i] - std::tanh(x)) <= 1e-6 * std::max(1e-3, std::fabs(std::tanh(x))));
        REQUIRE(std::fabs(s[i] - 1 / (1 + std::exp(-x))) <= 1e-6);
    }
}

TEST_CASE("math: masked softmax gives exact zeros past the valid length and sums to one") {
    auto row = random_vector(10, 4, 5.0f);
    softmax_inplace(row.data(), 10, 6);
    double sum = 0;
    for (int i = 0; i < 6; ++i) sum += row[i];
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
    for (int i = 6; i < 10; ++i) CHECK(row[i] == 0.0f);
    auto lp = random_vector(1000, 5, 20.0f);
    log_softmax_inplace(lp.data(), lp.size());
    double total = 0;
    for (float v : lp) total += std::exp(double(v));
    CHECK(total == doctest::Approx(1.0).epsilon(1e-5));
}

TEST_CASE("math: log-softmax and softmax equal a double-precision loop wherever the largest entry is") {
    // The largest entry, 200, lies far outside exp's range (it clamps at 88),
    // so a maximum taken wrongly anywhere (the vectorised one keeps eight
    // running maxima, then a scalar tail) breaks the result, not just a digit.
    for (int n = 1; n <= 40; ++n)
        for (int peak = 0; peak < n; ++peak) {
            auto row = random_vector(n, 100 + n, 5.0f);
            row[peak] = 200.0f;
            double sum = 0;
            for (float v : row) sum += std::exp(double(v) - 200.0);
            auto lp = row, p = row;
            log_softmax_inplace(lp.data(), n);
            softmax_inplace(p.data(), n, n);
            for (int i = 0; i < n; ++i) {
                const double expected = double(row[i]) - 200.0 - std::log(sum);
                REQUIRE(std::fabs(lp[i] - expected) <= 1e-5 * std::max(1.0, std::fabs(expected)));
                REQUIRE(std::fabs(p[i] - std::exp(expected)) <= 1e-6);
            }
        }
}

TEST_CASE("math: layer normalisation gives mean 0 and variance 1, and its backward equals finite differences") {
    const int64_t n = 9;
    const auto x = random_vector(n, 21, 3.0f), gain = random_vector(n, 22), weights = random_vector(n, 23);
    std::vector<float> x_hat(n);
    const float inverse_std = normalize(x.data(), n, x_hat.data());
    double mean = 0, variance = 0, raw_mean = 0, raw_variance = 0;
    for (int64_t i = 0; i < n; ++i) raw_mean += x[i] / double(n);
    for (int64_t i = 0; i < n; ++i) raw_variance += (x[i] - raw_mean) * (x[i] - raw_mean) / double(n);
    for (float v : x_hat) mean += v / double(n);
    for (float v : x_hat) variance += (v - mean) * (v - mean) / double(n);
    CHECK(std::fabs(mean) < 1e-6);
    CHECK(variance == doctest::Approx(raw_variance / (raw_variance + 1e-5)).epsilon(1e-5));
    CHECK(inverse_std == doctest::Approx(1.0 / std::sqrt(raw_variance + 1e-5)).epsilon(1e-5));

    // L = Σ w_i·γ_i·x̂_i: dL/dx from normalize_backward against central differences, in place too.
    auto loss = [&](std::vector<float> v) {
        normalize(v.data(), n, v.data());
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += double(weights[i]) * gain[i] * v[i];
        return sum;
    };
    std::vector<float> dx(n), dgain(n, 0.5f);
    normalize_backward(weights.data(), gain.data(), x_hat.data(), inverse_std, n, dx.data(), dgain.data());
    for (int64_t i = 0; i < n; ++i) {
        CAPTURE(i);
        auto plus = x, minus = x;
        plus[i] += 1e-3f;
        minus[i] -= 1e-3f;
        CHECK(dx[i] == doctest::Approx((loss(plus) - loss(minus)) / 2e-3).epsilon(2e-3).scale(1.0));
        CHECK(dgain[i] == doctest::Approx(0.5 + weights[i] * x_hat[i]));  // accumulated, not overwritten
    }
}
