// Attention as a picture: a self-contained SVG heatmap that opens in any
// browser, with the exact value of every cell on hover.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

// weights[t][s]: how much target word t attended to source word s (rows of
// WordAttention::weights, or of piece-level attention). Source words run
// along the top with slanted labels, target words down the left; each cell is
// shaded white (0) to dark blue (1), prints its value when above 0.3 (white
// on the dark cells, blue on the pale ones), and carries a <title> such as
// "cat → chat: 0.87" that browsers show on hover. Labels are XML-escaped and
// very long ones shortened (the hover text keeps them whole).
// Throws std::invalid_argument when weights is not target × source.
std::string alignment_svg(const std::vector<std::string>& source_words, const std::vector<std::string>& target_words,
                          const std::vector<std::vector<float>>& weights, const std::string& title);

// The heatmap of line `line_number` (1-based) written to DIR/000001.svg, ...;
// the directory is created when missing. Throws nmt::Error naming the path.
void write_alignment_svg_file(const std::string& directory, int64_t line_number,
                              const std::vector<std::string>& source_words, const std::vector<std::string>& target_words,
                              const std::vector<std::vector<float>>& weights, const std::string& title);

}  // namespace nmt
