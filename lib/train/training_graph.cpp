#include "train/training_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "layers/attention.h"
#include "train/cell_run.h"
#include "layers/decoder_step.h"
#include "layers/encoded_batch.h"
#include "layers/encoder.h"
#include "train/dropout_masks.h"
#include "core/error.h"
#include "core/fast_math.h"
#include "core/gemm.h"

namespace nmt {

namespace {

void multiply(float* x, const Tensor& mask) {
    for (int64_t i = 0; i < mask.size(); ++i) x[i] *= mask[i];
}

void column_sums(const float* x, int64_t rows, int64_t cols, float* out) {
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < cols; ++k) out[k] += x[r * cols + k];
}

// y = x·W + b, dW += xᵀ·dy, db += Σ dy, dx = dy·Wᵀ.
void linear_backward(const float* x, const float* dy, int64_t M, const Tensor& W, Tensor* dW, Tensor* db, float* dx,
                     bool accumulate_dx = false) {
    const int64_t K = W.shape[0], N = W.cols();
    if (dW) gemm(true, false, K, N, M, 1.0f, x, K, dy, N, 1.0f, dW->data(), N);
    if (db) column_sums(dy, M, N, db->data());
    if (dx) gemm(false, true, M, K, N, 1.0f, dy, N, W.data(), N, accumulate_dx ? 1.0f : 0.0f, dx, K);
}

}  // namespace

class TrainingGraph::Graph {
public:
    explicit Graph(const Model& model) : model_(model), config_(model.config), attention_(model) {
        auto cell = [&](const std::string& prefix, CellType type) {
            return std::make_unique<CellRun>(type, cell_weights(model_, prefix));
        };
        forward_ = cell("encoder.0.forward", config_.encoder_cell);
        backward_ = cell("encoder.0.backward", config_.encoder_cell);
        for (int l = 1; l < config_.encoder_depth; ++l) upper_.push_back(cell("encoder." + std::to_string(l), config_.encoder_cell));
        decoder_ = cell("decoder.rnn", config_.decoder_cell);
        if (config_.decoder_style == DecoderStyle::Conditional) decoder2_ = cell("decoder.rnn2", config_.decoder_cell);
    }

    BatchLoss run(const TrainingBatch& batch, const TrainingOptions& options, Random& random, Gradients* gradients) {
        batch_ = &batch;
        opt_ = options;
        // One draw per pass; every mask then follows from it and the sentence (dropout_masks.h).
        masks_ = DropoutMasks(random.next(), batch.first_sentence);
        gradients_ = gradients;
        N_ = batch.sources.size();
        if (!batch.weights.empty() && batch.weights.size() != batch.sources.size())
            throw Error("training batch: " + std::to_string(batch.weights.size()) + " sentence weights for " +
                        std::to_string(batch.sources.size()) + " sentences");
        if (!batch.alignments.empty() && batch.alignments.size() != batch.sources.size())
            throw Error("training batch: " + std::to_string(batch.alignments.size()) + " alignments for " +
                        std::to_string(batch.sources.size()) + " sentences");
        T_ = Ty_ = 0;
        src_len_.clear();
        tgt_len_.clear();
        for (size_t n = 0; n < batch.sources.size(); ++n) {
            src_len_.push_back(batch.sources[n].size());
            tgt_len_.push_back(batch.targets[n].size());
            T_ = std::max<int64_t>(T_, src_len_.back());
            Ty_ = std::max<int64_t>(Ty_, tgt_len_.back());
        }
        guided_ = opt_.guided_alignment_weight > 0 && !batch.alignments.empty();
        if (guided_) build_alignment_targets();
        encode();
        decode();
        BatchLoss loss = loss_and_output_gradient();
        if (guided_) loss.loss += guided_alignment_loss();
        if (!gradients_) return loss;
        decoder_backward();
        encoder_backward();
        return loss;
    }

private:
    // ---- guided alignment --------------------------------------------------
    // Each piece's word: pieces that begin with SentencePiece's "▁" start a
    // word (the whitespace-separated words the alignments count), the rest
    // continue the one before; EOS gets none (-1).
    std::vector<int> piece_words(const std::vector<int>& ids, const Vocabulary& vocab,
                                 std::vector<signed char>& starts_word) {
        if (starts_word.empty()) {
            starts_word.resize(vocab.size());
            for (int id = 0; id < vocab.size(); ++id) starts_word[id] = vocab.piece(id).rfind("\xE2\x96\x81", 0) == 0;
        }
        std::vector<int> words(ids.size(), -1);
        int word = -1;
        for (size_t k = 0; k + 1 < ids.size(); ++k) {
            if (starts_word[ids[k]] || word < 0) ++word;
            words[k] = word;
        }
        return words;
    }

