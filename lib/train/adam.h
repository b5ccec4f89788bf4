// The optimiser: Adam (Kingma & Ba, 2015) with bias correction, the learning
// rate schedules NMT toolkits use, and global-norm gradient clipping.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "model/model.h"
#include "train/gradients.h"

namespace nmt {

struct AdamOptions {
    double beta1 = 0.9;
    double beta2 = 0.98;  // Transformer/Marian's choice: adapts faster than 0.999 to changing gradient scales
    double epsilon = 1e-9;
};

// Per-parameter first and second moments. One update with learning rate lr at
// step t (1-based, counted here):
//   m ← β1·m + (1−β1)·g,  v ← β2·v + (1−β2)·g²
//   p ← p − lr · (m / (1−β1^t)) / (√(v / (1−β2^t)) + ε)
class Adam {
public:
    Adam() = default;
    Adam(const Model& model, const AdamOptions& options);

    // Parameters without a gradient entry are left alone.
    void update(Model& model, const Gradients& gradients, double lr);

    int64_t steps() const { return steps_; }
    const AdamOptions& options() const { return options_; }

    // Exposed for checkpoints, which store and restore them exactly.
    std::map<std::string, Tensor> first_moments, second_moments;
    void set_steps(int64_t steps) { steps_ = steps; }
    void set_options(const AdamOptions& options) { options_ = options; }

private:
    AdamOptions options_;
    int64_t steps_ = 0;
};

// InverseSqrtPlateau is both at once, as Marian's --lr-decay-inv-sqrt with
// --lr-decay-strategy stalled: the classic RNN halving on a stall, on top of
// the decay that carries a run until its first stall. Linear falls to 0 at the
// run's last update (a cool-down: a stage from trained weights with a fixed
// number of updates ends at the rate's floor instead of wherever it was).
enum class LrDecay { InverseSqrt, Plateau, InverseSqrtPlateau, Linear };
LrDecay parse_lr_decay(const std::string& name);  // "invsqrt", "plateau", "invsqrt+plateau" or "linear"; throws nmt::Error
std::string to_string(LrDecay decay);
bool cuts_on_plateau(LrDecay decay);  // whether validations without improvement scale the rate

struct LrSchedule {
    double base = 1e-3;
    int64_t warmup = 0;  // steps of linear warm-up from 0 to base
    LrDecay decay = LrDecay::InverseSqrt;

    // The rate for update number `step` (1-based). Warm-up: base·step/warmup.
    // After it, invsqrt: base·√(warmup/step) (constant base when warmup is 0);
    // plateau: base·plateau_scale, the scale being cut by the trainer each time
    // validation does not improve; invsqrt+plateau: base·√(warmup/step)·plateau_scale;
    // linear: base·(last_step − step)/(last_step − warmup), 0 from last_step on
    // (last_step is the run's max_steps, which linear requires to exceed warmup).
    double rate(int64_t step, double plateau_scale = 1.0, int64_t last_step = 0) const;
    // Throws nmt::Error when the schedule cannot run to last_step (linear without max_steps above warmup).
    void check(int64_t last_step) const;
};

// Multiplies every gradient by `scale` (1/target tokens: the graph sums the
// loss over tokens), then, if their global L2 norm exceeds clip_norm > 0,
// rescales them to that norm. Returns the norm after scaling, before
// clipping (NaN or infinity when the gradients are not finite).
double scale_and_clip(Gradients& gradients, double scale, double clip_norm);

}  // namespace nmt
