#include "model/vocab_training.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>
#include <unordered_map>

#include "core/error.h"
#include "io/input_file.h"
#include "io/output_file.h"
#include "io/text_input.h"

namespace nmt {

namespace {

constexpr unsigned kTrainingSeed = 20240101;

// Feeds SentencePiece the lines of every input, cleaned exactly as the
// translator cleans its input (CRLF, invalid UTF-8, control characters), so
// the vocabulary is learnt from the same text it will later cut.
// Passing lines ourselves instead of an "--input=a,b" flag also keeps file
// names with commas or spaces working and lets errors name the file.
class CleanLineIterator : public sentencepiece::SentenceIterator {
public:
    explicit CleanLineIterator(const std::vector<std::string>& paths) : paths_(paths) { advance(); }
    ~CleanLineIterator() override { close_file(); }
    CleanLineIterator(const CleanLineIterator&) = delete;
    CleanLineIterator& operator=(const CleanLineIterator&) = delete;

    bool done() const override { return done_; }
    void Next() override { advance(); }
    const std::string& value() const override { return line_; }
    sentencepiece::util::Status status() const override { return status_; }

    int64_t lines() const { return lines_; }
    const std::string& error() const { return error_; }

private:
    void advance() {
        try {
            advance_or_throw();
        } catch (const std::exception& e) {
            // SentencePiece expects failures as a status, not as an exception
            // through its loader; the message is rethrown as an nmt::Error.
            error_ = e.what();
            status_ = sentencepiece::util::Status(sentencepiece::util::StatusCode::kDataLoss, error_);
            done_ = true;
        }
    }

    void advance_or_throw() {
        for (;;) {
            if (reader_) {
                std::string raw;
                if (reader_->next_line(raw)) {
                    line_ = clean_line(std::move(raw), reader_->line_number(), nullptr);
                    if (line_.find_first_not_of(" \t") == std::string::npos) continue;  // nothing to learn from
                    ++lines_;
                    return;
                }
                reader_.reset();
                close_file();
            }
            if (next_ == paths_.size()) {
                done_ = true;
                return;
            }
            const std::string& path = paths_[next_++];
            fd_ = open_input(path);
            reader_ = std::make_unique<LineReader>(fd_, path);
        }
    }

    void close_file() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

    const std::vector<std::string>& paths_;
    size_t next_ = 0;
    int fd_ = -1;
    std::unique_ptr<LineReader> reader_;
    std::string line_;
    bool done_ = false;
    int64_t lines_ = 0;
    std::string error_;
    sentencepiece::util::Status status_;
};

void check_options(const VocabOptions& o) {
    // Inputs are checked by open_input as they are reached (a directory, a
    // missing file), all before SentencePiece starts training; opening them
    // here too would consume a FIFO's one reading.
    if (o.inputs.empty()) throw Error("vocab: no input files");
    if (o.model_prefix.empty()) throw Error("vocab: the `output` prefix is empty");
    const auto dir = std::filesystem::path(o.model_prefix).parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir)) {
        throw Error(o.model_prefix + ": directory " + dir.string() + " does not exist");
    }
    if (o.model_type != "unigram" && o.model_type != "bpe") {
        throw Error("vocab: `type` must be unigram or bpe, not " + o.model_type);
    }
    // ids 0-2 are the special pieces, and SentencePiece needs a few more.
    if (o.vocab_size < 8) throw Error("vocab: `size` must be at least 8, not " + std::to_string(o.vocab_size));
    // The two ranges below are SentencePiece's own; checked here to name our option.
    if (!(o.character_coverage >= 0.98 && o.character_coverage <= 1.0)) {
        throw Error("vocab: `character_coverage` must be between 0.98 and 1.0");
    }
    if (o.input_sentence_size < 0 || (o.input_sentence_size > 0 && o.input_sentence_size <= 100)) {
        throw Error("vocab: `input_sentence_size` must be 0 (all lines) or more than 100");
    }
}

std::unordered_map<std::string, std::string> trainer_arguments(const VocabOptions& o) {
    const int threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
    return {
        {"model_prefix", o.model_prefix},
        {"vocab_size", std::to_string(o.vocab_size)},
        {"model_type", o.model_type},
        {"character_coverage", std::to_string(o.character_coverage)},
        // NFKC plus the NMT-specific cleanup (odd spaces, control characters):
        // the same rule is stored in the model and applied at translation time.
        {"normalization_rule_name", "nmt_nfkc"},
        {"unk_id", std::to_string(kUnkId)},
        {"bos_id", std::to_string(kBosId)},
        {"eos_id", std::to_string(kEosId)},
        {"pad_id", "-1"},  // batches are masked by length, not padded with a piece
        // Unknown characters become <unk> instead of byte pieces, so every
        // piece the model produces is readable text.
        {"byte_fallback", "false"},
        {"input_sentence_size", std::to_string(o.input_sentence_size)},
        {"shuffle_input_sentence", "true"},
        {"num_threads", std::to_string(std::min(threads, 128))},
        {"minloglevel", o.verbose ? "0" : "1"},
    };
}