    // alignment_targets_ [Ty, N, T] (time-major rows, as weights_): row
    // (t, n) spreads 1 over the source pieces of the words linked to target
    // piece t's word, target EOS onto source EOS; all 0 where t's word has no link.
    void build_alignment_targets() {
        alignment_targets_.zero({Ty_ * N_, T_});
        for (int64_t n = 0; n < N_; ++n) {
            const std::vector<int> source_words = piece_words(batch_->sources[n], model_.source_vocab, source_word_start_);
            const std::vector<int> target_words = piece_words(batch_->targets[n], model_.target_vocab, target_word_start_);
            for (int64_t t = 0; t < tgt_len_[n]; ++t) {
                float* row = alignment_targets_.row(t * N_ + n);
                if (t + 1 == tgt_len_[n]) row[src_len_[n] - 1] = 1.0f;
                for (const auto& [i, j] : batch_->alignments[n]) {
                    if (j != target_words[t]) continue;
                    for (int64_t k = 0; k < src_len_[n]; ++k)
                        if (source_words[k] == i) row[k] = 1.0f;
                }
                float total = 0;
                for (int64_t k = 0; k < src_len_[n]; ++k) total += row[k];
                if (total > 0)
                    for (int64_t k = 0; k < src_len_[n]; ++k) row[k] /= total;
            }
        }
    }

    // weight × Σ −A_tj log α_tj over the batch (sentence weights included).
    double guided_alignment_loss() const {
        double total = 0;
        for (int64_t n = 0; n < N_; ++n)
            for (int64_t t = 0; t < tgt_len_[n]; ++t) {
                const float* target = alignment_targets_.row(t * N_ + n);
                const float* alpha = weights_.row(t * N_ + n);
                double row = 0;
                for (int64_t j = 0; j < src_len_[n]; ++j)
                    if (target[j] > 0) row -= target[j] * std::log(std::max(alpha[j], 1e-30f));
                total += batch_->weight(n) * row;
            }
        return opt_.guided_alignment_weight * total;
    }

    Tensor& grad(const std::string& name) { return gradients_->at(name); }
    CellGradients cell_gradients(const std::string& prefix) {
        const bool ln = model_.has(prefix + ".ln_x");
        return {grad(prefix + ".W"), grad(prefix + ".U"), grad(prefix + ".b"), ln ? &grad(prefix + ".ln_x") : nullptr,
                ln ? &grad(prefix + ".ln_h") : nullptr};
    }
    const Tensor& param(const std::string& name) const { return model_.param(name); }
    int64_t rev(int64_t n, int64_t t) const { return src_len_[n] - 1 - t; }

    // ---- encoder ---------------------------------------------------------
    void encode() {
        const int64_t E = config_.dim_emb, H = config_.dim_rnn, C = config_.dim_context();
        const Tensor& table = param(config_.source_embeddings());
        source_embedded_.zero({T_, N_, E});
        for (int64_t n = 0; n < N_; ++n)
            for (int64_t t = 0; t < src_len_[n]; ++t)
                std::memcpy(source_embedded_.data() + (t * N_ + n) * E, table.row(batch_->sources[n][t]), E * sizeof(float));
        masks_.apply(source_embedded_.data(), source_mask_, T_, N_, E, src_len_, true, opt_.dropout_embeddings,
                     kSourceEmbeddings);
        masks_.drop_words(source_embedded_.data(), source_mask_, N_, E, src_len_, opt_.dropout_source_words, kSourceWords);
        forward_->reset(T_, N_);
        backward_->reset(T_, N_);
        forward_->drop_recurrent(opt_.dropout_rnn, masks_, kRecurrentSites + 0);
        backward_->drop_recurrent(opt_.dropout_rnn, masks_, kRecurrentSites + 1);
        std::memcpy(forward_->input(0), source_embedded_.data(), source_embedded_.size() * sizeof(float));
        std::memset(backward_->input(0), 0, source_embedded_.size() * sizeof(float));
        for (int64_t n = 0; n < N_; ++n)
            for (int64_t t = 0; t < src_len_[n]; ++t)
                std::memcpy(backward_->input(rev(n, t)) + n * E, source_embedded_.data() + (t * N_ + n) * E,
                            E * sizeof(float));
        forward_->forward_all();
        backward_->forward_all();
        Tensor& layer = scratch_["layer"];
        join_directions(forward_->h(0), backward_->h(0), src_len_, T_, N_, H, layer);
        for (int l = 1; l < config_.encoder_depth; ++l) {
            CellRun& u = *upper_[l - 1];
            u.reset(T_, N_);
            u.drop_recurrent(opt_.dropout_rnn, masks_, kRecurrentSites + 1 + l);
            std::memcpy(u.input(0), layer.data(), layer.size() * sizeof(float));
            u.forward_all();
            for (int64_t i = 0; i < layer.size(); ++i) layer[i] = u.h(0)[i] + (residual_into(l) ? layer[i] : 0.0f);
        }
        encoded_.batch = N_;
        encoded_.max_length = T_;
        encoded_.lengths = src_len_;
        Tensor& states = encoded_.states;
        to_batch_major(layer.data(), src_len_, T_, N_, C, states);
        masks_.apply(states.data(), states_mask_, T_, N_, C, src_len_, false, opt_.dropout_hidden, kEncoderStates);

        initial_decoder_state(model_, states, src_len_, mean_, encoded_.init_state);
        attention_keys(model_, states, encoded_.keys);
        // The lexical model reads x_j as the encoder did, dropout included.
        if (config_.lexical_model) to_batch_major(source_embedded_.data(), src_len_, T_, N_, E, encoded_.embeddings);
    }
    const float* state(int64_t n, int64_t t) const { return encoded_.state(n, t); }
    const Tensor& keys() const { return encoded_.keys.values.empty() ? encoded_.states : encoded_.keys; }

