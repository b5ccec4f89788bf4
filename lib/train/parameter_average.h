// An exponential moving average of the parameters during training (Polyak
// averaging; Marian's --exponential-smoothing). Late in training Adam's
// steps make the weights wander around a minimum; their running average sits
// nearer its centre and translates better than any single snapshot. The
// trainer validates and saves the averaged weights; training itself goes on
// with the raw ones.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "model/model.h"
#include "core/tensor.h"

namespace nmt {

class ParameterAverage {
public:
    ParameterAverage() = default;  // empty: averaging is off
    explicit ParameterAverage(const Model& model);  // starts at the model's current weights

    bool empty() const { return values.empty(); }

    // After update number `step` (1-based), with smoothing rate r:
    //   a ← a + β·(p − a),  β = max(r, 1 − (1 + step)/(10 + step))
    // The max (as in Marian and TensorFlow's ExponentialMovingAverage) lets
    // the average follow the weights closely while they still move fast, so
    // the random initialisation does not linger in it.
    void update(const Model& model, double rate, int64_t step);

    // Exchanges the model's weights with the averaged ones, value by value
    // (buffers stay where they are, so graphs holding references stay valid).
    // Calling it twice restores both.
    void swap_with(Model& model);

    std::map<std::string, Tensor> values;  // by parameter name; stored in checkpoints as "average.<name>"
};

// Swaps the average in for its lifetime: validation and saving the best model see the averaged weights.
class AveragedWeightsScope {
public:
    AveragedWeightsScope(ParameterAverage& average, Model& model);
    ~AveragedWeightsScope();
    AveragedWeightsScope(const AveragedWeightsScope&) = delete;
    AveragedWeightsScope& operator=(const AveragedWeightsScope&) = delete;

private:
    ParameterAverage& average_;
    Model& model_;
};

}  // namespace nmt
