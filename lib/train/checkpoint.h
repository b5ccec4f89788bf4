// A training checkpoint: everything needed to continue a run exactly as if
// it had never stopped. One safetensors file (written atomically) holding
//  - the model's parameters (f32, bit-exact), vocabularies, config, provenance;
//  - the Adam moments as "adam.m.<name>" and "adam.v.<name>";
//  - the parameter average, when the run keeps one, as "average.<name>";
//  - "__metadata__" format = "nmt-checkpoint" (so load_model refuses it with
//    a clear message) and "training_state" = the TrainingState as JSON.
// Keep it apart from the model file a user translates with (OUT.checkpoint).
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "train/adam.h"
#include "train/batching.h"
#include "model/model.h"
#include "train/parameter_average.h"
#include "core/random.h"

namespace nmt {

struct TrainingState {
    int64_t step = 0;          // updates done
    BatchPosition position;    // where the data order continues
    uint64_t random_state[4] = {0, 0, 0, 0};  // the trainer's Random (dropout masks)
    double lr_scale = 1.0;     // plateau decay's accumulated factor
    bool has_best = false;
    double best_score = 0;     // in the validation metric's own units
    double best_ce = 0;        // cross-entropy of the best model: breaks ties in BLEU (all 0 early on)
    int64_t best_step = 0;
    int64_t stalled_validations = 0;  // validations since the last improvement
    double elapsed_seconds = 0;       // training time over all runs, for --max-time
    int64_t skipped_updates = 0;      // updates dropped for non-finite gradients
    // Sums of the display window under way, so a resumed run prints the same numbers.
    double window_loss = 0, window_nll = 0, window_grad_norm = 0;
    int64_t window_tokens = 0, window_correct = 0, window_steps = 0;
    double window_seconds = 0;  // training time the window has run (optional on load: older checkpoints lack it)
    // Minimum risk training's window: Σ of the candidates' expected cost and
    // the sentences it is over (optional on load, like window_seconds).
    double window_risk = 0;
    int64_t window_risk_sentences = 0;
    int64_t tokens_seen = 0;  // target tokens trained on so far
    nlohmann::json history = nlohmann::json::array();  // every validation record: the learning curve
    nlohmann::json run = nlohmann::json::object();     // options and data checksums of the run, to check a resume

    nlohmann::json to_json() const;
    static TrainingState from_json(const nlohmann::json& json);  // throws nmt::Error on a missing field
};

struct Checkpoint {
    Model model;
    Adam adam;
    ParameterAverage average;  // empty when the run did not average
    TrainingState state;
};

void save_checkpoint(const std::string& path, const Model& model, const Adam& adam, const ParameterAverage& average,
                     const TrainingState& state);
// Throws nmt::Error naming the file when it is not a checkpoint or does not fit together.
Checkpoint load_checkpoint(const std::string& path);
// Whether the file's header says it is a checkpoint (reads the header only;
// throws nmt::Error naming the file when it is not a safetensors file at all).
bool is_checkpoint_file(const std::string& path);

}  // namespace nmt