    // ---- attention -------------------------------------------------------
    int64_t key_size() const { return keys().shape[2]; }
    float score_scale() const { return attention_scale(config_); }

    // Row block t of the per-step tensors: queries, projected queries, energies, weights, context.
    const float* attend(int64_t t, const float* queries) {
        const int64_t r = t * N_;
        std::memcpy(queries_.row(r), queries, N_ * config_.dim_dec * sizeof(float));
        const AttentionRecord record{projected_.row(r), energies_.values.empty() ? nullptr : energies_.row(r)};
        attention_.attend(encoded_, queries, N_, row_sentence_.data(), context_.row(r), weights_.row(r), &record);
        return context_.row(r);
    }

    // From d(context) of step t (and, with the lexical model, d(ℓ_t) in d_lexical_): gradients on
    // states, keys, v, source embeddings, and on the query (returned in dq).
    void attend_backward(int64_t t, const float* dctx, float* dq) {
        const int64_t C = config_.dim_context(), A = config_.dim_attention, D = config_.dim_dec, K = key_size();
        const bool additive = config_.attention == AttentionType::Additive;
        const int64_t Q = projected_.cols();
        float* dqp = dprojected_.row(t * N_);
        std::memset(dqp, 0, N_ * Q * sizeof(float));
        const float scale = score_scale();
        std::vector<float> dalpha(T_), de(T_);
        for (int64_t n = 0; n < N_; ++n) {
            const int64_t r = t * N_ + n, len = src_len_[n];
            const float* alpha = weights_.row(r);
            const float* dc = dctx + n * C;
            const float* dl = config_.lexical_model ? d_lexical_.row(r) : nullptr;  // d(ℓ_t)
            const int64_t E = config_.dim_emb;
            float dot_sum = 0;
            for (int64_t j = 0; j < len; ++j) {
                float s = 0;
                for (int64_t i = 0; i < C; ++i) s += dc[i] * state(n, j)[i];
                float* ds = dstates_.data() + (n * T_ + j) * C;
                for (int64_t i = 0; i < C; ++i) ds[i] += alpha[j] * dc[i];
                if (dl) {  // ℓ_t = Σ_j α_tj x_j: d(α_tj) += d(ℓ_t)·x_j, d(x_j) += α_tj d(ℓ_t)
                    const float* x = encoded_.embedding(n, j);  // as the encoder read it, dropout included
                    float* dx = d_lexical_source_.data() + (j * N_ + n) * E;
                    float lexical = 0;  // summed apart, as the shipped en->de model was trained
                    for (int64_t k = 0; k < E; ++k) {
                        lexical += dl[k] * x[k];
                        dx[k] += alpha[j] * dl[k];
                    }
                    s += lexical;
                }
                dalpha[j] = s;
                dot_sum += alpha[j] * s;
            }
            for (int64_t j = 0; j < len; ++j) de[j] = alpha[j] * (dalpha[j] - dot_sum);
            if (guided_) {  // d(−w Σ_j A_j log α_j)/d(score_j) = w (α_j Σ_k A_k − A_j)
                const float* target = alignment_targets_.row(r);
                const float w = opt_.guided_alignment_weight * batch_->weight(n);
                float mass = 0;
                for (int64_t j = 0; j < len; ++j) mass += target[j];
                for (int64_t j = 0; j < len; ++j) de[j] += w * (alpha[j] * mass - target[j]);
            }
            float* dk = dkeys_.data() + n * T_ * K;
            float* dq_row = dqp + n * Q;
            if (additive) {
                const float* u = energies_.row(r);
                const float* v = param("attention.v").data();
                float* dv = grad("attention.v").data();
                for (int64_t j = 0; j < len; ++j)
                    for (int64_t a = 0; a < A; ++a) {
                        const float uu = u[j * A + a];
                        dv[a] += de[j] * uu;
                        const float dz = de[j] * v[a] * (1 - uu * uu);
                        dq_row[a] += dz;
                        dk[j * A + a] += dz;
                    }
            } else {
                const float* q = projected_.row(r);
                const float* k = keys().data() + n * T_ * K;
                for (int64_t j = 0; j < len; ++j)
                    for (int64_t i = 0; i < K; ++i) {
                        dq_row[i] += scale * de[j] * k[j * K + i];
                        dk[j * K + i] += scale * de[j] * q[i];
                    }
            }
        }
        if (additive) linear_backward(nullptr, dqp, N_, param("attention.Wq"), nullptr, nullptr, dq);
        else std::memcpy(dq, dqp, N_ * D * sizeof(float));
    }

