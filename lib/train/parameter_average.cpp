#include "train/parameter_average.h"

#include <algorithm>

#include "core/error.h"

namespace nmt {

ParameterAverage::ParameterAverage(const Model& model) {
    for (const auto& [name, parameter] : model.parameters) values.emplace(name, parameter);
}

void ParameterAverage::update(const Model& model, double rate, int64_t step) {
    const double warming = 1.0 - (1.0 + static_cast<double>(step)) / (10.0 + static_cast<double>(step));
    const float beta = static_cast<float>(std::max(rate, warming));
    for (auto& [name, average] : values) {
        const Tensor& parameter = model.param(name);
        if (parameter.size() != average.size())
            throw Error("parameter average: " + name + " has shape " + shape_to_string(average.shape) +
                        ", the model's has " + shape_to_string(parameter.shape));
        float* a = average.data();
        const float* p = parameter.data();
        const int64_t n = average.size();
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t i = 0; i < n; ++i) a[i] += beta * (p[i] - a[i]);
    }
}

void ParameterAverage::swap_with(Model& model) {
    for (auto& [name, average] : values) {
        Tensor& parameter = model.param(name);
        if (parameter.size() != average.size())
            throw Error("parameter average: " + name + " does not match the model's shape");
        std::swap_ranges(average.values.begin(), average.values.end(), parameter.values.begin());
    }
}

AveragedWeightsScope::AveragedWeightsScope(ParameterAverage& average, Model& model)
    : average_(average), model_(model) {
    average_.swap_with(model_);
}

AveragedWeightsScope::~AveragedWeightsScope() { average_.swap_with(model_); }

}  // namespace nmt
