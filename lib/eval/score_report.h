// The report of `nmt score`: sacreBLEU-style BLEU and chrF of a file of
// translations against references, or the alignment error rate of word
// alignments against a gold standard.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace nmt {

struct ScoreSettings {
    std::vector<std::string> references;  // one file per reference (alignments: the gold file)
    std::string input = "-";  // translations (or alignments); "-": stdin
    bool lowercase = false;
    std::string tokenize = "13a";  // BLEU tokenizer: none, 13a or intl
    std::vector<std::string> metrics = {"bleu", "chrf"};  // either or both
    bool sentence = false;  // a line of scores per input line
    bool json = false;  // sacreBLEU's JSON form
    bool score_only = false;  // the numbers alone
    bool aer = false;  // score word alignments (Pharaoh links) instead
    int width = 1;  // decimals printed
};

// Reads the files the settings name and writes the report to OUT: one line
// per metric (sacreBLEU's text, or its JSON with `json`), or one line per
// input line with `sentence`. Throws nmt::Error naming the file and line of
// unreadable or mismatched input.
void write_score_report(const ScoreSettings& settings, std::ostream& out);

}  // namespace nmt
