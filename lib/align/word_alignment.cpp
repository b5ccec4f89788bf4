#include "align/word_alignment.h"

#include <algorithm>
#include <set>

#include "core/error.h"

namespace nmt {

namespace {

Links sorted_unique(Links links) {
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    return links;
}

// The words a set of links covers, on each side.
struct Coverage {
    std::set<int> source, target;
    void add(const std::pair<int, int>& link) {
        source.insert(link.first);
        target.insert(link.second);
    }
};

void grow_diag(std::set<std::pair<int, int>>& alignment, const std::set<std::pair<int, int>>& joined,
               Coverage& covered) {
    static const int kNeighbours[8][2] = {{-1, 0}, {0, -1}, {1, 0}, {0, 1}, {-1, -1}, {-1, 1}, {1, -1}, {1, 1}};
    for (bool added = true; added;) {
        added = false;
        // Links are visited in order, and a link added now is grown from in
        // the same pass, as in Moses' loop over the alignment matrix.
        for (auto it = alignment.begin(); it != alignment.end(); ++it)
            for (const auto& d : kNeighbours) {
                const std::pair<int, int> next{it->first + d[0], it->second + d[1]};
                if (!joined.count(next) || alignment.count(next)) continue;
                if (covered.source.count(next.first) && covered.target.count(next.second)) continue;
                alignment.insert(next);
                covered.add(next);
                added = true;
            }
    }
}

void final_links(std::set<std::pair<int, int>>& alignment, const Links& direction, bool both_unaligned,
                 Coverage& covered) {
    for (const auto& link : direction) {
        const bool source_free = !covered.source.count(link.first), target_free = !covered.target.count(link.second);
        if (both_unaligned ? source_free && target_free : source_free || target_free) {
            alignment.insert(link);
            covered.add(link);
        }
    }
}

std::pair<int, int> parse_link(const std::string& token, size_t separator) {
    auto number = [&](const std::string& text) {
        if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
            throw Error("'" + token + "' is not an alignment link i-j");
        return std::stoi(text);
    };
    return {number(token.substr(0, separator)), number(token.substr(separator + 1))};
}

}  // namespace

Symmetrization parse_symmetrization(const std::string& name) {
    if (name == "intersect") return Symmetrization::Intersect;
    if (name == "union") return Symmetrization::Union;
    if (name == "grow-diag") return Symmetrization::GrowDiag;
    if (name == "grow-diag-final") return Symmetrization::GrowDiagFinal;
    if (name == "grow-diag-final-and") return Symmetrization::GrowDiagFinalAnd;
    throw Error("no symmetrization '" + name +
                "' (intersect, union, grow-diag, grow-diag-final or grow-diag-final-and)");
}

Links symmetrize(const Links& forward_links, const Links& backward_links, Symmetrization method) {
    const Links forward = sorted_unique(forward_links), backward = sorted_unique(backward_links);
    Links both, either;
    std::set_intersection(forward.begin(), forward.end(), backward.begin(), backward.end(), std::back_inserter(both));
    std::set_union(forward.begin(), forward.end(), backward.begin(), backward.end(), std::back_inserter(either));
    if (method == Symmetrization::Intersect) return both;
    if (method == Symmetrization::Union) return either;
    std::set<std::pair<int, int>> alignment(both.begin(), both.end());
    const std::set<std::pair<int, int>> joined(either.begin(), either.end());
    Coverage covered;
    for (const auto& link : both) covered.add(link);
    grow_diag(alignment, joined, covered);
    if (method != Symmetrization::GrowDiag) {
        const bool both_unaligned = method == Symmetrization::GrowDiagFinalAnd;
        final_links(alignment, forward, both_unaligned, covered);
        final_links(alignment, backward, both_unaligned, covered);
    }
    return Links(alignment.begin(), alignment.end());
}

void parse_gold(const std::string& line, Links& sure, Links& possible) {
    sure.clear();
    possible.clear();
    size_t begin = 0;
    while ((begin = line.find_first_not_of(" \t\r", begin)) != std::string::npos) {
        size_t end = line.find_first_of(" \t\r", begin);
        if (end == std::string::npos) end = line.size();
        std::string token = line.substr(begin, end - begin);
        begin = end;
        bool is_sure = true;
        if (token.size() > 2 && (token.compare(token.size() - 2, 2, "-P") == 0 ||
                                 token.compare(token.size() - 2, 2, "-S") == 0)) {
            is_sure = token.back() == 'S';
            token.resize(token.size() - 2);
        }
        const size_t question = token.find('?');
        if (question != std::string::npos) is_sure = false;
        const size_t separator = question != std::string::npos ? question : token.find('-');
        if (separator == std::string::npos) throw Error("'" + token + "' is not an alignment link i-j");
        const auto link = parse_link(token, separator);
        possible.push_back(link);
        if (is_sure) sure.push_back(link);
    }
    sure = sorted_unique(std::move(sure));
    possible = sorted_unique(std::move(possible));
}

Links parse_pharaoh(const std::string& line) {
    Links sure, possible;
    parse_gold(line, sure, possible);
    if (sure.size() != possible.size()) throw Error("possible links ('?', '-P') are for gold alignments only");
    return sure;
}

void AlignmentCounts::add(const Links& alignment, const Links& sure_links, const Links& possible_links) {
    const Links a = sorted_unique(alignment), s = sorted_unique(sure_links);
    Links p = sorted_unique(possible_links);
    p.insert(p.end(), s.begin(), s.end());  // every sure link is possible
    p = sorted_unique(std::move(p));
    Links common;
    std::set_intersection(a.begin(), a.end(), s.begin(), s.end(), std::back_inserter(common));
    hit_sure += static_cast<long long>(common.size());
    common.clear();
    std::set_intersection(a.begin(), a.end(), p.begin(), p.end(), std::back_inserter(common));
    hit_possible += static_cast<long long>(common.size());
    links += static_cast<long long>(a.size());
    sure += static_cast<long long>(s.size());
}

double AlignmentCounts::aer() const {
    if (links + sure == 0) return 0.0;
    return 1.0 - static_cast<double>(hit_sure + hit_possible) / static_cast<double>(links + sure);
}

double AlignmentCounts::precision() const { return links ? static_cast<double>(hit_possible) / links : 0.0; }

double AlignmentCounts::recall() const { return sure ? static_cast<double>(hit_sure) / sure : 0.0; }

}  // namespace nmt