    // ---- decoder ---------------------------------------------------------
    // Training's side of decoder_step: step t of the batch's cells, onto their tapes.
    class StepOps final : public DecoderStepOps {
    public:
        StepOps(Graph& graph, int64_t t) : graph_(graph), t_(t) {}
        float* cell_input(int cell) override { return (cell == 0 ? *graph_.decoder_ : *graph_.decoder2_).input(t_); }
        const float* run_cell(int cell) override {
            CellRun& first = *graph_.decoder_;
            const bool lstm = graph_.config_.decoder_cell == CellType::LSTM;
            if (cell == 1) {  // RNN₂, from s'_t
                graph_.decoder2_->forward_step(t_, first.h(t_), lstm ? first.c(t_) : nullptr);
                return graph_.decoder2_->h(t_);
            }
            const float* c_prev = t_ == 0 || !lstm ? nullptr : graph_.last_decoder_cell().c(t_ - 1);
            first.forward_step(t_, state(), c_prev);
            return first.h(t_);
        }
        const float* state() const override {
            return t_ == 0 ? graph_.encoded_.init_state.data() : graph_.last_decoder_cell().h(t_ - 1);
        }
        const float* attend(const float* queries) override { return graph_.attend(t_, queries); }

    private:
        Graph& graph_;
        const int64_t t_;
    };
    const CellRun& last_decoder_cell() const { return decoder2_ ? *decoder2_ : *decoder_; }

    void decode() {
        const int64_t E = config_.dim_emb, C = config_.dim_context(), D = config_.dim_dec, M = Ty_ * N_;
        const bool luong = config_.decoder_style == DecoderStyle::Luong;
        embed_targets();
        decoder_->reset(Ty_, N_);
        decoder_->drop_recurrent(opt_.dropout_rnn, masks_, kRecurrentSites + 2 + config_.encoder_depth);
        if (decoder2_) {
            decoder2_->reset(Ty_, N_);
            decoder2_->drop_recurrent(opt_.dropout_rnn, masks_, kRecurrentSites + 3 + config_.encoder_depth);
        }
        queries_.zero({M, D});
        projected_.zero({M, attention_.query_size()});
        weights_.zero({M, T_});
        context_.zero({M, C});
        if (config_.attention == AttentionType::Additive) energies_.zero({M, T_ * config_.dim_attention});
        features_.zero({M, decoder_feature_size(config_)});
        output_.zero({M, E});
        row_sentence_.resize(M);
        for (int64_t r = 0; r < M; ++r) row_sentence_[r] = static_cast<int>(r % N_);
        const Tensor& W = param("decoder.output.W");
        const Tensor& b = param("decoder.output.b");
        for (int64_t t = 0; t < Ty_; ++t) {
            StepOps ops(*this, t);
            const float* feed = t == 0 ? nullptr : output_.row((t - 1) * N_);  // õ_{t−1}, Luong with input feeding
            decoder_step(config_, N_, target_embedding(t), feed, ops, features_.row(t * N_));
            // õ_t is needed as the next step's input, so it cannot wait for one big product.
            if (luong) deep_output(features_.row(t * N_), N_, W, b, nullptr, output_.row(t * N_));
        }
        if (!luong) deep_output(features_.data(), M, W, b, nullptr, output_.data());
        output_dropped_ = output_;  // output_ keeps tanh's values for its backward pass
        if (config_.lexical_model) {  // o_t += W_ℓ ℓ_t, ℓ_t = Σ_j α_tj x_j
            lexical_.zero({M, E});
            attended_embeddings(encoded_, weights_.data(), M, row_sentence_.data(), lexical_.data());
            linear(lexical_.data(), M, param("decoder.lexical.W"), nullptr, output_dropped_.data(), true);
        }
        masks_.apply(output_dropped_.data(), output_mask_, Ty_, N_, E, tgt_len_, true, opt_.dropout_hidden, kDeepOutput);
    }

    // E y_{t−1} for every step (BOS first), with embedding and word dropout.
    void embed_targets() {
        const int64_t E = config_.dim_emb;
        const Tensor& table = param("target.embeddings");
        const int bos = model_.target_vocab.bos_id();
        target_embedded_.zero({Ty_, N_, E});
        for (int64_t n = 0; n < N_; ++n)
            for (int64_t t = 0; t < tgt_len_[n]; ++t) {
                const int previous = t == 0 ? bos : batch_->targets[n][t - 1];
                std::memcpy(target_embedded_.data() + (t * N_ + n) * E, table.row(previous), E * sizeof(float));
            }
        masks_.apply(target_embedded_.data(), target_mask_, Ty_, N_, E, tgt_len_, true, opt_.dropout_embeddings,
                     kTargetEmbeddings);
        masks_.drop_words(target_embedded_.data(), target_mask_, N_, E, tgt_len_, opt_.dropout_target_words, kTargetWords);
    }
    const float* target_embedding(int64_t t) const { return target_embedded_.data() + t * N_ * config_.dim_emb; }

