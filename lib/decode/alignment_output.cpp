#include "decode/alignment_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace nmt {

namespace {

const std::string kWordStart = "\xE2\x96\x81";  // '▁' U+2581, SentencePiece's word-start marker

bool starts_with(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

// JSON numbers are rounded to 4 decimals: attention matrices are read by
// people and plotted, and full float precision makes files several times
// larger without changing any picture or alignment.
double round4(float x) { return std::round(static_cast<double>(x) * 1e4) / 1e4; }

std::string fixed4(float x) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.4f", static_cast<double>(x));
    return buffer;
}

nlohmann::json rounded(const std::vector<std::vector<float>>& matrix) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : matrix) {
        nlohmann::json values = nlohmann::json::array();
        for (float w : row) values.push_back(round4(w));
        rows.push_back(std::move(values));
    }
    return rows;
}

void check_shape(const std::vector<std::string>& source_pieces, const std::vector<std::string>& target_pieces,
                 const std::vector<std::vector<float>>& attention) {
    bool ok = attention.size() == target_pieces.size();
    for (const auto& row : attention) ok = ok && row.size() == source_pieces.size();
    if (!ok) {
        throw std::invalid_argument("attention matrix has " + std::to_string(attention.size()) + " rows of " +
                                    std::to_string(attention.empty() ? 0 : attention[0].size()) +
                                    ", expected " + std::to_string(target_pieces.size()) +
                                    " target pieces by " + std::to_string(source_pieces.size()) +
                                    " source pieces");
    }
}

}  // namespace

std::vector<WordSpan> group_words(const std::vector<std::string>& pieces) {
    std::vector<WordSpan> words;
    for (int i = 0; i < static_cast<int>(pieces.size()); ++i) {
        const std::string& piece = pieces[i];
        if (piece == kEndToken) {
            words.push_back({piece, i, 1, true});
            continue;
        }
        const bool starts = starts_with(piece, kWordStart);
        if (starts || words.empty() || words.back().end) {
            words.push_back({piece.substr(starts ? kWordStart.size() : 0), i, 1, false});
        } else {
            words.back().text += piece;
            words.back().count += 1;
        }
    }
    // A lone '▁' piece (a space the model chose to emit) would otherwise be an
    // empty label.
    for (auto& word : words) {
        if (word.text.empty()) word.text = kWordStart;
    }
    return words;
}

std::vector<std::string> word_texts(const std::vector<WordSpan>& words) {
    std::vector<std::string> texts;
    texts.reserve(words.size());
    for (const auto& word : words) texts.push_back(word.text);
    return texts;
}

WordAttention word_attention(const std::vector<std::string>& source_pieces,
                             const std::vector<std::string>& target_pieces,
                             const std::vector<std::vector<float>>& attention) {
    if (!attention.empty()) check_shape(source_pieces, target_pieces, attention);
    return merge_attention(group_words(source_pieces), group_words(target_pieces), attention);
}

WordAttention merge_attention(std::vector<WordSpan> source, std::vector<WordSpan> target,
                              const std::vector<std::vector<float>>& attention) {
    WordAttention out;
    out.source = std::move(source);
    out.target = std::move(target);
    if (attention.empty()) return out;
    out.weights.assign(out.target.size(), std::vector<float>(out.source.size(), 0.0f));
    for (size_t tw = 0; tw < out.target.size(); ++tw) {
        const WordSpan& t = out.target[tw];
        if (t.count == 0) continue;
        for (size_t sw = 0; sw < out.source.size(); ++sw) {
            const WordSpan& s = out.source[sw];
            double sum = 0.0;
            for (int ti = t.first; ti < t.first + t.count; ++ti) {
                for (int si = s.first; si < s.first + s.count; ++si) sum += attention[ti][si];
            }
            out.weights[tw][sw] = static_cast<float>(sum / t.count);
        }
    }
    return out;
}

