// nmt train: train a model on a parallel corpus, validating, keeping the best
// model and writing checkpoints from which --resume continues exactly.
#include <sys/stat.h>

#include <atomic>
#include <csignal>
#include <pthread.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "architecture_options.h"
#include "train/checkpoint.h"
#include "train/communicator.h"
#include "commands.h"
#include "config_file.h"
#include "core/error.h"
#include "io/input_file.h"
#include "core/onednn_context.h"
#include "io/output_file.h"
#include "train/run_lock.h"
#include "core/sha256.h"
#include "train/trainer.h"
#ifdef NMT_MPI
#include "train/mpi/mpi_communicator.h"
#endif

namespace nmt::app {

namespace {

std::atomic<bool> g_stop_requested{false};

// First Ctrl-C (or SIGTERM): finish the step, write the checkpoint, stop. A
// second one ends the process at once. The two signals are blocked in every
// thread (threads started later inherit the mask) and taken by one thread
// that waits for them, so no handler ever runs on top of an interrupted
// compute thread. With an asynchronous handler, a full-size run stopped with
// SIGTERM sometimes ended in "corrupted size vs. prev_size" from malloc (4 of
// 7 tries; none of 7 like this). The cause was not pinned down (an ASan
// build trained the same steps without a report, so it is presumably the
// handler's frame landing on a running oneDNN kernel's stack); a waiting
// thread is the robust design whatever it was.
void watch_stop_signals() {
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    std::thread([stop_signals] {
        int signal = 0;
        sigwait(&stop_signals, &signal);
        g_stop_requested.store(true);
        sigwait(&stop_signals, &signal);
        std::signal(signal, SIG_DFL);
        pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
        raise(signal);  // this thread alone takes it: the default action ends the process
    }).detach();
}

struct TrainCommand {
    ArchitectureOptions architecture;
    VocabularyOptions vocab;
    TrainerOptions trainer;
    std::string lr_decay = "invsqrt", valid_metric = "bleu", storage = "f32", max_time, log, config;
    std::string pretrained_model;
    ConfigFile config_file;  // --config, read once: applied, then kept in the provenance
    std::vector<float> sentencepiece_alphas;
    int threads = 0;
    bool resume = false, overwrite = false, quiet = false;
    bool mpi = false;          // train across the ranks mpirun started (implied when it started several)
    double mpi_timeout = 300;  // seconds a rank waits for the others before giving up
};

// The command as typed, for provenance (Linux; elsewhere just the subcommand).
std::string command_line() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string out;
    size_t start = 0;
    while (start < all.size()) {
        size_t end = all.find('\0', start);
        if (end == std::string::npos) end = all.size();
        const std::string arg = all.substr(start, end - start);
        const bool plain = !arg.empty() && arg.find_first_of(" \t\"'\\$") == std::string::npos;
        out += (out.empty() ? "" : " ") + (plain ? arg : nlohmann::json(arg).dump());
        start = end + 1;
    }
    return out.empty() ? "nmt train" : out;
}


nlohmann::json config_provenance(const ConfigFile& file) {
    if (file.path.empty()) return nullptr;
    return {{"path", file.path}, {"contents", file.contents}};
}

// How a new run's model was made; the trainer adds the data and the scores.
nlohmann::json run_provenance(const TrainCommand& c) {
    return {{"created_by", std::string("nmt train ") + NMT_VERSION},
            {"command", command_line()},
            {"config_file", config_provenance(c.config_file)},
            {"options", c.trainer.to_json()}};
}

Model fresh_model(const TrainCommand& c) {
    const auto [source_path, target_path] = c.vocab.paths();
    Model model = new_model(c.architecture, c.vocab, c.trainer.seed);
    model.provenance = run_provenance(c);
    model.provenance["vocabularies"] = {source_path, target_path};
    return model;
}

// The checkpoint (or the pretrained model) fixes the architecture; options
// asking for another one are ignored, but not silently.
void warn_if_architecture_differs(const TrainCommand& c, CLI::App& command, const ModelConfig& stored,
                                  const std::string& stored_in, TrainingLog& log) {
    bool given = false;
    for (const CLI::Option* option : command.get_option_group("Architecture")->get_options())
        given = given || option->count() > 0;
    if (!given) return;
    ModelConfig asked = c.architecture.resolve();
    asked.source_vocab_size = stored.source_vocab_size;
    asked.target_vocab_size = stored.target_vocab_size;
    if (to_json(asked) != to_json(stored))
        log.line("warning: the architecture options differ from " + stored_in + " and are ignored: " +
                 to_json(stored).dump());
}

// A new run that starts from a trained model's weights (fine-tuning, or
// continued training on other data): its architecture and vocabularies are
// the model's. The optimiser starts afresh, and the tuned decoding settings
// are dropped, since they were tuned for the weights this run will change.
Model pretrained_model(const TrainCommand& c, CLI::App& command, TrainingLog& log) {
    const std::string& path = c.pretrained_model;
    Model model = load_model(path);
    warn_if_architecture_differs(c, command, model.config, "the pretrained model " + path, log);
    if (!c.vocab.joint.empty() || !c.vocab.source.empty() || !c.vocab.target.empty()) {
        const auto [source_path, target_path] = c.vocab.paths();
        if (Vocabulary::read_file(source_path) != model.source_vocab.serialized() ||
            Vocabulary::read_file(target_path) != model.target_vocab.serialized())
            throw Error("the vocabularies given (" + source_path + ", " + target_path +
                        ") are not those of the pretrained model " + path +
                        "; leave out the vocabulary options to use the model's");
    }
    nlohmann::json pretrained = {{"path", path}, {"sha256", sha256_file(path)}, {"provenance", model.provenance}};
    if (!model.decoding.empty()) pretrained["decoding"] = model.decoding;
    model.decoding = nlohmann::json::object();
    model.provenance = run_provenance(c);
    model.provenance["pretrained_model"] = pretrained;
    log.line("starting from the weights of " + path + " (" + std::to_string(model.parameter_count()) +
             " parameters)");
    return model;
}

// A resumed run continues from its checkpoint whatever --pretrained-model
// says; a run that started elsewhere is continued, but not silently.
void warn_if_pretrained_differs(const TrainCommand& c, const nlohmann::json& provenance, TrainingLog& log) {
    if (c.pretrained_model.empty()) return;
    const nlohmann::json started = provenance.value("pretrained_model", nlohmann::json::object());
    const std::string sha256 = sha256_file(c.pretrained_model);
    if (started.value("sha256", std::string()) != sha256)
        log.line("warning: the checkpoint's run did not start from " + c.pretrained_model + " (sha256 " + sha256 +
                 ") but from " +
                 (started.empty() ? std::string("random weights")
                                  : started.value("path", std::string("?")) + " (sha256 " +
                                        started.value("sha256", std::string("?")) + ")") +
                 "; it continues from the checkpoint");
}

std::string log_path(const TrainCommand& c) { return c.log.empty() ? c.trainer.output + ".log" : c.log; }

// LOG.jsonl beside a --log file; beside the model when --log is a device or
// a FIFO (`--log /dev/null` must not create /dev/null.jsonl).
std::string json_log_path(const TrainCommand& c) {
    struct stat st {};
    if (!c.log.empty() && ::stat(c.log.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        return c.trainer.output + ".log.jsonl";
    return log_path(c) + ".jsonl";
}

// The model is rewritten at every improvement and the checkpoint, logs and
// locks go beside it, so -o must name a file; and no file the run writes may
// be one it reads (or another it writes). Checked before anything is opened.
void check_output_files(const TrainCommand& c) {
    const TrainerOptions& o = c.trainer;
    struct stat st {};
    if (::stat(o.output.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw Error("-o " + o.output + (S_ISDIR(st.st_mode) ? " is a directory" : " is not a regular file") +
                    ": nmt train keeps its model there and writes MODEL.checkpoint, MODEL.log and MODEL.lock "
                    "beside it; give a file name");
    const std::vector<NamedFile> outputs = {{"-o", o.output},
                                            {"--checkpoint", o.checkpoint_path()},
                                            {"--log", log_path(c)},
                                            {"--log (JSON Lines)", json_log_path(c)}};
    std::vector<NamedFile> inputs;
    for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--train-source", o.train_source},
                                       {"--train-target", o.train_target},
                                       {"--valid-source", o.valid_source},
                                       {"--valid-target", o.valid_target},
                                       {"--vocab", c.vocab.joint},
                                       {"--source-vocab", c.vocab.source},
                                       {"--target-vocab", c.vocab.target},
                                       {"--pretrained-model", c.pretrained_model},
                                       {"--guided-alignment", o.guided_alignment},
                                       {"--config", c.config}})
        if (!path.empty()) inputs.push_back({option, path});
    refuse_shared_files(outputs, inputs);
}

// Returns whether the run was interrupted. `leader`: this process writes the
// files (alone, or rank 0 of several); the other ranks check nothing about
// the outputs and log nothing, and only train.
bool train_locked(TrainCommand& c, CLI::App& command, std::optional<TrainingLog>& log_slot, bool leader) {
    const TrainerOptions& o = c.trainer;
    const std::string checkpoint_path = o.checkpoint_path();
    const bool have_checkpoint = std::filesystem::exists(checkpoint_path);
    if (leader && have_checkpoint && !c.resume && !c.overwrite)
        throw Error(checkpoint_path + " exists: add --resume to continue that run, or --overwrite to start afresh");
    const bool resuming = c.resume && have_checkpoint;
    // A trained model is hours of work: a new run replaces it only when asked to.
    if (leader && !resuming && !c.overwrite && std::filesystem::exists(o.output))
        throw Error(o.output + " exists and no checkpoint continues it: add --overwrite to replace it, or write to another -o");
    TrainingLog& log = leader ? log_slot.emplace(log_path(c), json_log_path(c), resuming, c.quiet ? nullptr : &std::cerr)
                              : log_slot.emplace("", "", resuming, nullptr);
    if (c.resume && !have_checkpoint) log.line("no checkpoint at " + checkpoint_path + ": starting a new run");
    set_threads(c.threads);

    TrainingOutcome outcome;
    if (resuming) {
        Checkpoint checkpoint = load_checkpoint(checkpoint_path);
        warn_if_architecture_differs(c, command, checkpoint.model.config, "the checkpoint's model", log);
        warn_if_pretrained_differs(c, checkpoint.model.provenance, log);
        // Before "resumed" is added: a model saved again is the one the run saved.
        if (leader) {
            const std::string restored = restore_output_model(checkpoint, o);
            if (!restored.empty()) log.line(restored);
        }
        auto& resumed = checkpoint.model.provenance["resumed"];
        if (!resumed.is_array()) resumed = nlohmann::json::array();
        resumed.push_back({{"command", command_line()}, {"at_step", checkpoint.state.step}});
        outcome = train(checkpoint.model, checkpoint.adam, checkpoint.average, checkpoint.state, o, log);
    } else {
        Model model = c.pretrained_model.empty() ? fresh_model(c) : pretrained_model(c, command, log);
        Adam adam(model, o.adam);
        ParameterAverage average;
        TrainingState state = initial_training_state(o.seed);
        outcome = train(model, adam, average, state, o, log);
    }
    return outcome.stop_reason == "interrupted";
}

bool run_leader(TrainCommand& c, CLI::App& command);

// Rank 0 does what a process alone does: locks, logs, writes. The other ranks
// only train; an error on any rank ends them all (the others would wait for it).
#ifdef NMT_MPI
bool run_ranks(TrainCommand& c, CLI::App& command, MpiCommunicator& ranks) {
    c.trainer.ranks = &ranks;
    try {
        if (ranks.rank() == 0) return run_leader(c, command);
        std::optional<TrainingLog> log;
        train_locked(c, command, log, false);
        return false;  // rank 0 alone reports an interrupt
    } catch (const std::exception& e) {
        std::cerr << "nmt: error: rank " << ranks.rank() << " of " << ranks.size() << ": " << e.what() << std::endl;
        ranks.abort(1);
    }
}
#endif

// Joins the ranks when mpirun started several (or --mpi asks), then trains.
void run_training(TrainCommand& c, CLI::App& command) {
#ifdef NMT_MPI
    bool interrupted = false;
    if (c.mpi || ranks_started_by_mpirun() > 1) {
        MpiCommunicator ranks(c.mpi_timeout);
        interrupted = ranks.size() > 1 ? run_ranks(c, command, ranks) : run_leader(c, command);
    } else {
        interrupted = run_leader(c, command);
    }
#else
    if (c.mpi)
        throw Error("--mpi: this nmt was built without MPI; build it with cmake -DNMT_MPI=ON (README, \"Training on "
                    "several processes and machines\")");
    if (ranks_started_by_mpirun() > 1)
        throw Error("started by mpirun with several ranks, but this nmt was built without MPI: each rank would train "
                    "alone and overwrite the others' files; build it with cmake -DNMT_MPI=ON");
    const bool interrupted = run_leader(c, command);
#endif
    // After the ranks have finished together (no abort: every rank stopped at the same step).
    if (interrupted) throw Error("interrupted; continue with --resume");
}

void run(TrainCommand& c, CLI::App& command) {
    watch_stop_signals();  // first, before anything starts a thread (MPI's included)
    TrainerOptions& o = c.trainer;
    if (!c.config.empty()) {
        c.config_file = read_config_file(c.config);
        apply_config(command, c.config_file);
    }
    for (const auto& [value, name] : {std::pair{&o.train_source, "--train-source"}, {&o.train_target, "--train-target"},
                                      {&o.output, "-o/--output"}})
        if (value->empty()) throw Error(std::string(name) + " is required (on the command line or in --config)");
    if (!c.sentencepiece_alphas.empty()) {
        o.subword_sampling.source_alpha = c.sentencepiece_alphas.front();
        o.subword_sampling.target_alpha = c.sentencepiece_alphas.back();
    }
    o.lr.decay = parse_lr_decay(c.lr_decay);
    o.metric = parse_valid_metric(c.valid_metric);
    o.storage = parse_storage(c.storage);
    if (!c.max_time.empty()) o.max_time = parse_duration(c.max_time);
    o.stop_requested = &g_stop_requested;
    check_output_files(c);
    run_training(c, command);
}

// Returns whether the run was interrupted.
bool run_leader(TrainCommand& c, CLI::App& command) {
    const TrainerOptions& o = c.trainer;
    const std::string checkpoint_path = o.checkpoint_path();
    RunLock checkpoint_lock(checkpoint_path + ".lock", "the checkpoint " + checkpoint_path);
    std::optional<RunLock> model_lock;
    std::optional<TrainingLog> log;
    try {
        model_lock.emplace(resolve_links(o.output) + ".lock", "the model " + o.output);
        return train_locked(c, command, log, true);
    } catch (...) {
        // A run that fails before its first step leaves nothing behind: its
        // logs are not opened yet, and the lock files it created go too.
        if (!log || !log->begun()) {
            if (model_lock) model_lock->remove_if_created();
            checkpoint_lock.remove_if_created();
        }
        throw;
    }
}

}  // namespace

void add_train_command(CLI::App& app) {
    auto c = std::make_shared<TrainCommand>();
    TrainerOptions& o = c->trainer;
    auto* cmd = app.add_subcommand("train", "Train a model on a parallel corpus (Adam, validation, early stopping)");
    cmd->footer(
        "Files written:\n"
        "  MODEL             the best model by --valid-metric (the latest one without a validation set)\n"
        "  MODEL.checkpoint  parameters, optimiser moments, data position and random state: --resume continues\n"
        "                    exactly, with the same data order and dropout masks (for the same --threads)\n"
        "  MODEL.log         the progress and validation lines; MODEL.log.jsonl the same as JSON Lines\n"
        "  MODEL.lock, MODEL.checkpoint.lock  held while a run trains, so that a second run writing the same\n"
        "                    model or checkpoint is refused\n"
        "A run that fails before its first step leaves no log, and removes the lock files it created.\n"
        "Ctrl-C (or SIGTERM) writes the checkpoint after the current step and stops.\n\n"
        "Example:\n"
        "  nmt vocab -i train.en train.de --size 8000 -o spm\n"
        "  nmt train --source-vocab spm.src.model --target-vocab spm.tgt.model \\\n"
        "      --train-source train.en --train-target train.de --valid-source val.en --valid-target val.de \\\n"
        "      -o en-de.nmt --max-time 2h");
    cmd->add_option("--config", c->config,
                    "Read options from a JSON or TOML file (keys: long option names; the command line wins)")
        ->check(CLI::ExistingFile);
    c->architecture.add_to(*cmd);
    c->vocab.add_to(*cmd);

    auto* data = cmd->add_option_group("Data");
    data->add_option("--train-source", o.train_source, "Training source text, one sentence per line (required)");
    data->add_option("--train-target", o.train_target, "Training target text, aligned with --train-source (required)");
    data->add_option("--valid-source", o.valid_source, "Validation source text");
    data->add_option("--valid-target", o.valid_target, "Validation target text (the BLEU reference)");
    data->add_option("--sentencepiece-alphas", c->sentencepiece_alphas,
                     "Subword regularisation (Kudo 2018): every epoch draws each sentence's segmentation from its "
                     "--sentencepiece-nbest best with probability ∝ P^alpha; one alpha for both sides, or source "
                     "then target (0: that side keeps its best segmentation; 0.1 is Kudo's setting)")
        ->expected(1, 2)
        ->check(CLI::Range(0.0, 100.0));
    data->add_option("--sentencepiece-nbest", o.subword_sampling.nbest,
                     "Segmentations per sentence that --sentencepiece-alphas draws from")
        ->check(CLI::Range(2, 1000))
        ->capture_default_str();
    data->add_option("--max-length", o.max_length, "Skip training pairs with more pieces on either side (0: keep all)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();

    auto* out = cmd->add_option_group("Output");
    out->add_option("-o,--output", o.output, "Model file to write, the best by validation (required)");
    out->add_option("--pretrained-model", c->pretrained_model,
                    "Start a new run from this model's weights, architecture and vocabularies (fine-tuning); "
                    "the optimiser starts afresh")
        ->check(CLI::ExistingFile);
    out->add_option("--checkpoint", o.checkpoint, "Training checkpoint file (default: MODEL.checkpoint)");
    out->add_flag("--resume", c->resume, "Continue the run saved in the checkpoint (a new run when there is none)");
    out->add_flag("--overwrite", c->overwrite, "Start afresh even though the checkpoint or the model at -o exists");
    out->add_option("--storage", c->storage, "Weight storage type of the model file")
        ->check(CLI::IsMember({"f32", "f16", "bf16"}))
        ->capture_default_str();
    out->add_option("--log", c->log, "Text log (default: MODEL.log); the JSON Lines log is LOG.jsonl (MODEL.log.jsonl when LOG is a device or FIFO)");
    out->add_flag("-q,--quiet", c->quiet, "Do not print progress on stderr (the logs still get it)");

    auto* optimiser = cmd->add_option_group("Optimisation");
    optimiser->add_option("--seed", o.seed, "Random seed: initial weights, data order, dropout")->capture_default_str();
    optimiser->add_option("--threads", c->threads, "CPU threads (0: OpenMP's default, all cores)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    optimiser->add_option("--batch-tokens", o.batch_tokens, "Target tokens per batch, padding included")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    optimiser->add_option("--maxi-batch", o.maxi_batch, "Batches' worth of pairs sorted by length together")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    optimiser->add_option("--lr", o.lr.base, "Peak learning rate (Adam)")->check(CLI::PositiveNumber)->capture_default_str();
    optimiser->add_option("--warmup", o.lr.warmup, "Steps of linear learning-rate warm-up")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    optimiser->add_option("--lr-decay", c->lr_decay,
                          "invsqrt: lr·sqrt(warmup/step) after warm-up; plateau: lr × --lr-decay-factor after "
                          "each validation without improvement; invsqrt+plateau: both")
        ->check(CLI::IsMember({"invsqrt", "plateau", "invsqrt+plateau"}))
        ->capture_default_str();
    optimiser->add_option("--lr-decay-factor", o.lr_decay_factor, "Plateau decay factor")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    optimiser->add_option("--clip-norm", o.clip_norm, "Clip the gradients' global L2 norm (per-token gradients; 0: off)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    optimiser
        ->add_option("--exponential-smoothing", o.exponential_smoothing,
                     "Validate and save an exponential moving average of the weights with this rate (0: off; "
                     "5e-4 averages over about the last 2000 updates)")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    optimiser->add_option("--adam-beta1", o.adam.beta1, "Adam β1")->check(CLI::Range(0.0, 1.0))->capture_default_str();
    optimiser->add_option("--adam-beta2", o.adam.beta2, "Adam β2")->check(CLI::Range(0.0, 1.0))->capture_default_str();
    optimiser->add_option("--adam-eps", o.adam.epsilon, "Adam ε")->check(CLI::PositiveNumber)->capture_default_str();
    optimiser->add_option("--label-smoothing", o.graph.label_smoothing, "Label smoothing ε")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    optimiser->add_option("--dropout-emb", o.graph.dropout_embeddings, "Dropout on source and target embeddings")
        ->check(CLI::Range(0.0, 0.99))
        ->capture_default_str();
    optimiser->add_option("--dropout-hidden", o.graph.dropout_hidden, "Dropout on encoder outputs and the deep output")
        ->check(CLI::Range(0.0, 0.99))
        ->capture_default_str();
    optimiser->add_option("--dropout-src", o.graph.dropout_source_words,
                          "Word dropout: zero a source word's whole embedding with this probability")
        ->check(CLI::Range(0.0, 0.99))
        ->capture_default_str();
    optimiser->add_option("--dropout-trg", o.graph.dropout_target_words,
                          "Word dropout on the previous target words fed to the decoder")
        ->check(CLI::Range(0.0, 0.99))
        ->capture_default_str();
    optimiser->add_option("--dropout-rnn", o.graph.dropout_rnn,
                          "Variational dropout on every cell's previous state as its recurrent products see it "
                          "(the same units at every step of a sentence)")
        ->check(CLI::Range(0.0, 0.99))
        ->capture_default_str();

    auto* guided = cmd->add_option_group("Guided alignment",
                                         "Pulls the attention towards given word alignments, so that it aligns "
                                         "(Marian's --guided-alignment, cost ce)");
    guided->add_option("--guided-alignment", o.guided_alignment,
                       "Word alignments of the training pairs, Pharaoh 'i-j' over whitespace-separated words, one "
                       "line per pair (nmt align --statistical writes them)")
        ->check(CLI::ExistingFile);
    o.graph.guided_alignment_weight = 0.1f;  // Marian's default; nothing happens without --guided-alignment
    guided->add_option("--guided-alignment-weight", o.graph.guided_alignment_weight,
                       "Weight of the attention's cross-entropy against the alignments, per target piece")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();

    auto* risk = cmd->add_option_group("Minimum risk training",
                                       "A sequence-level stage, usually from --pretrained-model: each batch adds the "
                                       "beam's n-best translations of its sources, weighted to lower their expected "
                                       "1 - sentence BLEU (Shen et al. 2016)");
    risk->add_option("--mrt-candidates", o.risk.candidates, "Candidates per sentence, from a beam of that width (0: off)")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    risk->add_option("--mrt-weight", o.risk.risk_weight,
                     "Weight of a sentence's risk against its token-level loss (summed over its words)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    risk->add_option("--mrt-sharpness", o.risk.sharpness, "alpha in Q(candidate) ~ p(candidate)^alpha")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    risk->add_option("--mrt-length-penalty", o.risk.length_penalty, "Length penalty of the candidates' beam search")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();

    auto* schedule = cmd->add_option_group("Schedule");
    schedule->add_option("--disp-freq", o.disp_freq, "Steps between progress lines")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    schedule->add_option("--valid-every", o.valid_every, "Steps between validations (0: only at the end)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    schedule->add_option("--save-every", o.save_every, "Steps between checkpoints (0: only at the end)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    schedule->add_option("--valid-metric", c->valid_metric, "What decides the best model and early stopping")
        ->check(CLI::IsMember({"bleu", "ce"}))
        ->capture_default_str();
    schedule->add_option("--valid-beam", o.valid_beam, "Beam size of validation translations (0: no BLEU)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    schedule->add_option("--valid-lines", o.valid_lines, "Validate on the first N pairs only (0: all)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    schedule->add_option("--patience", o.patience, "Stop after this many validations without improvement (0: never)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    schedule->add_option("--max-time", c->max_time, "Stop after this much training time: 3600, 90s, 30m, 2h");
    auto* ranks = cmd->add_option_group("Training on several processes (mpirun -np N nmt train ...; an MPI build)");
    ranks->add_flag("--mpi", c->mpi,
                    "Train across the ranks mpirun started: each trains on its slice of every batch, rank 0 "
                    "validates and writes the files (implied when mpirun starts more than one)");
    ranks->add_option("--mpi-timeout", c->mpi_timeout,
                      "Seconds a rank waits for the others in a step before it ends the job (0: forever)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    schedule->add_option("--max-steps", o.max_steps, "Stop after this many updates (0: no limit)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    schedule->add_option("--max-epochs", o.max_epochs, "Stop after this many epochs (0: no limit)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    cmd->callback([c, cmd] { run(*c, *cmd); });
}

}  // namespace nmt::app