    BatchLoss loss_and_output_gradient() {
        const int64_t M = Ty_ * N_, V = config_.target_vocab_size;
        logits_.zero({M, V});
        const Tensor* bias = &param("decoder.vocab.b");
        if (config_.tied_embeddings) linear_transposed(output_dropped_.data(), M, param("target.embeddings"), bias, logits_.data());
        else linear(output_dropped_.data(), M, param("decoder.vocab.W"), bias, logits_.data());
        const float eps = opt_.label_smoothing;
        BatchLoss loss;
        std::vector<double> row_loss(M, 0.0), row_nll(M, 0.0);
        std::vector<char> row_correct(M, 0);
#pragma omp parallel for schedule(static)
        for (int64_t r = 0; r < M; ++r) {
            const int64_t t = r / N_, n = r % N_;
            float* lp = logits_.row(r);
            if (t >= tgt_len_[n]) {
                std::memset(lp, 0, V * sizeof(float));  // padding: no loss, no gradient
                continue;
            }
            const int gold = batch_->targets[n][t];
            int64_t best = 0;
            for (int64_t v = 1; v < V; ++v) best = lp[v] > lp[best] ? v : best;
            log_softmax_inplace(lp, V);
            double sum_all = 0;
            for (int64_t v = 0; v < V; ++v) sum_all += lp[v];
            const float w = batch_->weight(n);
            row_nll[r] = -lp[gold];
            row_loss[r] = w * ((1 - eps) * -lp[gold] + eps * -sum_all / V);
            row_correct[r] = best == gold;
            if (gradients_) {
                // d/dlogits of the smoothed loss: w·(softmax − ((1−ε)·onehot + ε/V))
                exp_inplace(lp, V);
                for (int64_t v = 0; v < V; ++v) lp[v] = w * (lp[v] - eps / V);
                lp[gold] -= w * (1 - eps);
            }
        }
        for (int64_t r = 0; r < M; ++r) {
            loss.loss += row_loss[r];
            loss.nll += row_nll[r];
            loss.correct += row_correct[r];
        }
        loss.tokens = batch_->target_tokens();
        return loss;
    }

    // What the decoder's backward steps hand each other: gradients on the
    // state (ds, then ds_prev for the step before), the LSTM cell (dc), the
    // query, the context, the cell inputs, the fed-back õ (Luong), and, in
    // the conditional style, on s'_t and RNN₂'s input. d_features,
    // d_preact and d_target are the whole batch's [Ty·N, ·] rows.
    struct StepGradients {
        Tensor ds, ds_prev, dc, dq, dctx, dx, dfeed, ds_mid, dx2;
        Tensor *d_features, *d_preact, *d_target;
    };

    void decoder_backward() {
        const int64_t E = config_.dim_emb, C = config_.dim_context(), D = config_.dim_dec, M = Ty_ * N_;
        const bool conditional = config_.decoder_style == DecoderStyle::Conditional;
        const bool luong = config_.decoder_style == DecoderStyle::Luong;
        const Tensor& d_output = output_layer_backward();
        dstates_.zero(encoded_.states.shape);
        dkeys_.zero(keys().shape);
        dprojected_.zero(projected_.shape);
        StepGradients g{Tensor({N_, D}), Tensor({N_, D}), Tensor({N_, D}), Tensor({N_, D}), Tensor({N_, C}),
                        Tensor({N_, decoder_->input_size()}), Tensor({N_, E}), Tensor({N_, D}), Tensor({N_, C}),
                        &scratch_["d_features"], &scratch_["d_preact"], &scratch_["d_target"]};
        g.d_target->zero(target_embedded_.shape);
        g.d_features->zero(features_.shape);
        g.d_preact->zero({M, E});  // through tanh of the output layer
        if (!luong) {
            tanh_backward(0, M, d_output.data(), *g.d_preact);
            linear_backward(features_.data(), g.d_preact->data(), M, param("decoder.output.W"), &grad("decoder.output.W"),
                            &grad("decoder.output.b"), g.d_features->data());
        }
        for (int64_t t = Ty_ - 1; t >= 0; --t) {
            float* dy = g.d_target->data() + t * N_ * E;
            if (conditional) conditional_step_backward(t, g, dy);
            else if (luong) luong_step_backward(t, g, dy, d_output);
            else bahdanau_step_backward(t, g, dy);
        }
        if (luong) {
            gemm(true, false, features_.cols(), E, M, 1.0f, features_.data(), features_.cols(), g.d_preact->data(), E,
                 1.0f, grad("decoder.output.W").data(), E);
            column_sums(g.d_preact->data(), M, E, grad("decoder.output.b").data());
        }
        decoder_->accumulate_parameter_gradients(cell_gradients("decoder.rnn"));
        if (conditional) decoder2_->accumulate_parameter_gradients(cell_gradients("decoder.rnn2"));
        target_embeddings_backward(*g.d_target);
        d_initial_ = g.ds;  // gradient on s_0
    }

