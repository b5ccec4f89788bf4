#include "train/trainer.h"


#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

#include "train/corpus.h"
#include "train/distributed_training.h"
#include "core/error.h"
#include "core/number_text.h"
#include "core/random.h"
#include "train/validation.h"
#include "train/trainer_settings.h"

namespace nmt {

namespace {

using Clock = std::chrono::steady_clock;

// Seeds the trainer's Random apart from init_model's stream for the same seed.
constexpr uint64_t kDropoutSeedSalt = 0x6A09E667F3BCC909ull;

std::string scientific(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2e", value);
    return buffer;
}

// BLEU ties (typically 0 against 0 early in training) go to the lower cross-entropy.
bool improves(const ValidationScores& scores, const TrainingState& best, ValidMetric metric) {
    if (!best.has_best) return true;
    if (metric == ValidMetric::CrossEntropy) return scores.ce < best.best_ce;
    return scores.bleu.score > best.best_score || (scores.bleu.score == best.best_score && scores.ce < best.best_ce);
}

// The model file a run writes: `model`'s weights (the caller swaps in the
// average when the run keeps one) with what the run has done in its provenance.
void save_run_model(Model& model, const TrainingState& state, const TrainerOptions& options,
                    const std::string& metric, const std::string& why) {
    nlohmann::json& p = model.provenance;
    p["trained"] = true;
    p["code_version"] = NMT_VERSION;
    p["seed"] = options.seed;
    p["data"] = state.run;
    p["steps"] = state.step;
    p["epochs"] = state.position.epoch;
    p["tokens_seen"] = state.tokens_seen;
    p["saved_because"] = why;
    if (state.has_best)
        p["best_validation"] = {{"metric", metric}, {"score", state.best_score}, {"step", state.best_step}};
    if (!state.history.empty()) p["last_validation"] = state.history.back();
    save_model(options.output, model, options.storage);
}

class TrainingRun {
public:
    TrainingRun(Model& model, Adam& adam, ParameterAverage& average, TrainingState& state,
                const TrainerOptions& options, TrainingLog& log)
        : model_(model), adam_(adam), average_(average), state_(state), options_(options), log_(log) {}

    TrainingOutcome run();

private:
    void load_data();
    nlohmann::json subword_sampling_json() const;
    void check_resume(const nlohmann::json& now);
    void step(BatchGenerator& batches, Gradients& gradients, Random& random);
    void display(double lr);
    void log_start(int64_t batches_per_epoch, bool resumed);
    void log_end(const std::string& reason);
    // `scheduled`: a --valid-every validation, which counts towards patience
    // and the plateau schedule; the extra one at the end of a run does not.
    void validate_and_keep_best(bool scheduled);
    void validate_and_save(bool scheduled);
    void save_output_model(const std::string& why);
    void save_checkpoint_now(const Random& random);
    std::string stop_reason(int64_t consecutive_skips) const;
    double session_seconds() const { return std::chrono::duration<double>(Clock::now() - session_start_).count(); }
    double elapsed() const { return earlier_sessions_ + session_seconds(); }  // over all runs, for --max-time
    double remaining() const;
    bool distributed() const { return options_.ranks && options_.ranks->size() > 1; }
    bool leader() const { return !distributed() || options_.ranks->rank() == 0; }  // validates and writes files
    BatchLoss sum_over_ranks(const BatchLoss& loss, Gradients& gradients);
    std::string agree_on_stop(const std::string& mine);
    void start_ranks_alike();

    Model& model_;
    Adam& adam_;
    ParameterAverage& average_;
    TrainingState& state_;
    const TrainerOptions& options_;
    TrainingLog& log_;

