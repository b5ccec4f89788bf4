// Word alignments as sets of links: symmetrising the two directions'
// alignments with Koehn's heuristics (as Moses and fast_align's atools do),
// and scoring against a gold standard with the alignment error rate.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace nmt {

// (source word, target word), 0-based, sorted, no duplicates.
using Links = std::vector<std::pair<int, int>>;

enum class Symmetrization { Intersect, Union, GrowDiag, GrowDiagFinal, GrowDiagFinalAnd };

// "intersect", "union", "grow-diag", "grow-diag-final", "grow-diag-final-and";
// throws nmt::Error naming the bad value.
Symmetrization parse_symmetrization(const std::string& name);

// Both alignments are (source, target) links of one sentence pair: forward
// from the source→target model, backward from the target→source model with
// its links already turned round. Koehn, Och & Marcu (2003), as Moses'
// symmetrisation reads it:
//   grow-diag: from the intersection, repeatedly add a union link next to a
//     link already in (the 8 neighbours, diagonals included) that aligns a
//     source or a target word not yet aligned, until nothing changes;
//   final: then each forward link, then each backward link, whose source or
//     target word is still unaligned; final-and: only where both are.
Links symmetrize(const Links& forward, const Links& backward, Symmetrization method);

// Pharaoh text "0-0 1-2": parsed into sorted links; throws nmt::Error on
// anything else. Gold standards mark possible links "i?j" (or "i-j-P") and
// sure ones "i-j" (or "i-j-S"); `possible` receives both kinds (every sure
// link is possible, as AER's definition needs), `sure` the sure ones.
Links parse_pharaoh(const std::string& line);
void parse_gold(const std::string& line, Links& sure, Links& possible);

// Sums over sentences, from which AER, precision and recall follow (Och &
// Ney 2003): AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|).
struct AlignmentCounts {
    long long links = 0;         // |A|
    long long sure = 0;          // |S|
    long long hit_sure = 0;      // |A∩S|
    long long hit_possible = 0;  // |A∩P|
    void add(const Links& alignment, const Links& sure_links, const Links& possible_links);
    double aer() const;        // 0..1
    double precision() const;  // |A∩P| / |A|
    double recall() const;     // |A∩S| / |S|
};

}  // namespace nmt