    // From the logits' gradient: the vocabulary projection's gradients (the
    // tied embedding table's, or W and b), dropout, the lexical model's W_ℓ
    // and d(ℓ_t) (attend_backward takes it on). Returns d(output) [Ty·N, E].
    const Tensor& output_layer_backward() {
        const int64_t E = config_.dim_emb, M = Ty_ * N_;
        Tensor& d_output = scratch_["d_output"];
        d_output.zero({M, E});
        if (config_.tied_embeddings) {
            const Tensor& table = param("target.embeddings");
            gemm(true, false, table.shape[0], E, M, 1.0f, logits_.data(), table.shape[0], output_dropped_.data(), E, 1.0f,
                 grad("target.embeddings").data(), E);
            gemm(false, false, M, E, table.shape[0], 1.0f, logits_.data(), table.shape[0], table.data(), E, 0.0f,
                 d_output.data(), E);
            column_sums(logits_.data(), M, table.shape[0], grad("decoder.vocab.b").data());
        } else {
            linear_backward(output_dropped_.data(), logits_.data(), M, param("decoder.vocab.W"), &grad("decoder.vocab.W"),
                            &grad("decoder.vocab.b"), d_output.data());
        }
        multiply(d_output.data(), output_mask_);
        if (config_.lexical_model) {  // o_t += ℓ_t W_ℓ: dW_ℓ += ℓᵀ·do, dℓ = do·W_ℓᵀ
            d_lexical_.zero({M, E});
            d_lexical_source_.zero({T_, N_, E});
            linear_backward(lexical_.data(), d_output.data(), M, param("decoder.lexical.W"), &grad("decoder.lexical.W"),
                            nullptr, d_lexical_.data());
        }
        return d_output;
    }

    // Rows [row0, row0 + rows) of d(pre-activation) of õ = tanh(·) from d(õ).
    void tanh_backward(int64_t row0, int64_t rows, const float* d, Tensor& d_preact) const {
        const int64_t E = config_.dim_emb;
        for (int64_t i = 0; i < rows * E; ++i) {
            const float o = output_[row0 * E + i];
            d_preact[row0 * E + i] = d[i] * (1 - o * o);
        }
    }

    // Bahdanau and conditional: the gradient on the features [s_t; c_t; E y_{t−1}] of
    // step t goes to s_t (added to what step t+1 sent back), to c_t and to E y_{t−1}.
    void split_deep_output_gradient(int64_t t, StepGradients& g, float* dy) const {
        const int64_t E = config_.dim_emb, C = config_.dim_context(), D = config_.dim_dec;
        for (int64_t n = 0; n < N_; ++n) {
            const float* f = g.d_features->row(t * N_ + n);
            for (int64_t k = 0; k < D; ++k) g.ds.row(n)[k] += f[k];
            std::memcpy(g.dctx.row(n), f + D, C * sizeof(float));
            for (int64_t k = 0; k < E; ++k) dy[n * E + k] += f[D + C + k];
        }
    }

    void conditional_step_backward(int64_t t, StepGradients& g, float* dy) {
        const int64_t E = config_.dim_emb, C = config_.dim_context(), D = config_.dim_dec;
        split_deep_output_gradient(t, g, dy);
        // s_t = RNN₂(c_t, s'_t): dc becomes the gradient on RNN₁'s cell state.
        decoder2_->backward_step(t, g.ds.data(), g.dc.data(), g.ds_mid.data());
        decoder2_->input_gradient(t, g.dx2.data());
        for (int64_t i = 0; i < N_ * C; ++i) g.dctx[i] += g.dx2[i];
        attend_backward(t, g.dctx.data(), g.dq.data());
        for (int64_t i = 0; i < N_ * D; ++i) g.ds_mid[i] += g.dq[i];
        decoder_->backward_step(t, g.ds_mid.data(), g.dc.data(), g.ds_prev.data());
        decoder_->input_gradient(t, g.dx.data());
        for (int64_t i = 0; i < N_ * E; ++i) dy[i] += g.dx[i];
        std::swap(g.ds, g.ds_prev);
    }

    void bahdanau_step_backward(int64_t t, StepGradients& g, float* dy) {
        const int64_t E = config_.dim_emb, C = config_.dim_context(), D = config_.dim_dec;
        split_deep_output_gradient(t, g, dy);
        decoder_->backward_step(t, g.ds.data(), g.dc.data(), g.ds_prev.data());
        decoder_->input_gradient(t, g.dx.data());
        for (int64_t n = 0; n < N_; ++n) {
            const float* d = g.dx.row(n);
            for (int64_t k = 0; k < E; ++k) dy[n * E + k] += d[k];
            for (int64_t k = 0; k < C; ++k) g.dctx.row(n)[k] += d[E + k];
        }
        attend_backward(t, g.dctx.data(), g.dq.data());
        for (int64_t i = 0; i < N_ * D; ++i) g.ds[i] = g.ds_prev[i] + g.dq[i];
    }