std::vector<WordSpan> token_words(const std::vector<std::string>& tokens, const std::vector<int>& pieces_per_token,
                                  int pieces) {
    if (tokens.size() != pieces_per_token.size())
        throw std::invalid_argument("token_words: one piece count per token is needed");
    std::vector<WordSpan> words;
    int first = 0;
    for (size_t k = 0; k < tokens.size(); ++k) {
        if (pieces_per_token[k] < 0 || first + pieces_per_token[k] > pieces)
            throw std::invalid_argument("token_words: the tokens' pieces exceed the " + std::to_string(pieces) +
                                        " pieces aligned");
        words.push_back({tokens[k], first, pieces_per_token[k], false});
        first += pieces_per_token[k];
    }
    words.push_back({kEndToken, pieces, 1, true});
    return words;
}

std::vector<std::pair<int, int>> hard_alignment(const WordAttention& words) {
    std::vector<std::pair<int, int>> links;
    for (size_t t = 0; t < words.weights.size(); ++t) {
        if (words.target[t].end || words.target[t].count == 0) continue;  // a word of no pieces was never produced
        int best = -1;
        for (size_t s = 0; s < words.source.size(); ++s) {
            if (words.source[s].end || words.source[s].count == 0) continue;
            if (best < 0 || words.weights[t][s] > words.weights[t][best]) best = static_cast<int>(s);
        }
        if (best >= 0) links.emplace_back(best, static_cast<int>(t));
    }
    std::sort(links.begin(), links.end());
    return links;
}

std::string pharaoh(const std::vector<std::pair<int, int>>& links) {
    std::string out;
    for (const auto& [s, t] : links) {
        if (!out.empty()) out += ' ';
        out += std::to_string(s) + '-' + std::to_string(t);
    }
    return out;
}

std::string soft_alignment(const std::vector<std::vector<float>>& attention) {
    std::string out;
    for (size_t t = 0; t < attention.size(); ++t) {
        if (t > 0) out += ' ';
        for (size_t s = 0; s < attention[t].size(); ++s) {
            if (s > 0) out += ',';
            out += fixed4(attention[t][s]);
        }
    }
    return out;
}

nlohmann::json alignment_json(int64_t line_index, const TranslationResult& result, const std::string& source_text) {
    using nlohmann::json;
    static const Hypothesis kNone;  // an empty line may come with no hypothesis at all
    const Hypothesis& best = result.hypotheses.empty() ? kNone : result.hypotheses.front();
    const WordAttention words = word_attention(result.source_pieces, best.target_pieces, best.attention);

    json out;
    out["id"] = line_index;
    out["source"] = source_text;
    out["source_pieces"] = result.source_pieces;
    out["target_pieces"] = best.target_pieces;
    out["translation"] = best.translation;
    out["score"] = round4(best.score);
    out["normalized_score"] = round4(best.normalized_score);
    out["attention"] = rounded(best.attention);
    set_word_fields(out, words);

    if (result.hypotheses.size() > 1) {
        json n_best = json::array();
        for (const Hypothesis& h : result.hypotheses) {
            const WordAttention w = word_attention(result.source_pieces, h.target_pieces, h.attention);
            n_best.push_back({{"translation", h.translation},
                              {"target_pieces", h.target_pieces},
                              {"score", round4(h.score)},
                              {"normalized_score", round4(h.normalized_score)},
                              {"alignment", pharaoh(hard_alignment(w))}});
        }
        out["n_best"] = std::move(n_best);
    }
    return out;
}

void set_word_fields(nlohmann::json& object, const WordAttention& words) {
    object["source_words"] = word_texts(words.source);
    object["target_words"] = word_texts(words.target);
    object["word_attention"] = rounded(words.weights);
    object["alignment"] = pharaoh(hard_alignment(words));
}

std::string nbest_line(int64_t line_index, const Hypothesis& hypothesis, const std::optional<std::string>& alignment) {
    std::string out = std::to_string(line_index) + " ||| " + hypothesis.translation;
    if (alignment) out += " ||| " + *alignment;
    out += " ||| F0= " + fixed4(hypothesis.score) + " ||| " + fixed4(hypothesis.normalized_score);
    return out;
}

}  // namespace nmt
