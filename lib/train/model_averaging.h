// Checkpoint averaging (Junczys-Dowmunt et al., 2016; Vaswani et al., 2017;
// Marian's scripts/average.py, OpenNMT's average_models.py): the element-wise
// mean of the weights of several snapshots of one run. Snapshots late in a
// run sit around one minimum; their mean sits nearer its centre.
#pragma once
#include <string>
#include <vector>

#include "model/model.h"

namespace nmt {

// The weights a file contributes: a model file's own, or, for a training
// checkpoint, the run's parameter average when it kept one (the weights its
// validation scored), else its raw parameters; its provenance then says which
// ("checkpoint_weights") and from which update ("checkpoint_step"). Throws
// nmt::Error naming the file on anything that is neither.
Model load_weights_for_averaging(const std::string& path);

// The mean of the files' weights, each loaded in turn and summed in double.
// All must share one configuration and one pair of vocabularies, which the
// result takes. Its provenance lists the inputs under "averaged" (path,
// SHA-256, own provenance); it carries no tuned length penalty, which
// belonged to another model. Throws nmt::Error naming the file that does
// not fit.
Model average_model_files(const std::vector<std::string>& paths);

}  // namespace nmt