    // Luong: õ_t gets gradient from the output layer and, with input feeding, from step t+1.
    void luong_step_backward(int64_t t, StepGradients& g, float* dy, const Tensor& d_output) {
        const int64_t E = config_.dim_emb, C = config_.dim_context(), D = config_.dim_dec;
        const bool feeding = config_.input_feeding;
        Tensor d_o({N_, E});
        for (int64_t i = 0; i < N_ * E; ++i) d_o[i] = d_output[t * N_ * E + i] + (feeding ? g.dfeed[i] : 0.0f);
        tanh_backward(t * N_, N_, d_o.data(), *g.d_preact);
        float* df = g.d_features->row(t * N_);
        linear_backward(nullptr, g.d_preact->row(t * N_), N_, param("decoder.output.W"), nullptr, nullptr, df);
        for (int64_t n = 0; n < N_; ++n) {
            const float* f = df + n * (C + D);
            std::memcpy(g.dctx.row(n), f, C * sizeof(float));
            for (int64_t k = 0; k < D; ++k) g.ds.row(n)[k] += f[C + k];
        }
        attend_backward(t, g.dctx.data(), g.dq.data());
        for (int64_t i = 0; i < N_ * D; ++i) g.ds[i] += g.dq[i];
        decoder_->backward_step(t, g.ds.data(), g.dc.data(), g.ds_prev.data());
        decoder_->input_gradient(t, g.dx.data());
        for (int64_t n = 0; n < N_; ++n) {
            for (int64_t k = 0; k < E; ++k) dy[n * E + k] += g.dx.row(n)[k];
            if (feeding) std::memcpy(g.dfeed.row(n), g.dx.row(n) + E, E * sizeof(float));
        }
        std::swap(g.ds, g.ds_prev);
    }

    // The target embeddings' gradient: each previous token fed at each step, through its dropout.
    void target_embeddings_backward(Tensor& d_target) {
        const int64_t E = config_.dim_emb;
        multiply(d_target.data(), target_mask_);
        Tensor& d_table = grad("target.embeddings");
        const int bos = model_.target_vocab.bos_id();
        for (int64_t n = 0; n < N_; ++n)
            for (int64_t t = 0; t < tgt_len_[n]; ++t) {
                float* row = d_table.row(t == 0 ? bos : batch_->targets[n][t - 1]);
                const float* d = d_target.data() + (t * N_ + n) * E;
                for (int64_t k = 0; k < E; ++k) row[k] += d[k];
            }
    }

    void encoder_backward() {
        const int64_t C = config_.dim_context(), H = config_.dim_rnn, E = config_.dim_emb, M = N_ * T_;
        // Attention keys and query projection.
        if (config_.attention == AttentionType::Additive) {
            linear_backward(queries_.data(), dprojected_.data(), Ty_ * N_, param("attention.Wq"), &grad("attention.Wq"),
                            nullptr, nullptr);
            linear_backward(encoded_.states.data(), dkeys_.data(), M, param("attention.Wk"), &grad("attention.Wk"),
                            &grad("attention.b"), dstates_.data(), true);
        } else if (model_.has("attention.Wa")) {
            // keys = states · W_aᵀ: dW_a += dkeysᵀ · states, dstates += dkeys · W_a
            const Tensor& Wa = param("attention.Wa");
            gemm(true, false, Wa.shape[0], C, M, 1.0f, dkeys_.data(), Wa.shape[0], encoded_.states.data(), C, 1.0f,
                 grad("attention.Wa").data(), C);
            gemm(false, false, M, C, Wa.shape[0], 1.0f, dkeys_.data(), Wa.shape[0], Wa.data(), C, 1.0f, dstates_.data(), C);
        } else {
            for (int64_t i = 0; i < dstates_.size(); ++i) dstates_[i] += dkeys_[i];
        }
        // s_0 = tanh(mean · W_init + b)
        Tensor dz({N_, config_.dim_dec}), dmean({N_, C});
        for (int64_t i = 0; i < dz.size(); ++i) dz[i] = d_initial_[i] * (1 - encoded_.init_state[i] * encoded_.init_state[i]);
        linear_backward(mean_.data(), dz.data(), N_, param("decoder.init.W"), &grad("decoder.init.W"), &grad("decoder.init.b"),
                        dmean.data());
        for (int64_t n = 0; n < N_; ++n)
            for (int64_t t = 0; t < src_len_[n]; ++t)
                for (int64_t k = 0; k < C; ++k) dstates_.data()[(n * T_ + t) * C + k] += dmean.row(n)[k] / src_len_[n];
        multiply(dstates_.data(), states_mask_);

        Tensor& d_layer = scratch_["d_layer"];
        d_layer.zero({T_, N_, C});
        for (int64_t n = 0; n < N_; ++n)
            for (int64_t t = 0; t < src_len_[n]; ++t)
                std::memcpy(d_layer.data() + (t * N_ + n) * C, dstates_.data() + (n * T_ + t) * C, C * sizeof(float));
        for (int l = config_.encoder_depth - 1; l >= 1; --l) {
            CellRun& u = *upper_[l - 1];
            Tensor& d_input = scratch_["d_input"];
            d_input.zero({T_ * N_, C});
            run_backward(u, d_layer.data(), d_input.data());
            if (l >= 2)
                for (int64_t i = 0; i < d_input.size(); ++i) d_input[i] += d_layer[i];
            const std::string prefix = "encoder." + std::to_string(l);
            u.accumulate_parameter_gradients(cell_gradients(prefix));
            std::swap(d_layer, d_input);
        }
        Tensor& d_forward = scratch_["d_forward"];
        Tensor& d_backward = scratch_["d_backward"];
        d_forward.zero({T_ * N_, H});
        d_backward.zero({T_ * N_, H});
        for (int64_t n = 0; n < N_; ++n)
            for (int64_t t = 0; t < src_len_[n]; ++t) {
                const float* d = d_layer.data() + (t * N_ + n) * C;
                std::memcpy(d_forward.row(t * N_ + n), d, H * sizeof(float));
                std::memcpy(d_backward.row(rev(n, t) * N_ + n), d + H, H * sizeof(float));
            }
        Tensor& dx_forward = scratch_["dx_forward"];
        Tensor& dx_backward = scratch_["dx_backward"];
        dx_forward.resize({T_ * N_, E});
        dx_backward.resize({T_ * N_, E});
        run_backward(*forward_, d_forward.data(), dx_forward.data());
        run_backward(*backward_, d_backward.data(), dx_backward.data());
        forward_->accumulate_parameter_gradients(cell_gradients("encoder.0.forward"));
        backward_->accumulate_parameter_gradients(cell_gradients("encoder.0.backward"));
        Tensor& d_table = grad(config_.source_embeddings());
        for (int64_t n = 0; n < N_; ++n)
            for (int64_t t = 0; t < src_len_[n]; ++t) {
                float* row = d_table.row(batch_->sources[n][t]);
                const float* a = dx_forward.row(t * N_ + n);
                const float* b = dx_backward.row(rev(n, t) * N_ + n);
                const float* mask = source_mask_.data() + (t * N_ + n) * E;
                for (int64_t k = 0; k < E; ++k) row[k] += (a[k] + b[k]) * mask[k];
                if (config_.lexical_model) {
                    const float* l = d_lexical_source_.data() + (t * N_ + n) * E;
                    for (int64_t k = 0; k < E; ++k) row[k] += l[k] * mask[k];
                }
            }
    }

