// Validation during training: cross-entropy of the reference translations
// (teacher forcing, no dropout) and BLEU of beam-search translations against
// the raw reference lines, scored as sacreBLEU scores them (13a, exp smoothing).
#pragma once
#include <cstdint>
#include <vector>

#include "eval/bleu.h"
#include "train/corpus.h"
#include "model/model.h"
#include "train/training_graph.h"

namespace nmt {

struct ValidationScores {
    double ce = 0;   // −log p(gold) per target token, EOS included
    double ppl = 0;  // exp(ce)
    bool has_bleu = false;
    BleuScore bleu;
    double seconds = 0;
};

class Validator {
public:
    // `corpus` must have been read with keep_text and must outlive the validator.
    // beam_size 0: cross-entropy only.
    Validator(const Corpus& corpus, int64_t batch_tokens, int beam_size);

    // `graph` is the training graph of `model` (its buffers are reused).
    ValidationScores score(const Model& model, TrainingGraph& graph) const;

private:
    const Corpus& corpus_;
    std::vector<std::vector<int64_t>> batches_;
    int beam_size_;
};

}  // namespace nmt
