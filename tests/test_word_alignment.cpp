// Symmetrisation heuristics on worked examples, Pharaoh/gold parsing, and AER
// against values computed by hand.
#include <doctest/doctest.h>

#include <cmath>

#include "core/error.h"
#include "align/word_alignment.h"

using namespace nmt;

TEST_CASE("word alignment: intersect, union and grow-diag on a worked example") {
    // Source word 2 is aligned to target 1 by one direction, to target 2 by
    // the other. From the intersection {0-0, 1-1}, grow-diag adds 2-1 (a
    // straight neighbour of 1-1 whose source word is unaligned), then 2-2
    // (a diagonal neighbour whose target word is unaligned).
    const Links forward = {{0, 0}, {1, 1}, {2, 1}}, backward = {{2, 2}, {0, 0}, {1, 1}};
    CHECK(symmetrize(forward, backward, Symmetrization::Intersect) == Links{{0, 0}, {1, 1}});
    CHECK(symmetrize(forward, backward, Symmetrization::Union) == Links{{0, 0}, {1, 1}, {2, 1}, {2, 2}});
    CHECK(symmetrize(forward, backward, Symmetrization::GrowDiag) == Links{{0, 0}, {1, 1}, {2, 1}, {2, 2}});

    // A union link next to nothing in the intersection is not grown to, and
    // a neighbour whose two words are both aligned already is not added.
    const Links far_forward = {{0, 0}, {1, 1}, {4, 4}}, far_backward = {{0, 0}, {1, 1}, {0, 1}};
    CHECK(symmetrize(far_forward, far_backward, Symmetrization::GrowDiag) == Links{{0, 0}, {1, 1}});
}

TEST_CASE("word alignment: final adds links with one word unaligned, final-and only with both") {
    // Intersection {0-0}; 1-2 and 3-2 touch nothing of it. 1-2 has both words
    // free; after it, 3-2's target word is taken and only its source free.
    const Links forward = {{0, 0}, {1, 2}, {3, 2}}, backward = {{0, 0}};
    CHECK(symmetrize(forward, backward, Symmetrization::GrowDiag) == Links{{0, 0}});
    CHECK(symmetrize(forward, backward, Symmetrization::GrowDiagFinal) == Links{{0, 0}, {1, 2}, {3, 2}});
    CHECK(symmetrize(forward, backward, Symmetrization::GrowDiagFinalAnd) == Links{{0, 0}, {1, 2}});
    // The backward direction's links come after the forward's.
    CHECK(symmetrize({{0, 0}}, {{0, 0}, {2, 1}}, Symmetrization::GrowDiagFinalAnd) == Links{{0, 0}, {2, 1}});
    CHECK(parse_symmetrization("grow-diag-final-and") == Symmetrization::GrowDiagFinalAnd);
    CHECK_THROWS_AS(parse_symmetrization("grow"), Error);
}

TEST_CASE("word alignment: Pharaoh and gold lines parse, anything else is refused") {
    CHECK(parse_pharaoh("2-1 0-0  1-2\r") == Links{{0, 0}, {1, 2}, {2, 1}});
    CHECK(parse_pharaoh("").empty());
    Links sure, possible;
    parse_gold("0-0 1?2 3-4-P 5-5-S", sure, possible);
    CHECK(sure == Links{{0, 0}, {5, 5}});
    CHECK(possible == Links{{0, 0}, {1, 2}, {3, 4}, {5, 5}});
    for (const char* bad : {"0-", "a-1", "1-2-3", "-1-2", "0:1", "99999999999-1"})
        CHECK_THROWS_AS(parse_pharaoh(bad), Error);
    CHECK_THROWS_AS(parse_pharaoh("0?1"), Error);  // possible links belong in gold files
}

TEST_CASE("word alignment: AER, precision and recall match values computed by hand") {
    // A = {0-0, 1-1, 2-3}, S = {0-0, 1-1}, P = S + {2-2}:
    // |A∩S| = 2, |A∩P| = 2, AER = 1 - (2 + 2) / (3 + 2) = 0.2.
    AlignmentCounts counts;
    counts.add({{0, 0}, {1, 1}, {2, 3}}, {{0, 0}, {1, 1}}, {{2, 2}});
    CHECK(std::fabs(counts.aer() - 0.2) < 1e-12);
    CHECK(std::fabs(counts.precision() - 2.0 / 3.0) < 1e-12);
    CHECK(counts.recall() == 1.0);
    // A second sentence: A = {0-1}, S = {0-0}, P = S + {0-1}: one possible
    // hit. Corpus: |A∩S| = 2, |A∩P| = 3, |A| = 4, |S| = 3: 1 - 5/7.
    counts.add({{0, 1}}, {{0, 0}}, {{0, 1}, {0, 0}});
    CHECK(std::fabs(counts.aer() - (1.0 - 5.0 / 7.0)) < 1e-12);
    CHECK(AlignmentCounts{}.aer() == 0.0);
}