    std::optional<Corpus> train_;
    std::unique_ptr<TrainingGraph> graph_;  // buffers reused from batch to batch
    std::vector<float> sum_buffer_;         // the gradients, flat, while they are summed over ranks
    // Of the display window, in sum_over_ranks: waiting for the slowest rank, and summing the gradients.
    double window_wait_seconds_ = 0, window_sum_seconds_ = 0;
    int64_t trained_epoch_ = 0;             // 0-based epoch of the batch trained last
    std::optional<Corpus> valid_;
    std::optional<Validator> validator_;
    Clock::time_point session_start_ = Clock::now();
    double earlier_sessions_ = 0;
    int64_t session_steps_ = 0;
    double window_start_ = 0;   // elapsed() when the display window began, this session
    int64_t last_validated_ = -1;
    int64_t consecutive_skips_ = 0;
};

void TrainingRun::load_data() {
    CorpusOptions train_options;
    train_options.max_length = options_.max_length;
    if (options_.subword_sampling.enabled()) train_options.segmentations = options_.subword_sampling.nbest;
    train_options.alignment_path = options_.guided_alignment;
    train_.emplace(read_corpus(options_.train_source, options_.train_target, model_.source_vocab,
                               model_.target_vocab, train_options));
    log_.line("training data: " + train_->summary());
    if (train_->pairs.empty())
        throw Error(options_.train_source + " / " + options_.train_target + ": no usable sentence pairs (of " +
                    std::to_string(train_->lines) + " lines)");
    if (options_.valid_source.empty() != options_.valid_target.empty())
        throw Error("give both `valid_source` and `valid_target`, or neither");
    if (!options_.valid_source.empty()) {
        CorpusOptions valid_options;
        valid_options.max_length = 0;
        valid_options.keep_text = true;
        valid_.emplace(read_corpus(options_.valid_source, options_.valid_target, model_.source_vocab,
                                          model_.target_vocab, valid_options));
        Corpus& v = *valid_;
        if (options_.valid_lines > 0 && static_cast<int64_t>(v.pairs.size()) > options_.valid_lines) {
            v.pairs.resize(options_.valid_lines);
            v.source_text.resize(options_.valid_lines);
            v.target_text.resize(options_.valid_lines);
        }
        if (v.pairs.empty()) throw Error(options_.valid_source + ": no usable validation pairs");
        validator_.emplace(v, options_.batch_tokens, options_.valid_beam);
        log_.line("validation data: " + v.summary() +
                  (options_.valid_lines > 0 ? " (first " + std::to_string(v.pairs.size()) + " used)" : ""));
    }
    nlohmann::json data = {
        {"train_source", options_.train_source}, {"train_source_sha256", train_->source_sha256},
        {"train_target", options_.train_target}, {"train_target_sha256", train_->target_sha256},
        {"seed", options_.seed},                 {"batch_tokens", options_.batch_tokens},
        {"maxi_batch", options_.maxi_batch},     {"max_length", options_.max_length},
        {"valid_metric", to_string(options_.metric)}};
    // Only when set, so that runs without it record the same provenance as before it existed.
    if (options_.subword_sampling.enabled()) data["subword_sampling"] = subword_sampling_json();
    if (!options_.guided_alignment.empty()) {
        data["guided_alignment"] = options_.guided_alignment;
        data["guided_alignment_sha256"] = train_->alignment_sha256;
    }
    if (valid_) {
        data["valid_source"] = options_.valid_source;
        data["valid_source_sha256"] = valid_->source_sha256;
        data["valid_target"] = options_.valid_target;
        data["valid_target_sha256"] = valid_->target_sha256;
        data["valid_pairs"] = valid_->pairs.size();
    }
    check_resume(data);
    state_.run = data;
}

// A resumed run continues the old data order only if the data and everything
// that shapes the batches are unchanged; otherwise it still trains, but says so.
void TrainingRun::check_resume(const nlohmann::json& now) {
    if (state_.step == 0) return;
    const nlohmann::json& old = state_.run;
    // A key absent on one side (subword_sampling is written only when set) reads as null.
    auto field = [](const nlohmann::json& run, const char* key) {
        return run.is_object() && run.contains(key) ? run.at(key) : nlohmann::json();
    };
    for (const char* key : {"train_source_sha256", "train_target_sha256", "seed", "batch_tokens", "maxi_batch",
                            "max_length", "subword_sampling", "guided_alignment_sha256"})
        if (field(old, key) != field(now, key))
            log_.line(std::string("warning: ") + key + " differs from the checkpoint's run (" +
                      field(old, key).dump() + " then, " + field(now, key).dump() +
                      " now): the data order will not be the one the run had");
    if (old.contains("valid_metric") && old.at("valid_metric") != now.at("valid_metric")) {
        log_.line("note: the validation metric changed from " + old.at("valid_metric").get<std::string>() + " to " +
                  now.at("valid_metric").get<std::string>() + ": the best score and patience start over");
        state_.has_best = false;
        state_.best_score = state_.best_ce = 0;
        state_.best_step = 0;
        state_.stalled_validations = 0;
    }
}

nlohmann::json TrainingRun::subword_sampling_json() const {
    const SubwordSampling& s = options_.subword_sampling;
    return {{"source_alpha", recorded_float(s.source_alpha)}, {"target_alpha", recorded_float(s.target_alpha)}, {"nbest", s.nbest}};
}

double TrainingRun::remaining() const {
    double left = -1;
    if (options_.max_steps > 0 && session_steps_ > 0) {
        const double per_step = session_seconds() / static_cast<double>(session_steps_);
        left = per_step * static_cast<double>(std::max<int64_t>(0, options_.max_steps - state_.step));
    }
    if (options_.max_time > 0) {
        const double by_time = std::max(0.0, options_.max_time - elapsed());
        left = left < 0 ? by_time : std::min(left, by_time);
    }
    return left;
}

void TrainingRun::step(BatchGenerator& batches, Gradients& gradients, Random& random) {
    const int64_t epoch = batches.position().epoch;
    trained_epoch_ = epoch;
    TrainingBatch batch = batches.next();
    clear(gradients);
    if (distributed()) batch = batch_slice(batch, options_.ranks->rank(), options_.ranks->size());
    BatchLoss loss;
    if (!batch.sources.empty()) loss = graph_->forward_backward(batch, options_.graph, random, gradients);
    else random.next();  // the draw the graph makes, so that this rank's Random stays in step with the others'
    if (distributed()) loss = sum_over_ranks(loss, gradients);
    if (options_.risk.candidates > 0) {
        // The candidates' weighted gradients add to the references' (TrainingGraph accumulates).
        const RiskCandidates risk = risk_candidates(model_, batch, options_.risk);
        if (!risk.batch.sources.empty()) graph_->forward_backward(risk.batch, options_.graph, random, gradients);
        state_.window_risk += risk.expected_cost;
        state_.window_risk_sentences += risk.sentences;
    }
    ++state_.step;
    ++session_steps_;
    const double norm = scale_and_clip(gradients, 1.0 / std::max<int64_t>(1, loss.tokens), options_.clip_norm);
    const double lr = options_.lr.rate(state_.step, state_.lr_scale, options_.max_steps);
    if (!std::isfinite(norm) || !std::isfinite(loss.loss)) {
        ++state_.skipped_updates;
        ++consecutive_skips_;
        log_.line("warning: step " + std::to_string(state_.step) + " (epoch " + std::to_string(epoch + 1) +
                  "): loss or gradient is not finite; update skipped");
        log_.record({{"type", "skipped"}, {"step", state_.step}, {"epoch", epoch + 1}});
        return;
    }
    consecutive_skips_ = 0;
    adam_.update(model_, gradients, lr);
    if (!average_.empty()) average_.update(model_, options_.exponential_smoothing, state_.step);
    state_.window_loss += loss.loss;
    state_.window_nll += loss.nll;
    state_.window_tokens += loss.tokens;
    state_.window_correct += loss.correct;
    state_.window_grad_norm += norm;
    ++state_.window_steps;
    state_.tokens_seen += loss.tokens;
}

// The small sum of the losses goes first: it ends when the slowest rank has
// finished its slice, so that the gradient sum after it times the transfer
// alone, which overlapping it with the backward pass could hide; the wait
// for the slowest rank it could not.
BatchLoss TrainingRun::sum_over_ranks(const BatchLoss& loss, Gradients& gradients) {
    const Clock::time_point start = Clock::now();
    double sums[4] = {loss.loss, loss.nll, static_cast<double>(loss.tokens), static_cast<double>(loss.correct)};
    options_.ranks->sum(sums, 4, "the loss sum of step " + std::to_string(state_.step + 1));
    const Clock::time_point all_done = Clock::now();
    sum_gradients(*options_.ranks, gradients, sum_buffer_, state_.step + 1);
    window_wait_seconds_ += std::chrono::duration<double>(all_done - start).count();
    window_sum_seconds_ += std::chrono::duration<double>(Clock::now() - all_done).count();
    BatchLoss total;
    total.loss = sums[0];
    total.nll = sums[1];
    total.tokens = static_cast<int64_t>(sums[2]);
    total.correct = static_cast<int64_t>(sums[3]);
    return total;
}

// Rank 0 decides when to stop (its clock is the run's clock for --max-time);
// an interrupt on any rank stops them all after the same step.
std::string TrainingRun::agree_on_stop(const std::string& mine) {
    if (!distributed()) return mine;
    static const char* const kReasons[] = {"", "interrupted", "max-steps", "max-epochs", "early-stop", "max-time"};
    double code = 0;
    for (int i = 0; i < 6; ++i)
        if (mine == kReasons[i]) code = i;
    double votes[2] = {leader() ? code : 0.0, mine == "interrupted" ? 1.0 : 0.0};
    options_.ranks->sum(votes, 2, "the decision whether to stop after step " + std::to_string(state_.step));
    if (votes[0] != 0) return kReasons[static_cast<int>(votes[0])];
    return votes[1] != 0 ? "interrupted" : "";
}

// Refuses ranks started differently, then gives every rank rank 0's weights
// and optimiser state, so that all begin from the same bits.
void TrainingRun::start_ranks_alike() {
    std::ostringstream fingerprint;
    fingerprint << options_.to_json().dump() << '\n' << state_.run.dump() << "\nstep " << state_.step << "\nepoch "
                << state_.position.epoch << " batch " << state_.position.batch << "\naverage "
                << (average_.empty() ? "no" : "yes") << "\nadam " << adam_.first_moments.size() << '\n';
    for (const auto& [name, tensor] : model_.parameters) {
        fingerprint << name;
        for (int64_t extent : tensor.shape) fingerprint << ' ' << extent;
        fingerprint << '\n';
    }
    check_same_run(*options_.ranks, fingerprint.str());
    broadcast_training_state(*options_.ranks, model_, adam_, average_);
}

void TrainingRun::display(double lr) {
    const double tokens = static_cast<double>(std::max<int64_t>(1, state_.window_tokens));
    const double loss = state_.window_loss / tokens, nll = state_.window_nll / tokens;
    const double accuracy = static_cast<double>(state_.window_correct) / tokens;
    const double grad_norm = state_.window_grad_norm / static_cast<double>(std::max<int64_t>(1, state_.window_steps));
    const double now = elapsed();
    const double seconds = std::max(1e-9, now - window_start_);
    const double speed = static_cast<double>(state_.window_tokens) / seconds;
    const double left = remaining();
    const bool risk = state_.window_risk_sentences > 0;
    const double mean_risk = risk ? state_.window_risk / static_cast<double>(state_.window_risk_sentences) : 0;
    std::ostringstream line;
    line << "step " << state_.step << " | epoch " << trained_epoch_ + 1 << " | loss " << fixed_decimals(loss, 4)
         << " | ppl " << fixed_decimals(std::exp(nll), 2) << " | acc " << fixed_decimals(100 * accuracy, 1) << "% | "
         << fixed_decimals(speed, 0) << " tok/s | lr " << scientific(lr) << " | gnorm " << fixed_decimals(grad_norm, 3) << " | ";
    if (risk) line << "risk " << fixed_decimals(mean_risk, 4) << " | ";
    line << format_duration(now);
    if (left >= 0) line << " (" << format_duration(left) << " left)";
    log_.line(line.str());
    nlohmann::json record = {{"type", "progress"},
                             {"step", state_.step},
                             {"epoch", trained_epoch_ + 1},
                             {"epochs_done", state_.position.epoch},
                             {"loss", loss},
                             {"nll", nll},
                             {"ppl", std::exp(nll)},
                             {"accuracy", accuracy},
                             {"tokens", state_.window_tokens},
                             {"steps", state_.window_steps},
                             {"grad_norm", grad_norm},
                             {"lr", lr},
                             {"tokens_seen", state_.tokens_seen},
                             {"tokens_per_second", speed},
                             {"elapsed_seconds", now}};
    if (left >= 0) record["remaining_seconds"] = left;
    if (risk) record["risk"] = mean_risk;  // the candidates' expected 1 − sentence BLEU
    // Across ranks, what being several costs (tools/bench_ranks.sh reports it).
    if (distributed()) {
        record["wait_seconds"] = window_wait_seconds_;
        record["sum_seconds"] = window_sum_seconds_;
    }
    window_wait_seconds_ = window_sum_seconds_ = 0;
    log_.record(record);
    state_.window_loss = state_.window_nll = state_.window_grad_norm = 0;
    state_.window_tokens = state_.window_correct = state_.window_steps = 0;
    state_.window_risk = 0;
    state_.window_risk_sentences = 0;
    window_start_ = now;
    state_.window_seconds = 0;
}

void TrainingRun::save_output_model(const std::string& why) {
    save_run_model(model_, state_, options_, to_string(options_.metric), why);
}

void TrainingRun::validate_and_keep_best(bool scheduled) {
    const double started = elapsed();
    if (leader()) validate_and_save(scheduled);
    if (distributed()) {
        // What validation decided, which every rank's schedule depends on.
        double outcome[6] = {state_.has_best ? 1.0 : 0.0, state_.best_score, state_.best_ce,
                             static_cast<double>(state_.best_step), static_cast<double>(state_.stalled_validations),
                             state_.lr_scale};
        options_.ranks->broadcast_after_rank0_work(outcome, sizeof outcome, "rank 0's validation");
        state_.has_best = outcome[0] != 0.0;
        state_.best_score = outcome[1];
        state_.best_ce = outcome[2];
        state_.best_step = static_cast<int64_t>(outcome[3]);
        state_.stalled_validations = static_cast<int64_t>(outcome[4]);
        state_.lr_scale = outcome[5];
        last_validated_ = state_.step;
    }
    window_start_ += elapsed() - started;  // tokens/s counts training time only
}

void TrainingRun::validate_and_save(bool scheduled) {
    last_validated_ = state_.step;
    AveragedWeightsScope averaged(average_, model_);  // what is scored is what gets saved
    if (!validator_) {
        save_output_model("latest (no validation set)");
        return;
    }
    const ValidationScores scores = validator_->score(model_, *graph_);
    const double value = options_.metric == ValidMetric::Bleu ? scores.bleu.score : scores.ce;
    const bool improved = improves(scores, state_, options_.metric);
    if (improved) {
        state_.has_best = true;
        state_.best_score = value;
        state_.best_ce = scores.ce;
        state_.best_step = state_.step;
        state_.stalled_validations = 0;
    } else if (scheduled) {
        ++state_.stalled_validations;
        if (cuts_on_plateau(options_.lr.decay)) state_.lr_scale *= options_.lr_decay_factor;
    }
    nlohmann::json record = {{"type", "validation"},
                             {"step", state_.step},
                             {"epoch", trained_epoch_ + 1},
                             {"ce", scores.ce},
                             {"ppl", scores.ppl},
                             {"metric", to_string(options_.metric)},
                             {"improved", improved},
                             {"best_score", state_.best_score},
                             {"best_step", state_.best_step},
                             {"stalled", state_.stalled_validations},
                             {"lr_scale", state_.lr_scale},
                             {"seconds", scores.seconds}};
    std::ostringstream line;
    line << "validation at step " << state_.step << ": ce " << fixed_decimals(scores.ce, 4) << " (ppl "
         << fixed_decimals(scores.ppl, 2) << ")";
    if (scores.has_bleu) {
        record["bleu"] = scores.bleu.score;
        record["bleu_verbose"] = bleu_verbose(scores.bleu);
        record["bleu_signature"] = bleu_signature(BleuOptions{}, "1");
        line << " | BLEU " << fixed_decimals(scores.bleu.score, 2) << " " << bleu_verbose(scores.bleu);
    }
    state_.history.push_back(record);
    if (improved) {
        save_output_model("best " + to_string(options_.metric) + " on validation");
        line << " | new best, saved " << options_.output;
    } else {
        line << " | best " << fixed_decimals(state_.best_score, 4) << " at step " << state_.best_step << ", "
             << state_.stalled_validations << " without improvement";
        if (cuts_on_plateau(options_.lr.decay)) line << ", lr x" << fixed_decimals(state_.lr_scale, 4);
    }
    line << " | " << fixed_decimals(scores.seconds, 1) << " s";
    log_.line(line.str());
    log_.record(record);
}

void TrainingRun::save_checkpoint_now(const Random& random) {
    if (!leader()) return;
    const uint64_t* words = random.state();
    for (int i = 0; i < 4; ++i) state_.random_state[i] = words[i];
    state_.elapsed_seconds = elapsed();
    state_.window_seconds = elapsed() - window_start_;
    save_checkpoint(options_.checkpoint_path(), model_, adam_, average_, state_);
    log_.record({{"type", "checkpoint"}, {"step", state_.step}, {"path", options_.checkpoint_path()}});
}

std::string TrainingRun::stop_reason(int64_t consecutive_skips) const {
    if (consecutive_skips >= 20)
        throw Error("training diverged: 20 steps in a row had a non-finite loss or gradient (step " +
                    std::to_string(state_.step) + "); try a lower `lr` or `clip_norm`");
    if (options_.stop_requested && options_.stop_requested->load()) return "interrupted";
    if (options_.max_steps > 0 && state_.step >= options_.max_steps) return "max-steps";
    if (options_.max_epochs > 0 && state_.position.epoch >= options_.max_epochs) return "max-epochs";
    if (options_.patience > 0 && state_.stalled_validations >= options_.patience) return "early-stop";
    if (options_.max_time > 0 && elapsed() >= options_.max_time) return "max-time";
    return "";
}

TrainingOutcome TrainingRun::run() {
    const bool resumed = state_.step > 0;
    earlier_sessions_ = state_.elapsed_seconds;
    load_data();
    BatchingOptions batching{options_.batch_tokens, options_.maxi_batch, options_.seed};
    BatchGenerator::Resegment resegment;
    if (options_.subword_sampling.enabled())
        resegment = [this](int64_t epoch) {
            return sample_segmentations(*train_, options_.subword_sampling, options_.seed, epoch);
        };
    BatchGenerator batches(train_->pairs, batching, resegment);
    window_start_ = elapsed() - state_.window_seconds;  // a resumed window's tokens/s spans both sessions
    batches.restore(state_.position);
    state_.position = batches.position();
    Random random;
    random.set_state(state_.random_state);
    Gradients gradients = zero_gradients(model_);
    graph_ = std::make_unique<TrainingGraph>(model_);
    if (options_.exponential_smoothing <= 0) {
        average_.values.clear();
    } else if (average_.empty()) {
        if (resumed) log_.line("note: the checkpoint has no parameter average; it starts from the current weights");
        average_ = ParameterAverage(model_);
    }

    if (distributed()) start_ranks_alike();

    log_start(batches.batches_in_epoch(), resumed);

    std::string reason = agree_on_stop(stop_reason(0));
    while (reason.empty()) {
        step(batches, gradients, random);
        state_.position = batches.position();
        if (options_.disp_freq > 0 && state_.step % options_.disp_freq == 0)
            display(options_.lr.rate(state_.step, state_.lr_scale, options_.max_steps));
        if (options_.valid_every > 0 && state_.step % options_.valid_every == 0) validate_and_keep_best(true);
        if (options_.save_every > 0 && state_.step % options_.save_every == 0) save_checkpoint_now(random);
        reason = agree_on_stop(stop_reason(consecutive_skips_));
    }
    if (session_steps_ > 0) {
        save_checkpoint_now(random);
        // The output model must reflect the end of the run, so validate once
        // more unless this step just was (an interrupted run skips it to stop
        // quickly). After the checkpoint: this extra validation must not shift
        // patience or the plateau schedule of a run that is later extended,
        // or it would differ from one that never stopped.
        if (last_validated_ != state_.step && (reason != "interrupted" || !validator_))
            validate_and_keep_best(false);
    }

    log_end(reason);
    return {state_.step, state_.position.epoch, reason, state_.has_best, state_.best_score, state_.best_step};
}

// The start record (the options, the data) and line: the log's files open here.
void TrainingRun::log_start(int64_t batches_per_epoch, bool resumed) {
    nlohmann::json start = {{"type", resumed ? "resume" : "start"},
                            {"step", state_.step},
                            {"epoch", state_.position.epoch + 1},
                            {"parameters", model_.parameter_count()},
                            {"batches_per_epoch", batches_per_epoch},
                            {"training_pairs", train_->pairs.size()},
                            {"options", options_.to_json()},
                            {"data", state_.run}};
    if (distributed()) start["ranks"] = options_.ranks->size();
    log_.begin();
    log_.record(start);
    log_.line(std::string(resumed ? "resuming at step " + std::to_string(state_.step) : "starting") + ": " +
              std::to_string(model_.parameter_count()) + " parameters, " +
              std::to_string(batches_per_epoch) + " batches per epoch of at most " +
              std::to_string(options_.batch_tokens) + " target tokens" +
              (distributed() ? ", shared by " + std::to_string(options_.ranks->size()) + " ranks" : ""));
}

void TrainingRun::log_end(const std::string& reason) {
    std::ostringstream line;
    line << "stopped (" << reason << ") at step " << state_.step << ", " << state_.position.epoch << " epochs done"
         << ", after " << format_duration(elapsed());
    if (state_.has_best)
        line << "; best " << to_string(options_.metric) << " " << fixed_decimals(state_.best_score, 4) << " at step "
             << state_.best_step;
    line << "; checkpoint " << options_.checkpoint_path();
    log_.line(line.str());
    log_.record({{"type", "end"},
                 {"reason", reason},
                 {"step", state_.step},
                 {"epochs", state_.position.epoch},
                 {"best_score", state_.has_best ? nlohmann::json(state_.best_score) : nlohmann::json()},
                 {"best_step", state_.best_step},
                 {"elapsed_seconds", elapsed()}});
}

}  // namespace

ValidMetric parse_valid_metric(const std::string& name) {
    if (name == "bleu") return ValidMetric::Bleu;
    if (name == "ce") return ValidMetric::CrossEntropy;
    throw Error("`valid_metric`: unknown metric '" + name + "' (expected bleu or ce)");
}

std::string to_string(ValidMetric metric) { return metric == ValidMetric::Bleu ? "bleu" : "ce"; }

nlohmann::json TrainerOptions::to_json() const {
    nlohmann::json j = nlohmann::json::object();
    for (const TrainerSetting& setting : trainer_settings())
        if (!setting.recorded_when || setting.recorded_when(*this)) j[setting.name] = record_setting(setting, *this);
    return j;
}

namespace {

// What opening the log later would say, said now, without creating it.
void check_log_path(const std::string& path) {
    if (path.empty()) return;
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) throw Error(path + ": cannot open the log for writing: it is a directory");
    std::string directory = std::filesystem::path(path).parent_path().string();
    if (directory.empty()) directory = ".";
    if (::access(exists ? path.c_str() : directory.c_str(), W_OK) != 0)
        throw Error(path + ": cannot open the log for writing: " + std::strerror(errno));
}

void open_log(std::ofstream& file, const std::string& path, bool append) {
    if (path.empty()) return;
    file.open(path, std::ios::out | (append ? std::ios::app : std::ios::trunc));
    if (!file) throw Error(path + ": cannot open the log for writing");
}

}  // namespace

