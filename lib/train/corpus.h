// A parallel training (or validation) corpus: two aligned plain-text files,
// one sentence per line, encoded with the model's vocabularies.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/vocabulary.h"
#include "align/word_alignment.h"

namespace nmt {

struct SentencePair {
    std::vector<int> source;  // piece ids ending with EOS
    std::vector<int> target;  // piece ids ending with EOS (no BOS)
    int64_t line = 0;         // 1-based line number in the files
    // Given word alignment (guided alignment training): links between the
    // whitespace-separated words of the two lines; empty when none was given.
    Links alignment;
    bool operator==(const SentencePair& o) const {
        return source == o.source && target == o.target && line == o.line && alignment == o.alignment;
    }
};

// Other ways to cut one side of a pair into pieces, for subword sampling
// (subword_sampling.h): segmentation k is ids[ends[k-1], ends[k]) (from 0
// for k = 0), without EOS, with its log-probability under the unigram model.
struct SegmentationChoices {
    std::vector<int> ids;
    std::vector<int> ends;
    std::vector<float> log_probabilities;
    size_t size() const { return ends.size(); }
    std::vector<int> choice(size_t k) const {
        return {ids.begin() + (k == 0 ? 0 : ends[k - 1]), ids.begin() + ends[k]};
    }
};

struct CorpusOptions {
    int max_length = 100;    // pairs with more pieces (EOS not counted) on either side are skipped; 0: no limit
    bool keep_text = false;  // keep the cleaned lines of kept pairs (validation needs them for BLEU)
    // Above 1: also keep each side's this many best segmentations (those
    // longer than max_length left out) in Corpus::source_choices/target_choices.
    int segmentations = 0;
    // Pharaoh word alignments ("0-0 1-2"), one line per line pair (from
    // `nmt align --statistical`, for example); empty: none.
    std::string alignment_path;
};

struct Corpus {
    std::string source_path, target_path;
    std::string source_sha256, target_sha256;  // of the files' bytes, for provenance
    std::string alignment_path, alignment_sha256;  // when CorpusOptions::alignment_path was given
    std::vector<SentencePair> pairs;
    std::vector<std::string> source_text, target_text;  // parallel to pairs when keep_text
    std::vector<SegmentationChoices> source_choices, target_choices;  // parallel to pairs when segmentations > 1
    int64_t lines = 0;            // line pairs read
    int64_t skipped_empty = 0;    // either side empty (or only spaces)
    int64_t skipped_too_long = 0; // either side longer than max_length pieces
    int64_t repaired_lines = 0;   // lines whose invalid UTF-8 or control characters were replaced
    std::string first_repair;     // the first such repair, e.g. "train.de line 7: invalid UTF-8 replaced by U+FFFD"

    int64_t source_tokens() const;  // EOS included
    int64_t target_tokens() const;
    std::string summary() const;  // "29000 pairs from a.en / a.de (12 skipped: 2 empty, 10 longer than 100 pieces)"
};

// Reads both files completely. Throws nmt::Error naming the file when it
// cannot be read, and naming both files and their line counts when the
// counts differ (the sides would be misaligned from some line on); with an
// alignment file, also when its line count differs, or a line is not Pharaoh
// text or links a word past the end of its sentence (naming file and line).
Corpus read_corpus(const std::string& source_path, const std::string& target_path, const Vocabulary& source_vocab,
                   const Vocabulary& target_vocab, const CorpusOptions& options);

}  // namespace nmt
