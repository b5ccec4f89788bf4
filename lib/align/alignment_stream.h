// nmt align's engine: sentence pairs in, one word alignment per pair out, in
// order, written and flushed a chunk at a time. The alignment is where the
// model looks when it is made to produce the given translation (forced
// decoding), each target word linked to the source word it attends to most;
// with a model of the other direction too, both alignments are symmetrised.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "io/text_input.h"
#include "decode/alignment_output.h"
#include "align/statistical_aligner.h"
#include "decode/translator.h"
#include "align/word_alignment.h"

namespace nmt {

// Sentence pairs, one per line: from two parallel inputs, or from one whose
// lines read "source ||| target" (fast_align's format).
class PairReader {
public:
    // targets null: split each line of sources at its first " ||| ".
    PairReader(LineReader& sources, LineReader* targets, std::string sources_name, std::string targets_name);

    // Cleaned (clean_line) source and target; false at the end. Throws
    // nmt::Error naming both inputs when one ends before the other. A line
    // without "|||" has an empty target (and gets an empty alignment).
    bool next(std::string& source, std::string& target, std::vector<std::string>* warnings);
    int64_t line_number() const { return line_number_; }
    bool more_available_without_blocking() {
        return sources_.more_available_without_blocking() && (!targets_ || targets_->more_available_without_blocking());
    }

private:
    LineReader& sources_;
    LineReader* targets_;
    std::string sources_name_, targets_name_;
    int64_t line_number_ = 0;
};

// Pairs that the statistical aligner reads once per pass, from seekable
// descriptors (seekable_input) rewound for each: as PairReader reads them
// (two files, or "source ||| target" lines when targets_fd is -1), its
// warnings given in the first pass only. The descriptors are not owned.
class FilePairPasses : public PairPasses {
public:
    FilePairPasses(int sources_fd, std::string sources_name, int targets_fd, std::string targets_name,
                   LineLimit limit, std::function<void(const std::string&)> warn);
    void rewind() override;
    bool next(std::string& source, std::string& target) override;

private:
    int sources_fd_, targets_fd_;
    std::string sources_name_, targets_name_;
    LineLimit limit_;
    std::function<void(const std::string&)> warn_;
    int passes_ = 0;
    std::unique_ptr<LineReader> sources_, targets_;
    std::unique_ptr<PairReader> pairs_;
};

// How attention becomes links.
struct LinkExtraction {
    // 0: each target word to the source word it attends to most (exactly one
    // link each). Above 0: every source word whose weight reaches it, so a
    // word may get several links or none.
    float threshold = 0;
    // Read each target piece's alignment from the step after it (the step
    // fed that piece, predicting the next), as Chen et al. (2020) found
    // attention to align better one step late.
    bool shifted = false;
};

enum class AlignFormat { Pharaoh, JsonLines };

// The words of one aligned pair, as spans of its pieces: SentencePiece's
// (group_words) or the user's own tokens (token_words).
struct PairWords {
    std::vector<WordSpan> source, target;
};

struct AlignStreamOptions {
    TranslateOptions translate;  // batch size, length penalty (for the JSON's normalized score)
    AlignFormat format = AlignFormat::Pharaoh;
    Symmetrization symmetrization = Symmetrization::GrowDiagFinalAnd;  // with a backward model
    LinkExtraction extraction;
    // Both sides are whitespace-separated tokens, each encoded on its own, and
    // links are over exactly those tokens (for gold files and other tools).
    bool tokenized = false;
    std::string svg_directory;  // one word-attention heatmap per pair, when set
    size_t chunk_pairs = 256;  // pairs read, aligned and written together
    // Repaired, cropped or unsegmentable lines, "line N: ...".
    std::function<void(const std::string&)> warn;
};

// Words linked by one model's attention: (source word, target word), "</s>"
// left out, over `words` when given, else over SentencePiece's words
// (whitespace-separated words of the text).
Links attention_links(const TranslationResult& aligned, const LinkExtraction& extraction = {},
                      const PairWords* words = nullptr);

// Writes one line per pair to `out`: Pharaoh links, or the JSON object of
// `nmt translate --format jsonl` for the given translation, whose
// "alignment" is the symmetrised one when `backward` (a target→source model)
// is given. Returns the number of pairs.
int64_t align_stream(Translator& forward, Translator* backward, PairReader& pairs, std::FILE* out,
                     const AlignStreamOptions& options);

}  // namespace nmt
