// nmt train: train a model on a parallel corpus, validating, keeping the best
// model and writing checkpoints from which --resume continues exactly. This
// file parses the options (and --config) and handles the process's signals
// and MPI ranks; lib/train/training_run starts or resumes the run.
#include <pthread.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>
#include <thread>
#include <tuple>

#include <nlohmann/json.hpp>

#include "architecture_options.h"
#include "commands.h"
#include "config_file.h"
#include "core/error.h"
#include "core/onednn_context.h"
#include "train/communicator.h"
#include "train/trainer.h"
#include "train/training_run.h"
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
    TrainingRunSettings run;  // what lib/train/training_run starts; the flags below are parsed into it
    std::string lr_decay = "invsqrt", valid_metric = "bleu", storage = "f32", max_time, config;
    ConfigFile config_file;  // --config, read once: applied, then kept in the provenance
    std::vector<float> sentencepiece_alphas;
    int threads = 0;
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
            {"options", c.run.trainer.to_json()}};
}

// Rank 0 does what a process alone does: locks, logs, writes. The other ranks
// only train; an error on any rank ends them all (the others would wait for it).
#ifdef NMT_MPI
bool run_ranks(TrainingRunSettings& run, MpiCommunicator& ranks) {
    run.trainer.ranks = &ranks;
    try {
        if (ranks.rank() == 0) return train_writing_files(run);
        train_without_files(run);
        return false;  // rank 0 alone reports an interrupt
    } catch (const std::exception& e) {
        std::cerr << "nmt: error: rank " << ranks.rank() << " of " << ranks.size() << ": " << e.what() << std::endl;
        ranks.abort(1);
    }
}
#endif

// Joins the ranks when mpirun started several (or --mpi asks), then trains.
void run_training(TrainCommand& c) {
#ifdef NMT_MPI
    bool interrupted = false;
    if (c.mpi || ranks_started_by_mpirun() > 1) {
        MpiCommunicator ranks(c.mpi_timeout);
        interrupted = ranks.size() > 1 ? run_ranks(c.run, ranks) : train_writing_files(c.run);
    } else {
        interrupted = train_writing_files(c.run);
    }
#else
    if (c.mpi)
        throw Error("--mpi: this nmt was built without MPI; build it with cmake -DNMT_MPI=ON (README, \"Training on "
                    "several processes and machines\")");
    if (ranks_started_by_mpirun() > 1)
        throw Error("started by mpirun with several ranks, but this nmt was built without MPI: each rank would train "
                    "alone and overwrite the others' files; build it with cmake -DNMT_MPI=ON");
    const bool interrupted = train_writing_files(c.run);
#endif
    // After the ranks have finished together (no abort: every rank stopped at the same step).
    if (interrupted) throw Error("interrupted; continue with --resume");
}

// Whether any architecture flag was given (on the command line or in --config).
bool architecture_given(CLI::App& command) {
    for (const CLI::Option* option : command.get_option_group("Architecture")->get_options())
        if (option->count() > 0) return true;
    return false;
}

void run(TrainCommand& c, CLI::App& command) {
    watch_stop_signals();  // first, before anything starts a thread (MPI's included)
    TrainerOptions& o = c.run.trainer;
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

    TrainingRunSettings& run = c.run;
    run.architecture = c.architecture.resolve();
    run.architecture_given = architecture_given(command);
    if (c.vocab.given()) std::tie(run.source_vocab, run.target_vocab) = c.vocab.paths();
    if (!c.config.empty()) run.other_inputs = {{"--config", c.config}};
    run.provenance = run_provenance(c);
    run.command = command_line();
    run.console = &std::cerr;
    set_threads(c.threads);
    check_training_files(run);
    run_training(c);
}

}  // namespace

void add_train_command(CLI::App& app) {
    auto c = std::make_shared<TrainCommand>();
    TrainerOptions& o = c->run.trainer;
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
    out->add_option("--pretrained-model", c->run.pretrained_model,
                    "Start a new run from this model's weights, architecture and vocabularies (fine-tuning); "
                    "the optimiser starts afresh")
        ->check(CLI::ExistingFile);
    out->add_option("--checkpoint", o.checkpoint, "Training checkpoint file (default: MODEL.checkpoint)");
    out->add_flag("--resume", c->run.resume, "Continue the run saved in the checkpoint (a new run when there is none)");
    out->add_flag("--overwrite", c->run.overwrite, "Start afresh even though the checkpoint or the model at -o exists");
    out->add_option("--storage", c->storage, "Weight storage type of the model file")
        ->check(CLI::IsMember({"f32", "f16", "bf16"}))
        ->capture_default_str();
    out->add_option("--log", c->run.log, "Text log (default: MODEL.log); the JSON Lines log is LOG.jsonl (MODEL.log.jsonl when LOG is a device or FIFO)");
    out->add_flag("-q,--quiet", c->run.quiet, "Do not print progress on stderr (the logs still get it)");

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
