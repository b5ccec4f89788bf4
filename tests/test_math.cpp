// oneDNN sgemm and the vectorised elementwise functions against plain loops and libm.
#include <doctest/doctest.h>

#include <cmath>

#include "fast_math.h"
#include "gemm.h"
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
