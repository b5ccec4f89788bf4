// The report of `nmt score`: corpus (or per-sentence) BLEU and chrF written
// the way sacreBLEU writes them, so that numbers and signatures can be
// compared with published ones; or the alignment error rate of word
// alignments against a gold standard.
#include "eval/score_report.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "align/word_alignment.h"
#include "core/error.h"
#include "core/number_text.h"
#include "eval/bleu.h"
#include "eval/chrf.h"
#include "eval/score_tokenizers.h"
#include "io/input_file.h"

namespace nmt {

namespace {


// One metric's result, in the pieces sacreBLEU's Score.format() assembles.
struct ScoreLine {
    std::string name;  // "BLEU", "chrF2"
    double score = 0;
    std::string signature;
    std::string verbose;  // BLEU only
};

std::string display_name(const std::string& path) { return path == "-" ? "stdin" : path; }

// Lines as sacreBLEU reads them: split on '\n' only, trailing whitespace
// (so a CRLF's '\r' too) stripped with Python's rstrip(), UTF-8 checked
// here so that an error can name the file and line.
std::vector<std::string> read_lines(const std::string& path) {
    std::vector<std::string> lines = read_text_lines(path);
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string where = display_name(path) + ": line " + std::to_string(i + 1);
        lines[i] = u32_to_utf8(python_rstrip(utf8_to_u32(lines[i], where)));
    }
    return lines;
}

// "BLEU|nrefs:1|...|version:2.4.0 = 20.8 54.4/26.6/14.9/8.7 (BP = ...)"
std::string format_text(const ScoreLine& line, const ScoreSettings& options) {
    std::string score = fixed_decimals(line.score, options.width);
    if (options.score_only) return score;
    std::string text = line.name + "|" + line.signature + " = " + score;
    if (!line.verbose.empty()) text += " " + line.verbose;
    return text;
}

// sacreBLEU's JSON object: name, score (rounded to the printed width),
// signature, verbose_score when there is one, then each signature field.
nlohmann::ordered_json to_json(const ScoreLine& line, const ScoreSettings& options) {
    nlohmann::ordered_json out;
    out["name"] = line.name;
    out["score"] = std::stod(fixed_decimals(line.score, options.width));
    out["signature"] = line.signature;
    if (!line.verbose.empty()) out["verbose_score"] = line.verbose;
    std::istringstream fields(line.signature);
    for (std::string field; std::getline(fields, field, '|');) {
        size_t colon = field.find(':');
        out[field.substr(0, colon)] = field.substr(colon + 1);
    }
    return out;
}

// Several text results are right-aligned on their " = ", as sacreBLEU does.
void print_aligned(const std::vector<std::string>& lines, std::ostream& out) {
    size_t width = 0;
    for (const auto& line : lines) {
        size_t eq = line.find('=');
        if (eq != std::string::npos) width = std::max(width, eq - 1);
    }
    for (const auto& line : lines) {
        size_t eq = line.find('=');
        if (eq == std::string::npos || lines.size() == 1) {
            out << line << "\n";
            continue;
        }
        out << std::string(width - (eq - 1), ' ') << line << "\n";
    }
}

void print_corpus(const std::vector<ScoreLine>& results, const ScoreSettings& options, std::ostream& out) {
    if (!options.json) {
        std::vector<std::string> lines;
        for (const auto& result : results) lines.push_back(format_text(result, options));
        print_aligned(lines, out);
        return;
    }
    // sacreBLEU: json.dumps(indent=1) per metric (with --score-only, just
    // the number), wrapped in a bare list when there are several.
    std::vector<std::string> objects;
    for (const auto& result : results)
        objects.push_back(options.score_only ? fixed_decimals(result.score, options.width) : to_json(result, options).dump(1));
    if (objects.size() == 1) {
        out << objects[0] << "\n";
        return;
    }
    out << "[\n";
    for (size_t i = 0; i < objects.size(); ++i) out << objects[i] << (i + 1 < objects.size() ? ",\n" : "\n");
    out << "]\n";
}

// One output line per input line: metrics separated by a tab, or with
// --json one compact object (an array when several metrics are asked for).
void print_sentence(const std::vector<ScoreLine>& results, const ScoreSettings& options, std::ostream& out) {
    if (options.json) {
        auto item = [&](const ScoreLine& result) {
            return options.score_only ? nlohmann::ordered_json(std::stod(fixed_decimals(result.score, options.width)))
                                      : to_json(result, options);
        };
        if (results.size() == 1) {
            out << item(results[0]).dump() << "\n";
            return;
        }
        auto array = nlohmann::ordered_json::array();
        for (const auto& result : results) array.push_back(item(result));
        out << array.dump() << "\n";
        return;
    }
    for (size_t i = 0; i < results.size(); ++i) out << (i ? "\t" : "") << format_text(results[i], options);
    out << "\n";
}

struct Metrics {
    bool bleu = false;
    bool chrf = false;
};

Metrics parse_metrics(const std::vector<std::string>& names) {
    Metrics metrics;
    for (const auto& name : names) {
        if (name == "bleu")
            metrics.bleu = true;
        else if (name == "chrf")
            metrics.chrf = true;
        else
            throw Error("metrics: unknown metric '" + name + "' (expected bleu, chrf or both)");
    }
    if (!metrics.bleu && !metrics.chrf) throw Error("metrics: name at least one of bleu, chrf");
    return metrics;
}

// Alignment error rate of Pharaoh alignments (-i) against a gold standard
// (-r: "i-j" sure, "i?j" or "i-j-P" possible), over the whole file.
void write_aer_report(const ScoreSettings& options, std::ostream& out) {
    if (options.references.size() != 1) throw Error("an alignment score takes one gold alignment file as its reference");
    const std::string& gold_path = options.references.front();
    const std::vector<std::string> hypotheses = read_text_lines(options.input);
    const std::vector<std::string> gold = read_text_lines(gold_path);
    if (hypotheses.size() != gold.size())
        throw Error(display_name(options.input) + " has " + std::to_string(hypotheses.size()) + " lines but " +
                    gold_path + " has " + std::to_string(gold.size()) + "; each alignment needs its gold line");
    AlignmentCounts counts;
    for (size_t i = 0; i < gold.size(); ++i) {
        Links sure, possible, links;
        try {
            parse_gold(gold[i], sure, possible);
        } catch (const Error& e) {
            throw Error(gold_path + ": line " + std::to_string(i + 1) + ": " + e.what());
        }
        try {
            links = parse_pharaoh(hypotheses[i]);
        } catch (const Error& e) {
            throw Error(display_name(options.input) + ": line " + std::to_string(i + 1) + ": " + e.what());
        }
        counts.add(links, sure, possible);
    }
    const int w = options.width;
    if (options.json) {
        nlohmann::json report = {{"name", "AER"}, {"score", 100 * counts.aer()}, {"precision", 100 * counts.precision()},
                                 {"recall", 100 * counts.recall()}, {"sentences", gold.size()}};
        out << report.dump(1) << "\n";
    } else if (options.score_only) {
        out << fixed_decimals(100 * counts.aer(), w) << "\n";
    } else {
        out << "AER = " << fixed_decimals(100 * counts.aer(), w) << " (precision " << fixed_decimals(100 * counts.precision(), w)
            << ", recall " << fixed_decimals(100 * counts.recall(), w) << "; " << gold.size() << " sentences)\n";
    }
}

}  // namespace

