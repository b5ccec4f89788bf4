// One gradient tensor per parameter, by name: what the training graph
// writes and the optimiser reads. Its own header so that the optimiser and
// the data-parallel sum need this type and not the whole training graph.
#pragma once
#include <map>
#include <string>

#include "core/tensor.h"
#include "model/model.h"

namespace nmt {

using Gradients = std::map<std::string, Tensor>;

Gradients zero_gradients(const Model& model);  // zeros of every parameter's shape
void clear(Gradients& gradients);

}  // namespace nmt
