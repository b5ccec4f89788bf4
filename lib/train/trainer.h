// The training loop: batches from the corpus, forward/backward, Adam, and
// around them the progress display, validation (cross-entropy and BLEU of
// beam-search output), keeping the best model, early stopping and
// checkpoints from which a run continues exactly.
//
// Reproducibility: for a given seed and thread count a run gives the same
// numbers, interrupted and resumed or not. The data order depends only on
// (seed, epoch) (batching.h); dropout draws from the trainer's Random, whose
// state the checkpoint stores; parameters and Adam moments are stored as f32.
#pragma once
#include <atomic>
#include <cstdint>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/adam.h"
#include "train/batching.h"
#include "train/checkpoint.h"
#include "train/communicator.h"
#include "train/minimum_risk.h"
#include "model/model.h"
#include "train/parameter_average.h"
#include "model/safetensors.h"
#include "train/subword_sampling.h"
#include "train/training_graph.h"

namespace nmt {

enum class ValidMetric { Bleu, CrossEntropy };
ValidMetric parse_valid_metric(const std::string& name);  // "bleu" or "ce"
std::string to_string(ValidMetric metric);

struct TrainerOptions {
    std::string train_source, train_target;
    std::string valid_source, valid_target;  // optional; without them -o gets the latest model
    int max_length = 100;                    // training pairs with longer sides are skipped
    // Word alignments of the training pairs (Pharaoh, one line per pair), which
    // graph.guided_alignment_weight pulls the attention towards; empty: none.
    std::string guided_alignment;

    std::string output;      // the best model by the validation metric
    std::string checkpoint;  // the training state (default OUTPUT.checkpoint)
    DType storage = DType::F32;

    uint64_t seed = 1;
    int64_t batch_tokens = 2000;
    int64_t maxi_batch = 100;
    SubwordSampling subword_sampling;  // off unless an alpha is set
    TrainingOptions graph;
    MinimumRiskOptions risk;  // off unless risk.candidates > 0
    AdamOptions adam;
    LrSchedule lr{2e-3, 1000, LrDecay::InverseSqrt};
    double lr_decay_factor = 0.5;  // plateau: multiply the rate by this after a validation without improvement
    double clip_norm = 5.0;
    // Rate of the parameters' exponential moving average (0: off), which is
    // then what validation scores and the output model holds. 5e-4 averages
    // over roughly the last 2,000 updates.
    double exponential_smoothing = 0;

    int64_t disp_freq = 100;     // steps between progress lines
    int64_t valid_every = 1000;  // steps between validations
    int64_t save_every = 1000;   // steps between checkpoints
    ValidMetric metric = ValidMetric::Bleu;
    int valid_beam = 5;          // 0: no BLEU, cross-entropy only
    int64_t valid_lines = 0;     // 0: the whole validation set
    int64_t patience = 10;       // stop after this many validations without improvement (0: never)

    double max_time = 0;     // seconds of training over all runs (0: no limit)
    int64_t max_steps = 0;   // 0: no limit
    int64_t max_epochs = 0;  // 0: no limit

    const std::atomic<bool>* stop_requested = nullptr;  // set by a signal handler: save and stop after the current step
    // Data-parallel training across processes (distributed_training.h): each
    // rank trains on its slice of every batch; rank 0 alone validates and
    // writes the model, checkpoint and logs. Null: this process alone.
    Communicator* ranks = nullptr;

    std::string checkpoint_path() const { return checkpoint.empty() ? output + ".checkpoint" : checkpoint; }
    nlohmann::json to_json() const;  // every option, for provenance and the log
};

// Where the run reports: readable lines (console and text log) and one JSON
// object per event (JSON Lines). Every write is flushed, so a killed run
// leaves a complete log up to its last line. The files are opened only when
// training begins; until then their lines are held back (the console gets
// them at once), so a run that fails at start-up creates no log and leaves
// an earlier run's log as it was.
class TrainingLog {
public:
    // Empty paths and a null console are skipped. `append` continues existing
    // logs (resume). Throws nmt::Error at once when a log could not be opened
    // (a directory, a missing directory, no permission).
    TrainingLog(const std::string& text_path, const std::string& jsonl_path, bool append, std::ostream* console);
    void line(const std::string& text);
    void record(const nlohmann::json& record);
    // Opens the files and writes what was held back; train() calls it just before the first step.
    void begin();
    bool begun() const { return begun_; }

private:
    std::string text_path_, jsonl_path_;
    bool append_;
    std::ostream* console_;
    bool begun_ = false;
    std::vector<std::string> held_lines_, held_records_;
    std::ofstream text_, jsonl_;
};

struct TrainingOutcome {
    int64_t steps = 0;
    int64_t epochs = 0;          // epochs completed
    std::string stop_reason;     // "max-steps", "max-time", "max-epochs", "early-stop", "interrupted"
    bool has_best = false;
    double best_score = 0;
    int64_t best_step = 0;
};

// The state of a run that has not started: step 0, the trainer's Random seeded from `seed`.
TrainingState initial_training_state(uint64_t seed);

// Trains `model` (fresh weights, or those of a checkpoint together with its
// `adam`, `average` and `state`) until a stop condition holds, writing the
// best model to options.output and the final state to
// options.checkpoint_path(). The model's provenance is kept and completed
// (data checksums, steps, scores). With options.exponential_smoothing the
// average starts from the current weights if `average` is empty; without
// it, `average` is cleared.
TrainingOutcome train(Model& model, Adam& adam, ParameterAverage& average, TrainingState& state,
                      const TrainerOptions& options, TrainingLog& log);

// On --resume, before training: once the checkpoint's run has saved its model
// at options.output, that model must load. When it does not (or is gone), it
// is saved again from the checkpoint if the checkpoint holds it: the best
// model when the checkpoint was written at the best validation's step, the
// latest weights when the run has no validation set. Returns a line saying so,
// empty when the model loads; throws nmt::Error saying what to do otherwise.
std::string restore_output_model(Checkpoint& checkpoint, const TrainerOptions& options);

// "1:02:03" for 3723 seconds; "0:00:07".
std::string format_duration(double seconds);
// "90" → 90, "90s" → 90, "30m" → 1800, "2h" → 7200, "1.5h" → 5400; throws nmt::Error otherwise.
double parse_duration(const std::string& text);

}  // namespace nmt
