// How sacreBLEU turns a line of text into what its metrics count: UTF-8 is
// decoded to code points (chrF counts characters, not bytes), and lowercasing,
// whitespace splitting and the BLEU tokenizers follow Python's str methods and
// sacreBLEU's regexes exactly, so that scores match sacreBLEU's to the digit.
#pragma once
#include <string>
#include <vector>

namespace nmt {

// The sacreBLEU release whose behaviour (and signature string) we reproduce.
inline constexpr const char* kSacrebleuVersion = "2.4.0";

// Throws nmt::Error naming `where` (e.g. "hyp.txt: line 3") on invalid UTF-8,
// as sacreBLEU refuses such input too.
std::u32string utf8_to_u32(const std::string& text, const std::string& where);
std::string u32_to_utf8(const std::u32string& text);

// Python's str.lower(), Final_Sigma rule included.
std::u32string python_lower(const std::u32string& text);
// Python's str.rstrip() and str.split() with no arguments.
std::u32string python_rstrip(const std::u32string& text);
std::vector<std::u32string> python_split(const std::u32string& text);

enum class BleuTokenizer { none, v13a, intl };

// Parses "none", "13a" or "intl"; throws nmt::Error naming the bad value.
BleuTokenizer parse_bleu_tokenizer(const std::string& name);
// The name sacreBLEU puts in the signature ("tok:13a").
std::string tokenizer_signature(BleuTokenizer tokenizer);

// mteval-v13a.pl: unescapes a few HTML entities, then splits off
// punctuation, keeping '.' and ',' inside numbers.
std::u32string tokenize_13a(const std::u32string& line);
// mteval-v14.pl international: splits off Unicode punctuation unless it sits
// between digits, and every Unicode symbol.
std::u32string tokenize_intl(const std::u32string& line);
std::u32string tokenize(BleuTokenizer tokenizer, const std::u32string& line);

// references[k] is the k-th reference stream. sacreBLEU drops empty
// references per segment (so segments may have fewer); where all are empty
// it aborts, while we keep one empty reference so that a blank line scores
// against nothing rather than ending the run.
std::vector<std::string> segment_references(const std::vector<std::vector<std::string>>& references,
                                            size_t segment);
// The signature's nrefs: the references per segment, or "var" if it varies.
std::string nrefs_signature(const std::vector<std::vector<std::string>>& references);

}  // namespace nmt