void write_score_report(const ScoreSettings& options, std::ostream& out) {
    if (options.aer) return write_aer_report(options, out);
    const Metrics metrics = parse_metrics(options.metrics);
    BleuOptions bleu;
    bleu.lowercase = options.lowercase;
    bleu.tokenizer = parse_bleu_tokenizer(options.tokenize);
    bleu.effective_order = options.sentence;  // as sacreBLEU's --sentence-level
    ChrfOptions chrf;
    chrf.lowercase = options.lowercase;

    const std::vector<std::string> hypotheses = read_lines(options.input);
    std::vector<std::vector<std::string>> references;
    for (const auto& path : options.references) {
        references.push_back(read_lines(path));
        if (references.back().size() != hypotheses.size())
            throw Error(display_name(options.input) + " has " + std::to_string(hypotheses.size()) +
                        " lines but " + path + " has " + std::to_string(references.back().size()) +
                        "; each hypothesis line needs exactly one reference line");
    }

    if (!options.sentence) {
        const std::string nrefs = nrefs_signature(references);
        std::vector<ScoreLine> results;
        if (metrics.bleu) {
            BleuScore score = corpus_bleu(hypotheses, references, bleu);
            results.push_back({"BLEU", score.score, bleu_signature(bleu, nrefs), bleu_verbose(score)});
        }
        if (metrics.chrf)
            results.push_back({chrf_name(chrf), corpus_chrf(hypotheses, references, chrf), chrf_signature(chrf, nrefs), ""});
        print_corpus(results, options, out);
        return;
    }

    for (size_t i = 0; i < hypotheses.size(); ++i) {
        const std::vector<std::string> refs = segment_references(references, i);
        const std::string nrefs = std::to_string(refs.size());
        std::vector<ScoreLine> results;
        if (metrics.bleu) {
            BleuScore score = sentence_bleu(hypotheses[i], refs, bleu);
            results.push_back({"BLEU", score.score, bleu_signature(bleu, nrefs), bleu_verbose(score)});
        }
        if (metrics.chrf)
            results.push_back({chrf_name(chrf), sentence_chrf(hypotheses[i], refs, chrf), chrf_signature(chrf, nrefs), ""});
        print_sentence(results, options, out);
    }
}

}  // namespace nmt