TrainingLog::TrainingLog(const std::string& text_path, const std::string& jsonl_path, bool append,
                         std::ostream* console)
    : text_path_(text_path), jsonl_path_(jsonl_path), append_(append), console_(console) {
    check_log_path(text_path);
    check_log_path(jsonl_path);
}

void TrainingLog::begin() {
    if (begun_) return;
    open_log(text_, text_path_, append_);
    open_log(jsonl_, jsonl_path_, append_);
    begun_ = true;
    for (const std::string& text : held_lines_)
        if (text_.is_open()) text_ << text << std::endl;
    for (const std::string& record : held_records_)
        if (jsonl_.is_open()) jsonl_ << record << std::endl;
    held_lines_.clear();
    held_records_.clear();
}

void TrainingLog::line(const std::string& text) {
    if (console_) *console_ << text << std::endl;
    if (!begun_) held_lines_.push_back(text);
    if (text_.is_open()) text_ << text << std::endl;
}

void TrainingLog::record(const nlohmann::json& record) {
    if (!begun_) held_records_.push_back(record.dump());
    if (jsonl_.is_open()) jsonl_ << record.dump() << std::endl;
}

std::string restore_output_model(Checkpoint& checkpoint, const TrainerOptions& options) {
    const TrainingState& state = checkpoint.state;
    const bool validates = state.run.contains("valid_source");
    if (state.step == 0 || (validates && !state.has_best)) return "";  // no model saved yet
    std::string problem = "is missing";
    if (std::filesystem::exists(options.output)) {
        try {
            load_model(options.output);
            return "";
        } catch (const Error& e) {
            problem = std::string("does not load (") + e.what() + ")";
        }
    }
    const std::string checkpoint_path = options.checkpoint_path();
    if (validates && state.best_step != state.step)
        throw Error(options.output + " " + problem + ", and the checkpoint " + checkpoint_path +
                    " cannot restore it: it holds step " + std::to_string(state.step) + ", the best model was step " +
                    std::to_string(state.best_step) + ". Restore " + options.output +
                    ", or put the checkpoint's weights there (nmt average " + checkpoint_path + " -o " +
                    options.output + ") and `resume` again");
    const std::string metric = state.run.value("valid_metric", to_string(options.metric));
    {
        AveragedWeightsScope averaged(checkpoint.average, checkpoint.model);
        save_run_model(checkpoint.model, state, options, metric,
                       validates ? "best " + metric + " on validation" : "latest (no validation set)");
    }
    return "warning: " + options.output + " " + problem + "; saved it again from the checkpoint " + checkpoint_path +
           ", which holds " + (validates ? "the best model" : "the latest weights") + " (step " +
           std::to_string(state.step) + ")";
}