// SentencePiece's messages start with where in its source the check failed
// ("./src/trainer_interface.cc(660) [a == b] Vocabulary size too high...");
// users need only the sentence after it, and to know which option to change.
std::string readable(const std::string& message) {
    std::string out = message;
    const size_t source = out.find(".cc(");
    const size_t bracket = source == std::string::npos ? source : out.find("] ", source);
    if (bracket != std::string::npos) out = out.substr(bracket + 2);
    // Two opposite problems share the words "Vocabulary size": more pieces
    // than the text holds, or fewer than it has distinct characters.
    if (out.find("smaller than required_chars") != std::string::npos)
        out += " Raise `size`, or lower `character_coverage`.";
    else if (out.find("Vocabulary size") != std::string::npos)
        out += " Lower `size`, or train on more text.";
    return out;
}

void install_file(const std::string& written, const std::string& target) {
    const std::string bytes = read_small_file(written, size_t(1) << 30, "a SentencePiece output");
    write_output_file(target, [&](std::FILE* out) { std::fwrite(bytes.data(), 1, bytes.size(), out); });
}

}  // namespace

// SentencePiece writes PREFIX.model and PREFIX.vocab itself, in place: a run
// killed halfway would leave half a model where the old one was, and a reader
// could see half a file. So it writes them under a temporary prefix beside
// the outputs, removed whatever happens, and they are put in place as every
// output is (lib/io/output_file.h: rename over a regular file, links followed,
// devices written in place).
TrainedVocab::TrainedVocab(std::string temporary_prefix) : temporary_prefix_(std::move(temporary_prefix)) {}

TrainedVocab::TrainedVocab(TrainedVocab&& other) noexcept
    : summary(std::move(other.summary)), temporary_prefix_(std::move(other.temporary_prefix_)) {
    other.temporary_prefix_.clear();
}

TrainedVocab::~TrainedVocab() {
    if (temporary_prefix_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove(temporary_prefix_ + ".model", ignored);
    std::filesystem::remove(temporary_prefix_ + ".vocab", ignored);
}

void TrainedVocab::install() const {
    install_file(temporary_prefix_ + ".model", summary.model_path);
    install_file(temporary_prefix_ + ".vocab", summary.vocab_path);
}

TrainedVocab train_vocab(const VocabOptions& options) {
    check_options(options);
    // SentencePiece samples input_sentence_size lines with a fixed seed of its
    // own; seeding its global generator too keeps any other random choice in
    // training (in this or a later library version) reproducible.
    sentencepiece::SetRandomGeneratorSeed(kTrainingSeed);

    const std::string temporary = options.model_prefix + ".tmp" + std::to_string(::getpid());
    TrainedVocab trained(temporary);  // removes whatever SentencePiece wrote there, should anything fail
    auto arguments = trainer_arguments(options);
    arguments["model_prefix"] = temporary;
    CleanLineIterator lines(options.inputs);
    const auto status = sentencepiece::SentencePieceTrainer::Train(arguments, &lines);
    if (!lines.error().empty()) throw Error(lines.error());
    if (lines.lines() == 0) {
        throw Error("vocab: no text to train on in " + options.inputs.front() +
                    (options.inputs.size() > 1 ? " and the other inputs" : ""));
    }
    if (!status.ok()) {
        throw Error(options.model_prefix + ".model: SentencePiece training failed: " +
                    readable(status.message()));
    }

    VocabSummary summary;
    summary.model_path = options.model_prefix + ".model";
    summary.vocab_path = options.model_prefix + ".vocab";
    summary.sentences = lines.lines();
    // Read the result back: proves the file loads and reports its real size.
    sentencepiece::SentencePieceProcessor processor;
    const auto loaded = processor.Load(temporary + ".model");
    if (!loaded.ok()) throw Error(summary.model_path + ": cannot load the trained model: " + loaded.message());
    summary.vocab_size = processor.GetPieceSize();
    trained.summary = summary;
    return trained;
}

}  // namespace nmt
