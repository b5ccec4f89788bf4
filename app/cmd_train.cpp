// nmt train: train a model on a parallel corpus, validating, keeping the best
// model and writing checkpoints from which --resume continues exactly. This
// file parses the options (and --config) and handles the process's signals
// and MPI ranks; lib/train/training_run starts or resumes the run.
#include <pthread.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <thread>
#include <tuple>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include "architecture_options.h"
#include "commands.h"
#include "config_file.h"
#include "option_checks.h"
#include "core/error.h"
#include "core/onednn_context.h"
#include "train/communicator.h"
#include "train/trainer.h"
#include "train/trainer_settings.h"
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
    std::string config;
    ConfigFile config_file;  // --config, read once: applied, then kept in the provenance
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

// One row of the training settings' table as a flag (and config key) of GROUP.
void add_setting(CLI::Option_group& group, const TrainerSetting& setting, const std::shared_ptr<TrainCommand>& c) {
    const std::string flags = (setting.short_flag.empty() ? "" : setting.short_flag + ",") + setting_flag(setting.name);
    const bool bounded = setting.min > -1e300 || setting.max < 1e300;
    CLI::Option* option = nullptr;
    if (setting.field) {
        option = std::visit(
            [&](auto* value) {
                using Value = std::remove_pointer_t<decltype(value)>;
                CLI::Option* added = group.add_option(flags, *value, setting.help);
                if constexpr (!std::is_same_v<Value, std::string>) {
                    added->capture_default_str();
                }
                return added;
            },
            setting.field(c->run.trainer));
    } else {
        const TrainerSetting* row = &setting;  // the table lives as long as the program
        option = group.add_option(
            flags,
            [c, row](const CLI::results_t& values) {
                row->parse(c->run.trainer, values);
                return true;
            },
            setting.help);
        option->expected(setting.min_values, setting.max_values);
        option->type_name(bounded ? "FLOAT" : "TEXT");
        if (!setting.parsed_default.empty()) option->default_str(setting.parsed_default);
    }
    if (bounded || setting.positive) option->check(number_range(setting.min, setting.max, setting.positive));
    if (!setting.choices.empty()) option->check(CLI::IsMember(setting.choices));
    if (setting.existing_file) option->check(CLI::ExistingFile);
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

    // Groups in the order help lists them; the training settings fill them
    // from their table (lib/train/trainer_settings), then the options of
    // this command alone.
    std::map<std::string, CLI::Option_group*> groups;
    for (const char* name : {"Data", "Output", "Optimisation"}) groups[name] = cmd->add_option_group(name);
    groups["Guided alignment"] = cmd->add_option_group(
        "Guided alignment",
        "Pulls the attention towards given word alignments, so that it aligns (Marian's --guided-alignment, cost ce)");
    groups["Minimum risk training"] = cmd->add_option_group(
        "Minimum risk training",
        "A sequence-level stage, usually from --pretrained-model: each batch adds the beam's n-best translations of "
        "its sources, weighted to lower their expected 1 - sentence BLEU (Shen et al. 2016)");
    groups["Schedule"] = cmd->add_option_group("Schedule");
    o.graph.guided_alignment_weight = 0.1f;  // Marian's default; nothing happens without --guided-alignment
    for (const TrainerSetting& setting : trainer_settings()) add_setting(*groups.at(setting.group), setting, c);

    auto* out = groups.at("Output");
    out->add_option("--pretrained-model", c->run.pretrained_model,
                    "Start a new run from this model's weights, architecture and vocabularies (fine-tuning); "
                    "the optimiser starts afresh")
        ->check(CLI::ExistingFile);
    out->add_flag("--resume", c->run.resume, "Continue the run saved in the checkpoint (a new run when there is none)");
    out->add_flag("--overwrite", c->run.overwrite, "Start afresh even though the checkpoint or the model at -o exists");
    out->add_option("--log", c->run.log, "Text log (default: MODEL.log); the JSON Lines log is LOG.jsonl (MODEL.log.jsonl when LOG is a device or FIFO)");
    out->add_flag("-q,--quiet", c->run.quiet, "Do not print progress on stderr (the logs still get it)");
    groups.at("Optimisation")
        ->add_option("--threads", c->threads, "CPU threads (0: OpenMP's default, all cores)")
        ->capture_default_str();
    auto* ranks = cmd->add_option_group("Training on several processes (mpirun -np N nmt train ...; an MPI build)");
    ranks->add_flag("--mpi", c->mpi,
                    "Train across the ranks mpirun started: each trains on its slice of every batch, rank 0 "
                    "validates and writes the files (implied when mpirun starts more than one)");
    ranks->add_option("--mpi-timeout", c->mpi_timeout,
                      "Seconds a rank waits for the others in a step before it ends the job (0: forever)")
        ->check(number_range(0, HUGE_VAL))
        ->capture_default_str();
    cmd->callback([c, cmd] { run(*c, *cmd); });
}

}  // namespace nmt::app