TrainingState initial_training_state(uint64_t seed) {
    TrainingState state;
    Random random(seed ^ kDropoutSeedSalt);
    const uint64_t* words = random.state();
    for (int i = 0; i < 4; ++i) state.random_state[i] = words[i];
    return state;
}

TrainingOutcome train(Model& model, Adam& adam, ParameterAverage& average, TrainingState& state,
                      const TrainerOptions& options, TrainingLog& log) {
    if (options.output.empty()) throw Error("no output model path given (-o)");
    if (options.train_source.empty() || options.train_target.empty())
        throw Error("give `train_source` and `train_target`");
    if (options.metric == ValidMetric::Bleu && options.valid_beam <= 0 && !options.valid_source.empty())
        throw Error("`valid_metric` bleu needs `valid_beam` of at least 1");
    options.lr.check(options.max_steps);  // before any data is read or log written
    if (options.ranks && options.ranks->size() > 1 && options.risk.candidates > 0)
        throw Error("minimum risk training runs in one process only, not across ranks");
    adam.set_options(options.adam);
    return TrainingRun(model, adam, average, state, options, log).run();
}

std::string format_duration(double seconds) {
    const int64_t total = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%lld:%02lld:%02lld", static_cast<long long>(total / 3600),
                  static_cast<long long>(total / 60 % 60), static_cast<long long>(total % 60));
    return buffer;
}

double parse_duration(const std::string& text) {
    size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        throw Error("`max_time`: '" + text + "' is not a duration (examples: 3600, 90s, 30m, 2h)");
    }
    const std::string unit = text.substr(used);
    double factor = 0;
    if (unit.empty() || unit == "s") factor = 1;
    else if (unit == "m") factor = 60;
    else if (unit == "h") factor = 3600;
    if (factor == 0 || value < 0 || !std::isfinite(value))
        throw Error("`max_time`: '" + text + "' is not a duration (examples: 3600, 90s, 30m, 2h)");
    return value * factor;
}

}  // namespace nmt
