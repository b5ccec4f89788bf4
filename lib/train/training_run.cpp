#include "train/training_run.h"

#include <sys/stat.h>

#include <filesystem>
#include <optional>

#include "core/error.h"
#include "core/sha256.h"
#include "model/model.h"
#include "train/checkpoint.h"
#include "train/run_lock.h"

namespace nmt {

namespace {

std::string log_path(const TrainingRunSettings& s) { return s.log.empty() ? s.trainer.output + ".log" : s.log; }

// LOG.jsonl beside the text log; beside the model when the log is a device or
// a FIFO (a log on /dev/null must not create /dev/null.jsonl).
std::string json_log_path(const TrainingRunSettings& s) {
    struct stat st {};
    if (!s.log.empty() && ::stat(s.log.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        return s.trainer.output + ".log.jsonl";
    return log_path(s) + ".jsonl";
}

Model fresh_model(const TrainingRunSettings& s) {
    if (s.source_vocab.empty() || s.target_vocab.empty())
        throw Error("a new model needs its vocabularies: give `vocab`, or both `source_vocab` and `target_vocab`");
    Model model = new_model(s.architecture, s.source_vocab, s.target_vocab, s.trainer.seed);
    model.provenance = s.provenance;
    model.provenance["vocabularies"] = {s.source_vocab, s.target_vocab};
    return model;
}

// The checkpoint (or the pretrained model) fixes the architecture; settings
// asking for another one are ignored, but not silently.
void warn_if_architecture_differs(const TrainingRunSettings& s, const ModelConfig& stored, const std::string& stored_in,
                                  TrainingLog& log) {
    if (!s.architecture_given) return;
    ModelConfig asked = s.architecture;
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
Model pretrained_model(const TrainingRunSettings& s, TrainingLog& log) {
    const std::string& path = s.pretrained_model;
    Model model = load_model(path);
    warn_if_architecture_differs(s, model.config, "the pretrained model " + path, log);
    if (!s.source_vocab.empty() &&
        (Vocabulary::read_file(s.source_vocab) != model.source_vocab.serialized() ||
         Vocabulary::read_file(s.target_vocab) != model.target_vocab.serialized()))
        throw Error("the vocabularies given (" + s.source_vocab + ", " + s.target_vocab +
                    ") are not those of the pretrained model " + path +
                    "; leave out the vocabulary options to use the model's");
    nlohmann::json pretrained = {{"path", path}, {"sha256", sha256_file(path)}, {"provenance", model.provenance}};
    if (!model.decoding.empty()) pretrained["decoding"] = model.decoding;
    model.decoding = nlohmann::json::object();
    model.provenance = s.provenance;
    model.provenance["pretrained_model"] = pretrained;
    log.line("starting from the weights of " + path + " (" + std::to_string(model.parameter_count()) + " parameters)");
    return model;
}

// A resumed run continues from its checkpoint whatever the pretrained model
// setting says; a run that started elsewhere is continued, but not silently.
void warn_if_pretrained_differs(const TrainingRunSettings& s, const nlohmann::json& provenance, TrainingLog& log) {
    if (s.pretrained_model.empty()) return;
    const nlohmann::json started = provenance.value("pretrained_model", nlohmann::json::object());
    const std::string sha256 = sha256_file(s.pretrained_model);
    if (started.value("sha256", std::string()) != sha256)
        log.line("warning: the checkpoint's run did not start from " + s.pretrained_model + " (sha256 " + sha256 +
                 ") but from " +
                 (started.empty() ? std::string("random weights")
                                  : started.value("path", std::string("?")) + " (sha256 " +
                                        started.value("sha256", std::string("?")) + ")") +
                 "; it continues from the checkpoint");
}

// Returns whether the run was interrupted. `leader`: this process writes the
// files; the other ranks check nothing about the outputs and log nothing.
bool train_locked(TrainingRunSettings& s, std::optional<TrainingLog>& log_slot, bool leader) {
    const TrainerOptions& o = s.trainer;
    const std::string checkpoint_path = o.checkpoint_path();
    const bool have_checkpoint = std::filesystem::exists(checkpoint_path);
    if (leader && have_checkpoint && !s.resume && !s.overwrite)
        throw Error(checkpoint_path + " exists: add `resume` to continue that run, or `overwrite` to start afresh");
    const bool resuming = s.resume && have_checkpoint;
    // A trained model is hours of work: a new run replaces it only when asked to.
    if (leader && !resuming && !s.overwrite && std::filesystem::exists(o.output))
        throw Error(o.output + " exists and no checkpoint continues it: add `overwrite` to replace it, or write to another `output`");
    TrainingLog& log = leader ? log_slot.emplace(log_path(s), json_log_path(s), resuming, s.quiet ? nullptr : s.console)
                              : log_slot.emplace("", "", resuming, nullptr);
    if (s.resume && !have_checkpoint) log.line("no checkpoint at " + checkpoint_path + ": starting a new run");

    TrainingOutcome outcome;
    if (resuming) {
        Checkpoint checkpoint = load_checkpoint(checkpoint_path);
        warn_if_architecture_differs(s, checkpoint.model.config, "the checkpoint's model", log);
        warn_if_pretrained_differs(s, checkpoint.model.provenance, log);
        // Before "resumed" is added: a model saved again is the one the run saved.
        if (leader) {
            const std::string restored = restore_output_model(checkpoint, o);
            if (!restored.empty()) log.line(restored);
        }
        auto& resumed = checkpoint.model.provenance["resumed"];
        if (!resumed.is_array()) resumed = nlohmann::json::array();
        resumed.push_back({{"command", s.command}, {"at_step", checkpoint.state.step}});
        outcome = train(checkpoint.model, checkpoint.adam, checkpoint.average, checkpoint.state, o, log);
    } else {
        Model model = s.pretrained_model.empty() ? fresh_model(s) : pretrained_model(s, log);
        Adam adam(model, o.adam);
        ParameterAverage average;
        TrainingState state = initial_training_state(o.seed);
        outcome = train(model, adam, average, state, o, log);
    }
    return outcome.stop_reason == "interrupted";
}

}  // namespace

// The model is rewritten at every improvement and the checkpoint, logs and
// locks go beside it, so the output must name a file; and no file the run
// writes may be one it reads (or another it writes).
void check_training_files(const TrainingRunSettings& s) {
    const TrainerOptions& o = s.trainer;
    struct stat st {};
    if (::stat(o.output.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw Error("`output` " + o.output + (S_ISDIR(st.st_mode) ? " is a directory" : " is not a regular file") +
                    ": nmt train keeps its model there and writes MODEL.checkpoint, MODEL.log and MODEL.lock "
                    "beside it; give a file name");
    const std::vector<NamedFile> outputs = {{"`output`", o.output},
                                            {"`checkpoint`", o.checkpoint_path()},
                                            {"`log`", log_path(s)},
                                            {"`log` (JSON Lines)", json_log_path(s)}};
    std::vector<NamedFile> inputs = s.other_inputs;
    for (const auto& [setting, path] : {std::pair<const char*, const std::string&>{"`train_source`", o.train_source},
                                        {"`train_target`", o.train_target},
                                        {"`valid_source`", o.valid_source},
                                        {"`valid_target`", o.valid_target},
                                        {"the source vocabulary", s.source_vocab},
                                        {"the target vocabulary", s.target_vocab},
                                        {"`pretrained_model`", s.pretrained_model},
                                        {"`guided_alignment`", o.guided_alignment}})
        if (!path.empty()) inputs.push_back({setting, path});
    refuse_shared_files(outputs, inputs);
}

bool train_writing_files(TrainingRunSettings& s) {
    const TrainerOptions& o = s.trainer;
    const std::string checkpoint_path = o.checkpoint_path();
    RunLock checkpoint_lock(checkpoint_path + ".lock", "the checkpoint " + checkpoint_path);
    std::optional<RunLock> model_lock;
    std::optional<TrainingLog> log;
    try {
        model_lock.emplace(resolve_links(o.output) + ".lock", "the model " + o.output);
        return train_locked(s, log, true);
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

void train_without_files(TrainingRunSettings& s) {
    std::optional<TrainingLog> log;
    train_locked(s, log, false);
}

}  // namespace nmt
