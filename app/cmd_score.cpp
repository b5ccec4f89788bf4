// nmt score: parses the options and writes the report (lib/eval/score_report).
#include <iostream>
#include <memory>

#include "commands.h"
#include "eval/score_report.h"
#include "eval/score_tokenizers.h"

namespace nmt::app {

void add_score_command(CLI::App& app) {
    auto options = std::make_shared<ScoreSettings>();
    auto* cmd = app.add_subcommand("score", "Score translations against references with BLEU and chrF, as sacreBLEU does");
    cmd->footer(std::string("Scores follow sacreBLEU 2.x conventions, matched against sacreBLEU ") + kSacrebleuVersion +
                ": BLEU is corpus BLEU over 1-4-grams with exp smoothing and the brevity penalty, on text "
                "tokenized like mteval-v13a (13a), mteval-v14 (intl) or not at all (none); chrF2 uses "
                "character 1-6-grams with whitespace removed, beta 2, and precision/recall averaged over "
                "the orders present. Each score carries sacreBLEU's signature (version:" +
                kSacrebleuVersion +
                ") so it can be compared with published numbers. --sentence scores each line on its own "
                "(BLEU then uses the effective order, eff:yes).\n");
    cmd->add_option("-r,--reference", options->references,
                    "Reference file, one segment per line (repeat for several references)")
        ->required();
    cmd->add_option("-i,--input", options->input, "Hypotheses, one per line ('-' = stdin)")->capture_default_str();
    cmd->add_flag("--lowercase", options->lowercase, "Case-insensitive scores (case:lc)");
    cmd->add_option("--tokenize", options->tokenize, "BLEU tokenizer: none, 13a or intl")
        ->capture_default_str()
        ->check(CLI::IsMember({"none", "13a", "intl"}));
    cmd->add_option("--metrics", options->metrics, "Comma-separated metrics: bleu, chrf")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_flag("--sentence", options->sentence, "One line of scores per input line instead of corpus scores");
    cmd->add_flag("--aer", options->aer,
                  "Score word alignments instead: the alignment error rate (Och & Ney) of Pharaoh links (-i) "
                  "against a gold standard (-r; 'i-j' sure, 'i?j' or 'i-j-P' possible), with precision and recall");
    cmd->add_flag("--json", options->json, "Print sacreBLEU's JSON form (name, score, signature, verbose_score)");
    cmd->add_flag("-b,--score-only", options->score_only, "Print only the numbers");
    cmd->add_option("-w,--width", options->width, "Decimals printed for each score")
        ->capture_default_str()
        ->check(CLI::Range(0, 16));
    cmd->callback([options] { write_score_report(*options, std::cout); });
}

}  // namespace nmt::app
