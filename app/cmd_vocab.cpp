// nmt vocab: train the SentencePiece vocabulary (or the pair of them) that a
// model is then built on.
#include <iostream>
#include <utility>

#include "commands.h"
#include "io/output_file.h"
#include "model/vocab_training.h"

namespace nmt::app {

namespace {

struct VocabCommand {
    VocabOptions vocab;
    bool joint = false, overwrite = false;
};

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
    return out;
}

void report(const VocabOptions& options, const VocabSummary& s) {
    std::cerr << "nmt vocab: wrote " << s.model_path << " and " << s.vocab_path << ": " << s.vocab_size << " "
              << options.model_type << " pieces from " << s.sentences << " lines of " << joined(options.inputs)
              << "\n";
}

// Exactly two files without --joint are read as a source and a target side
// and get a vocabulary each; anything else makes one shared model.
bool per_side(const VocabCommand& c) { return c.vocab.inputs.size() == 2 && !c.joint; }

// An input that is also an output would be read, then written over; an
// existing output is replaced only when asked.
void check_outputs(const VocabCommand& c) {
    std::vector<NamedFile> inputs, outputs;
    for (const std::string& input : c.vocab.inputs) inputs.push_back({"-i", input});
    std::vector<std::string> sides = {""};
    if (per_side(c)) sides = {".src", ".tgt"};
    for (const std::string& side : sides)
        for (const char* extension : {".model", ".vocab"})
            outputs.push_back({"-o", c.vocab.model_prefix + side + extension});
    refuse_shared_files(outputs, inputs);
    if (!c.overwrite) refuse_existing_outputs(outputs);
}

void run(const VocabCommand& c) {
    check_outputs(c);
    std::vector<VocabOptions> vocabularies = {c.vocab};
    if (per_side(c)) {
        vocabularies.clear();
        for (const auto& [input, suffix] : {std::pair{c.vocab.inputs[0], ".src"}, {c.vocab.inputs[1], ".tgt"}}) {
            VocabOptions side = c.vocab;
            side.inputs = {input};
            side.model_prefix += suffix;
            vocabularies.push_back(side);
        }
    }
    // Both sides trained before either is installed: a failure on the second
    // leaves the first side's old files as they were.
    std::vector<TrainedVocab> trained;
    for (const VocabOptions& options : vocabularies) trained.push_back(train_vocab(options));
    for (size_t i = 0; i < trained.size(); ++i) {
        trained[i].install();
        report(vocabularies[i], trained[i].summary);
    }
}

}  // namespace

void add_vocab_command(CLI::App& app) {
    auto c = std::make_shared<VocabCommand>();
    auto* cmd = app.add_subcommand("vocab", "Train a SentencePiece vocabulary from plain text (one sentence per line)");
    cmd->footer(
        "Outputs:\n"
        "  one input, or --joint:    PREFIX.model and PREFIX.vocab, trained on all inputs\n"
        "  two inputs, no --joint:   PREFIX.src.{model,vocab} from the first file (source side)\n"
        "                            and PREFIX.tgt.{model,vocab} from the second (target side)\n"
        "  .vocab lists one \"piece<TAB>score\" per id, for reading; the engine uses .model.\n"
        "Piece ids: <unk>=0, <s>=1, </s>=2, no padding piece. Normalization: nmt_nfkc.\n"
        "Unknown characters become <unk> (no byte fallback). Lines are cleaned as translation\n"
        "input is (CRLF, invalid UTF-8, control characters); blank lines are skipped.\n"
        "The sample drawn with --input-sentence-size is the same on every run.\n\n"
        "Example:\n"
        "  nmt vocab -i train.en train.fr --joint --size 8000 -o enfr");
    cmd->add_option("-i,--input", c->vocab.inputs, "Text files to learn from")
        ->required()
        ->expected(1, -1)
        ->type_name("FILE");
    cmd->add_option("-o,--output", c->vocab.model_prefix, "Output prefix: writes PREFIX.model and PREFIX.vocab")
        ->required()
        ->type_name("PREFIX");
    cmd->add_option("--size", c->vocab.vocab_size, "Vocabulary size in pieces, special pieces included")
        ->type_name("N")
        ->capture_default_str();
    cmd->add_option("--type", c->vocab.model_type, "SentencePiece model type")
        ->check(CLI::IsMember({"unigram", "bpe"}))
        ->capture_default_str();
    cmd->add_flag("--overwrite", c->overwrite, "Replace existing PREFIX.model and PREFIX.vocab files");
    cmd->add_flag("--joint", c->joint, "One vocabulary shared by both languages, even with two inputs");
    cmd->add_option("--character-coverage", c->vocab.character_coverage,
                    "Share of characters kept in the vocabulary; 1.0 suits alphabetic scripts, "
                    "0.9995 Chinese or Japanese")
        ->check(CLI::Range(0.98, 1.0))
        ->capture_default_str();
    cmd->add_option("--input-sentence-size", c->vocab.input_sentence_size,
                    "Lines sampled from all inputs to train on (0: all of them; else more than 100)")
        ->capture_default_str();
    cmd->add_option("--threads", c->vocab.threads, "Training threads (0: all cores)")
        ->capture_default_str();
    cmd->add_flag("--verbose", c->vocab.verbose, "Show SentencePiece's own training log");
    cmd->callback([c] { run(*c); });
}

}  // namespace nmt::app
