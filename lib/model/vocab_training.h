// Training a SentencePiece vocabulary from plain text, with the settings the
// engine relies on fixed here rather than left to each user.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

// Piece ids every vocabulary trained here has. The engine reads the ids from
// the model (SentencePieceProcessor::unk_id() etc.); these are documented so
// that a user can check a vocabulary made elsewhere. There is no padding piece.
constexpr int kUnkId = 0;
constexpr int kBosId = 1;
constexpr int kEosId = 2;

struct VocabOptions {
    std::vector<std::string> inputs;  // plain-text files, one sentence per line
    std::string model_prefix;         // writes <prefix>.model and <prefix>.vocab
    int vocab_size = 8000;
    std::string model_type = "unigram";  // "unigram" or "bpe"
    // Share of characters that must be in the vocabulary. 1.0 keeps every
    // character of Latin-script data; 0.9995 is SentencePiece's advice for
    // CJK, where rare characters would otherwise crowd out useful pieces.
    double character_coverage = 1.0;
    // At most this many lines are sampled, uniformly, from all inputs; 0 uses
    // every line. Training time and memory grow with it. SentencePiece draws
    // the sample with a fixed seed of its own, so the same inputs always give
    // the same vocabulary (which is why there is no seed option).
    int64_t input_sentence_size = 2000000;
    int threads = 0;    // 0: as many as the machine has
    bool verbose = false;  // pass on SentencePiece's own progress log
};

struct VocabSummary {
    std::string model_path;  // <prefix>.model
    std::string vocab_path;  // <prefix>.vocab: one "piece<TAB>score" line per id
    int64_t sentences = 0;   // lines read (before sampling), empty lines not counted
    int vocab_size = 0;      // pieces in the trained model
};

// A vocabulary trained and waiting beside its outputs under a temporary
// prefix, so that several (a source and a target side) can all be trained
// before any file is replaced. install() puts PREFIX.model and PREFIX.vocab
// in place (lib/io/output_file.h); destroyed without it, nothing is left.
class TrainedVocab {
public:
    explicit TrainedVocab(std::string temporary_prefix);
    ~TrainedVocab();
    TrainedVocab(TrainedVocab&& other) noexcept;
    TrainedVocab(const TrainedVocab&) = delete;
    TrainedVocab& operator=(const TrainedVocab&) = delete;
    TrainedVocab& operator=(TrainedVocab&&) = delete;

    VocabSummary summary;
    void install() const;

private:
    std::string temporary_prefix_;  // empty once moved from
};

// Trains one model on all of options.inputs. Throws nmt::Error naming the
// file or option when an input cannot be read, has no text, the output
// directory is missing, or SentencePiece refuses (e.g. a --size larger than
// the text supports, with its message).
TrainedVocab train_vocab(const VocabOptions& options);

}  // namespace nmt
