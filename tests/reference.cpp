#include "reference.h"

#include <cmath>
#include <stdexcept>

namespace nmt::reference {

namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

Vec concat(std::initializer_list<Vec> parts) {
    Vec out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

Vec row_of(const Tensor& t, int64_t r) { return Vec(t.row(r), t.row(r) + t.cols()); }

Vec tanh_of(Vec v) {
    for (auto& x : v) x = std::tanh(x);
    return v;
}

Vec log_softmax(Vec v) {
    double max = v[0];
    for (float x : v) max = std::max<double>(max, x);
    double sum = 0;
    for (float x : v) sum += std::exp(x - max);
    for (auto& x : v) x = static_cast<float>(x - max - std::log(sum));
    return v;
}

}  // namespace

Vec linear(const Vec& x, const Tensor& W, const Tensor* b) {
    const int64_t in = W.shape[0], out = W.cols();
    Vec y(out, 0.0f);
    for (int64_t o = 0; o < out; ++o) {
        double sum = b ? (*b)[o] : 0.0;
        for (int64_t i = 0; i < in; ++i) sum += double(x[i]) * W[i * out + o];
        y[o] = static_cast<float>(sum);
    }
    return y;
}

Vec linear_t(const Vec& x, const Tensor& W) {
    const int64_t out = W.shape[0], in = W.cols();
    Vec y(out, 0.0f);
    for (int64_t o = 0; o < out; ++o) {
        double sum = 0;
        for (int64_t i = 0; i < in; ++i) sum += double(x[i]) * W[o * in + i];
        y[o] = static_cast<float>(sum);
    }
    return y;
}

namespace {

// Gate block g of `products` (blocks of H): γ∘(x − μ)/√(σ² + 1e-5) with
// `gain`, or the values unchanged when gain is null.
Vec normalized_gate(const Vec& products, int64_t g, int64_t H, const Tensor* gain) {
    Vec out(products.begin() + g * H, products.begin() + (g + 1) * H);
    if (!gain) return out;
    double mean = 0, variance = 0;
    for (float x : out) mean += x;
    mean /= H;
    for (float x : out) variance += (x - mean) * (x - mean);
    variance /= H;
    for (int64_t k = 0; k < H; ++k) out[k] = static_cast<float>((*gain)[g * H + k] * (out[k] - mean) / std::sqrt(variance + 1e-5));
    return out;
}

}  // namespace

Vec cell(CellType type, const Tensor& W, const Tensor& U, const Tensor& b, const Vec& x, const Vec& h, Vec& c,
         const Tensor* ln_x, const Tensor* ln_h) {
    const int64_t H = U.shape[0];
    const Vec px = linear(x, W), ph = linear(h, U);
    // z_g = N_x(x·W_g) + N_h(h·U_g) + b_g, N the identity for a plain cell.
    auto preactivation = [&](int64_t g, const Vec& hidden_products) {
        const Vec a = normalized_gate(px, g, H, ln_x), r = normalized_gate(hidden_products, g, H, ln_h);
        Vec z(H);
        for (int64_t k = 0; k < H; ++k) z[k] = a[k] + r[k] + b[g * H + k];
        return z;
    };
    if (type == CellType::GRU) {
        // u = σ(W_u x + U_u h + b_u), r = σ(...), o = tanh(W_o x + U_o (r∘h) + b_o), h' = u∘h + (1−u)∘o
        const Vec zu = preactivation(0, ph), zr = preactivation(1, ph);
        Vec u(H), r(H), rh(H);
        for (int64_t k = 0; k < H; ++k) {
            u[k] = sigmoid(zu[k]);
            r[k] = sigmoid(zr[k]);
            rh[k] = r[k] * h[k];
        }
        const Vec zo = preactivation(2, linear(rh, U));
        Vec out(H);
        for (int64_t k = 0; k < H; ++k) out[k] = u[k] * h[k] + (1 - u[k]) * std::tanh(zo[k]);
        return out;
    }
    const Vec zi = preactivation(0, ph), zf = preactivation(1, ph), zg = preactivation(2, ph), zo = preactivation(3, ph);
    Vec out(H);
    for (int64_t k = 0; k < H; ++k) {
        c[k] = sigmoid(zf[k]) * c[k] + sigmoid(zi[k]) * std::tanh(zg[k]);
        out[k] = sigmoid(zo[k]) * std::tanh(c[k]);
    }
    return out;
}

Vec cell(const Model& model, const std::string& prefix, CellType type, const Vec& x, const Vec& h, Vec& c) {
    const bool ln = model.has(prefix + ".ln_x");
    return cell(type, model.param(prefix + ".W"), model.param(prefix + ".U"), model.param(prefix + ".b"), x, h, c,
                ln ? &model.param(prefix + ".ln_x") : nullptr, ln ? &model.param(prefix + ".ln_h") : nullptr);
}

Mat encode(const Model& model, const std::vector<int>& ids) {
    const auto& cfg = model.config;
    const int64_t n = ids.size(), H = cfg.dim_rnn, C = cfg.dim_context();
    const Tensor& emb = model.param(model.config.source_embeddings());
    auto run = [&](const std::string& prefix, const Mat& inputs, bool backwards) {
        const int64_t size = model.param(prefix + ".U").shape[0];
        Vec h(size, 0.0f), c(size, 0.0f);
        Mat out(inputs.size());
        for (int64_t s = 0; s < int64_t(inputs.size()); ++s) {
            const int64_t j = backwards ? inputs.size() - 1 - s : s;
            h = cell(model, prefix, cfg.encoder_cell, inputs[j], h, c);
            out[j] = h;
        }
        return out;
    };
    Mat embedded;
    for (int id : ids) embedded.push_back(row_of(emb, id));
    const Mat fwd = run("encoder.0.forward", embedded, false);
    const Mat bwd = run("encoder.0.backward", embedded, true);
    Mat layer(n);
    for (int64_t j = 0; j < n; ++j) layer[j] = concat({fwd[j], bwd[j]});
    for (int l = 1; l < cfg.encoder_depth; ++l) {
        Mat next = run("encoder." + std::to_string(l), layer, false);
        if (l >= 2)
            for (int64_t j = 0; j < n; ++j)
                for (int64_t k = 0; k < C; ++k) next[j][k] += layer[j][k];
        layer = next;
    }
    (void)H;
    return layer;
}

Vec initial_state(const Model& model, const Mat& states) {
    Vec mean(states[0].size(), 0.0f);
    for (const auto& h : states)
        for (size_t k = 0; k < h.size(); ++k) mean[k] += h[k] / states.size();
    return tanh_of(linear(mean, model.param("decoder.init.W"), &model.param("decoder.init.b")));
}

Vec attention_weights(const Model& model, const Mat& states, const Vec& q) {
    const auto& cfg = model.config;
    Vec scores(states.size());
    for (size_t j = 0; j < states.size(); ++j) {
        const Vec& h = states[j];
        double s = 0;
        switch (cfg.attention) {
            case AttentionType::Additive: {
                const Vec a = linear(q, model.param("attention.Wq"));
                const Vec k = linear(h, model.param("attention.Wk"), &model.param("attention.b"));
                const Tensor& v = model.param("attention.v");
                for (size_t i = 0; i < a.size(); ++i) s += v[i] * std::tanh(a[i] + k[i]);
                break;
            }
            case AttentionType::Dot:
                for (size_t i = 0; i < q.size(); ++i) s += q[i] * h[i];
                break;
            case AttentionType::General:
            case AttentionType::ScaledDot: {
                const Vec Wh = model.has("attention.Wa") ? linear_t(h, model.param("attention.Wa")) : h;  // W_a h
                for (size_t i = 0; i < q.size(); ++i) s += q[i] * Wh[i];
                if (cfg.attention == AttentionType::ScaledDot) s /= std::sqrt(double(q.size()));
                break;
            }
        }
        scores[j] = static_cast<float>(s);
    }
    Vec w = log_softmax(scores);
    for (auto& x : w) x = std::exp(x);
    return w;
}

Vec context(const Mat& states, const Vec& weights) {
    Vec c(states[0].size(), 0.0f);
    for (size_t j = 0; j < states.size(); ++j)
        for (size_t k = 0; k < c.size(); ++k) c[k] += weights[j] * states[j][k];
    return c;
}

Mat source_embeddings(const Model& model, const std::vector<int>& ids) {
    Mat out;
    for (int id : ids) out.push_back(row_of(model.param(model.config.source_embeddings()), id));
    return out;
}

Vec decoder_step(const Model& model, const Mat& states, DecoderRow& row, int previous_token, Vec& attention,
                 const Mat* embeddings) {
    const auto& cfg = model.config;
    const Vec y = row_of(model.param("target.embeddings"), previous_token);
    if (row.cell.empty()) row.cell.assign(cfg.dim_dec, 0.0f);
    Vec out;
    if (cfg.decoder_style == DecoderStyle::Conditional) {
        const Vec s1 = cell(model, "decoder.rnn", cfg.decoder_cell, y, row.hidden, row.cell);  // updates row.cell too
        attention = attention_weights(model, states, s1);
        const Vec c = context(states, attention);
        row.hidden = cell(model, "decoder.rnn2", cfg.decoder_cell, c, s1, row.cell);
        out = tanh_of(linear(concat({row.hidden, c, y}), model.param("decoder.output.W"),
                             &model.param("decoder.output.b")));
    } else if (cfg.decoder_style == DecoderStyle::Bahdanau) {
        attention = attention_weights(model, states, row.hidden);
        const Vec c = context(states, attention);
        row.hidden = cell(model, "decoder.rnn", cfg.decoder_cell, concat({y, c}), row.hidden, row.cell);
        out = tanh_of(linear(concat({row.hidden, c, y}), model.param("decoder.output.W"),
                             &model.param("decoder.output.b")));
    } else {
        if (row.feed.empty()) row.feed.assign(cfg.dim_emb, 0.0f);
        const Vec x = cfg.input_feeding ? concat({y, row.feed}) : y;
        row.hidden = cell(model, "decoder.rnn", cfg.decoder_cell, x, row.hidden, row.cell);
        attention = attention_weights(model, states, row.hidden);
        const Vec c = context(states, attention);
        out = tanh_of(linear(concat({c, row.hidden}), model.param("decoder.output.W"),
                             &model.param("decoder.output.b")));
        row.feed = out;
    }
    if (cfg.lexical_model) {  // o_t += W_ℓ Σ_j α_tj x_j
        if (!embeddings) throw std::logic_error("reference::decoder_step: a lexical model needs the source embeddings");
        const Vec lexical = context(*embeddings, attention);
        const Vec added = linear(lexical, model.param("decoder.lexical.W"));
        for (size_t k = 0; k < out.size(); ++k) out[k] += added[k];
    }
    Vec logits = cfg.tied_embeddings ? linear_t(out, model.param("target.embeddings"))
                                     : linear(out, model.param("decoder.vocab.W"));
    const Tensor& vb = model.param("decoder.vocab.b");
    for (size_t v = 0; v < logits.size(); ++v) logits[v] += vb[v];
    return log_softmax(logits);
}

}  // namespace nmt::reference
