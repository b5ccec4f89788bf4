// Builds a model's lexical shortlist (model/shortlist.h) from parallel text,
// as Marian's shortlists are built from fast_align's lexical table: both
// sides cut into the model's pieces, the statistical aligner (fast_align's
// model) trained source→target over pieces, then for each source piece its
// `per_source` most probable target pieces t(e | f), and the `frequent` most
// frequent target pieces of the text.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "align/statistical_aligner.h"
#include "model/shortlist.h"
#include "model/vocabulary.h"

namespace nmt {

struct ShortlistOptions {
    // Tatoeba, l10n and ddtp dev (en→fr): 50/200 lost up to 0.35 BLEU, 100/500 at most 0.24.
    int per_source = 100;
    int frequent = 500;
    StatisticalAlignerOptions aligner;
};

Shortlist build_shortlist(const std::vector<std::string>& sources, const std::vector<std::string>& targets,
                          const Vocabulary& source_vocab, const Vocabulary& target_vocab,
                          const ShortlistOptions& options, const AlignerProgressSink& progress = {});

}  // namespace nmt
