#include "train/gradients.h"

namespace nmt {

Gradients zero_gradients(const Model& model) {
    Gradients g;
    for (const auto& [name, t] : model.parameters) g.emplace(name, Tensor(t.shape));
    return g;
}

void clear(Gradients& gradients) {
    for (auto& [name, t] : gradients) t.fill(0.0f);
}

}  // namespace nmt