    // Backward through a whole left-to-right run: d_out [T·N, H] on each output; dx [T·N, I].
    void run_backward(CellRun& run, const float* d_out, float* dx) {
        const int64_t H = run.hidden_size();
        Tensor dh({N_, H}), carry({N_, H}), dc({N_, H});
        for (int64_t t = T_ - 1; t >= 0; --t) {
            for (int64_t i = 0; i < N_ * H; ++i) dh[i] = d_out[t * N_ * H + i] + carry[i];
            run.backward_step(t, dh.data(), dc.data(), carry.data());
        }
        run.input_gradient_all(dx);
    }

    const Model& model_;
    const ModelConfig& config_;
    const TrainingBatch* batch_ = nullptr;
    TrainingOptions opt_;
    DropoutMasks masks_;
    bool guided_ = false;                                      // this batch trains attention to given alignments
    Tensor alignment_targets_;                                 // [Ty·N, T]: the A_t of guided_alignment_loss
    std::vector<signed char> source_word_start_, target_word_start_;  // by piece id, filled when first needed
    Gradients* gradients_ = nullptr;
    int64_t N_ = 0, T_ = 0, Ty_ = 0;
    std::vector<int64_t> src_len_, tgt_len_;
    Tensor source_embedded_, source_mask_, states_mask_, mean_;
    EncodedBatch encoded_;  // the (dropped-out) encoder states, keys and s_0, as decoding has them
    Attention attention_;
    std::vector<int> row_sentence_;  // row r = t·N + n of the per-step tensors belongs to sentence n
    std::unique_ptr<CellRun> forward_, backward_, decoder_, decoder2_;  // decoder2_: conditional style only
    std::vector<std::unique_ptr<CellRun>> upper_;
    Tensor target_embedded_, target_mask_, queries_, projected_, weights_, energies_, context_, features_;
    Tensor output_, output_dropped_, output_mask_, logits_;
    Tensor lexical_, d_lexical_, d_lexical_source_;  // lexical model only: ℓ_t, its gradient, d(x_j) [T,N,E]
    Tensor dstates_, dkeys_, dprojected_, d_initial_;
    std::map<std::string, Tensor> scratch_;  // large per-batch buffers, kept so later batches do not allocate
};

TrainingGraph::TrainingGraph(const Model& model) : graph_(std::make_unique<Graph>(model)) {}
TrainingGraph::~TrainingGraph() = default;

BatchLoss TrainingGraph::forward_backward(const TrainingBatch& batch, const TrainingOptions& options, Random& random,
                                          Gradients& gradients) {
    return graph_->run(batch, options, random, &gradients);
}

BatchLoss TrainingGraph::evaluate(const TrainingBatch& batch, float label_smoothing) {
    TrainingOptions options;
    options.label_smoothing = label_smoothing;
    options.dropout_embeddings = 0.0f;
    options.dropout_hidden = 0.0f;
    Random unused(0);
    return graph_->run(batch, options, unused, nullptr);
}

BatchLoss forward_backward(const Model& model, const TrainingBatch& batch, const TrainingOptions& options,
                           Random& random, Gradients& gradients) {
    return TrainingGraph(model).forward_backward(batch, options, random, gradients);
}

BatchLoss evaluate_loss(const Model& model, const TrainingBatch& batch, float label_smoothing) {
    return TrainingGraph(model).evaluate(batch, label_smoothing);
}

}  // namespace nmt
