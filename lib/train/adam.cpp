#include "train/adam.h"

#include <cmath>

#include "core/error.h"

namespace nmt {

Adam::Adam(const Model& model, const AdamOptions& options) : options_(options) {
    for (const auto& [name, parameter] : model.parameters) {
        first_moments.emplace(name, Tensor(parameter.shape));
        second_moments.emplace(name, Tensor(parameter.shape));
    }
}

void Adam::update(Model& model, const Gradients& gradients, double lr) {
    ++steps_;
    const double b1 = options_.beta1, b2 = options_.beta2;
    const double correction1 = 1.0 - std::pow(b1, static_cast<double>(steps_));
    const double correction2 = 1.0 - std::pow(b2, static_cast<double>(steps_));
    const float step_size = static_cast<float>(lr / correction1);
    const float inverse_sqrt_correction2 = static_cast<float>(1.0 / std::sqrt(correction2));
    const float eps = static_cast<float>(options_.epsilon);
    const float fb1 = static_cast<float>(b1), fb2 = static_cast<float>(b2);
    for (auto& [name, parameter] : model.parameters) {
        auto g_it = gradients.find(name);
        if (g_it == gradients.end()) continue;
        const Tensor& g = g_it->second;
        Tensor& m = first_moments.at(name);
        Tensor& v = second_moments.at(name);
        if (g.size() != parameter.size() || m.size() != parameter.size())
            throw Error("optimiser: gradient of " + name + " has shape " + shape_to_string(g.shape) +
                        ", the parameter has " + shape_to_string(parameter.shape));
        float* p = parameter.data();
        float* mp = m.data();
        float* vp = v.data();
        const float* gp = g.data();
        const int64_t n = parameter.size();
        // Element-wise: the same numbers whatever the thread count.
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t i = 0; i < n; ++i) {
            mp[i] = fb1 * mp[i] + (1.0f - fb1) * gp[i];
            vp[i] = fb2 * vp[i] + (1.0f - fb2) * gp[i] * gp[i];
            p[i] -= step_size * mp[i] / (std::sqrt(vp[i]) * inverse_sqrt_correction2 + eps);
        }
    }
}

LrDecay parse_lr_decay(const std::string& name) {
    if (name == "invsqrt") return LrDecay::InverseSqrt;
    if (name == "plateau") return LrDecay::Plateau;
    if (name == "invsqrt+plateau") return LrDecay::InverseSqrtPlateau;
    if (name == "linear") return LrDecay::Linear;
    throw Error("`lr_decay`: unknown schedule '" + name + "' (expected invsqrt, plateau, invsqrt+plateau or linear)");
}

std::string to_string(LrDecay decay) {
    switch (decay) {
        case LrDecay::InverseSqrt: return "invsqrt";
        case LrDecay::Plateau: return "plateau";
        case LrDecay::InverseSqrtPlateau: return "invsqrt+plateau";
        case LrDecay::Linear: return "linear";
    }
    return "?";
}

bool cuts_on_plateau(LrDecay decay) { return decay == LrDecay::Plateau || decay == LrDecay::InverseSqrtPlateau; }

void LrSchedule::check(int64_t last_step) const {
    if (decay == LrDecay::Linear && last_step <= warmup)
        throw Error("`lr_decay` linear falls to 0 at `max_steps`: give `max_steps` above `warmup`");
}

double LrSchedule::rate(int64_t step, double plateau_scale, int64_t last_step) const {
    step = std::max<int64_t>(step, 1);
    check(last_step);
    if (warmup > 0 && step <= warmup) return base * static_cast<double>(step) / static_cast<double>(warmup);
    if (decay == LrDecay::Linear) {
        return base * static_cast<double>(std::max<int64_t>(0, last_step - step)) /
               static_cast<double>(last_step - warmup);
    }
    const bool inverse_sqrt = decay != LrDecay::Plateau && warmup > 0;
    const double decayed = inverse_sqrt ? base * std::sqrt(static_cast<double>(warmup) / static_cast<double>(step)) : base;
    return cuts_on_plateau(decay) ? decayed * plateau_scale : decayed;
}

double scale_and_clip(Gradients& gradients, double scale, double clip_norm) {
    // The norm is summed in double, tensor by tensor in name order and
    // element by element, so it does not depend on the thread count.
    double squares = 0;
    const float fscale = static_cast<float>(scale);
    for (auto& [name, g] : gradients) {
        for (float& x : g.values) {
            x *= fscale;
            squares += static_cast<double>(x) * x;
        }
    }
    const double norm = std::sqrt(squares);
    if (clip_norm > 0 && std::isfinite(norm) && norm > clip_norm) {
        const float factor = static_cast<float>(clip_norm / norm);
        for (auto& [name, g] : gradients)
            for (float& x : g.values) x *= factor;
    }
    return norm;
}

}  // namespace nmt
