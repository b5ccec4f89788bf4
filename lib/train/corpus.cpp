#include "train/corpus.h"

#include <sstream>

#include "core/error.h"
#include "io/input_file.h"
#include "core/sha256.h"
#include "io/text_input.h"

namespace nmt {

namespace {

struct TextFile {
    std::vector<std::string> lines;
    std::string sha256;
};

// Reads the file once: its lines, and the checksum of exactly the bytes that
// were trained on.
TextFile read_lines(const std::string& path) {
    TextFile file;
    Sha256 digest;
    file.lines = read_text_lines(path, LineLimit{}, &digest);
    file.sha256 = digest.hex_digest();
    return file;
}

bool blank(const std::string& line) { return line.find_first_not_of(" \t") == std::string::npos; }

// Whitespace-separated words, as the aligners count them.
int count_words(const std::string& line) {
    std::istringstream in(line);
    std::string word;
    int words = 0;
    while (in >> word) ++words;
    return words;
}

// Line i's links, checked against the words of its cleaned sentence pair.
Links read_alignment(const std::string& path, int64_t line_number, const std::string& line, const std::string& source,
                     const std::string& target) {
    Links links;
    try {
        links = parse_pharaoh(line);
    } catch (const Error& e) {
        throw Error(path + " line " + std::to_string(line_number) + ": " + e.what());
    }
    const int source_words = count_words(source), target_words = count_words(target);
    for (const auto& [i, j] : links)
        if (i >= source_words || j >= target_words)
            throw Error(path + " line " + std::to_string(line_number) + ": the link " + std::to_string(i) + "-" +
                        std::to_string(j) + " is past the end of the pair (" + std::to_string(source_words) +
                        " source words, " + std::to_string(target_words) + " target words)");
    return links;
}

// The `n` best segmentations of `text` that have at most `max_length` pieces
// (0: any length). The best one, which read_corpus has already checked
// against max_length, is always among them.
SegmentationChoices segmentation_choices(const Vocabulary& vocab, const std::string& text, int n, int max_length) {
    SegmentationChoices choices;
    for (const auto& segmentation : vocab.nbest_encode(text, n)) {
        if (max_length > 0 && static_cast<int64_t>(segmentation.ids.size()) > max_length) continue;
        choices.ids.insert(choices.ids.end(), segmentation.ids.begin(), segmentation.ids.end());
        choices.ends.push_back(static_cast<int>(choices.ids.size()));
        choices.log_probabilities.push_back(segmentation.log_probability);
    }
    if (choices.size() == 0) {  // SentencePiece listed none: keep the one encode() gives
        choices.ids = vocab.encode(text);
        choices.ends.push_back(static_cast<int>(choices.ids.size()));
        choices.log_probabilities.push_back(0);
    }
    return choices;
}

}  // namespace

int64_t Corpus::source_tokens() const {
    int64_t n = 0;
    for (const auto& p : pairs) n += static_cast<int64_t>(p.source.size());
    return n;
}

int64_t Corpus::target_tokens() const {
    int64_t n = 0;
    for (const auto& p : pairs) n += static_cast<int64_t>(p.target.size());
    return n;
}

std::string Corpus::summary() const {
    std::ostringstream out;
    out << pairs.size() << " pairs from " << source_path << " / " << target_path;
    const int64_t skipped = skipped_empty + skipped_too_long;
    if (skipped > 0)
        out << " (" << skipped << " skipped: " << skipped_empty << " empty, " << skipped_too_long
            << " too long)";
    if (repaired_lines > 0) out << "; " << repaired_lines << " lines repaired, first: " << first_repair;
    return out.str();
}

Corpus read_corpus(const std::string& source_path, const std::string& target_path, const Vocabulary& source_vocab,
                   const Vocabulary& target_vocab, const CorpusOptions& options) {
    TextFile source = read_lines(source_path);
    TextFile target = read_lines(target_path);
    if (source.lines.size() != target.lines.size())
        throw Error(source_path + " has " + std::to_string(source.lines.size()) + " lines but " + target_path +
                    " has " + std::to_string(target.lines.size()) + ": the files must be aligned line by line");
    Corpus corpus;
    corpus.source_path = source_path;
    corpus.target_path = target_path;
    corpus.source_sha256 = source.sha256;
    corpus.target_sha256 = target.sha256;
    corpus.lines = static_cast<int64_t>(source.lines.size());
    TextFile alignment;
    if (!options.alignment_path.empty()) {
        alignment = read_lines(options.alignment_path);
        if (alignment.lines.size() != source.lines.size())
            throw Error(options.alignment_path + " has " + std::to_string(alignment.lines.size()) +
                        " lines but the corpus has " + std::to_string(source.lines.size()) +
                        ": give one line of word alignments per sentence pair");
        corpus.alignment_path = options.alignment_path;
        corpus.alignment_sha256 = alignment.sha256;
    }

    const int64_t n = corpus.lines;
    std::vector<SentencePair> encoded(n);
    std::vector<std::vector<std::string>> warnings(n);
    const bool sampling = options.segmentations > 1;
    std::vector<SegmentationChoices> source_choices(sampling ? n : 0), target_choices(sampling ? n : 0);
    // SentencePiece encoding is the slow part and is const; each line goes to
    // its own slot, so the result does not depend on the thread count.
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t i = 0; i < n; ++i) {
        std::vector<std::string> source_warnings, target_warnings;
        source.lines[i] = clean_line(std::move(source.lines[i]), i + 1, &source_warnings);
        target.lines[i] = clean_line(std::move(target.lines[i]), i + 1, &target_warnings);
        for (auto& w : source_warnings) warnings[i].push_back(source_path + " " + w);
        for (auto& w : target_warnings) warnings[i].push_back(target_path + " " + w);
        if (blank(source.lines[i]) || blank(target.lines[i])) continue;
        encoded[i].source = source_vocab.encode(source.lines[i]);
        encoded[i].target = target_vocab.encode(target.lines[i]);
        if (sampling) {
            source_choices[i] =
                segmentation_choices(source_vocab, source.lines[i], options.segmentations, options.max_length);
            target_choices[i] =
                segmentation_choices(target_vocab, target.lines[i], options.segmentations, options.max_length);
        }
    }

    for (int64_t i = 0; i < n; ++i) {
        for (const auto& w : warnings[i]) {
            if (corpus.repaired_lines == 0) corpus.first_repair = w;
            ++corpus.repaired_lines;
        }
        SentencePair& pair = encoded[i];
        if (pair.source.empty() || pair.target.empty()) {
            ++corpus.skipped_empty;
            continue;
        }
        if (options.max_length > 0 && (static_cast<int64_t>(pair.source.size()) > options.max_length ||
                                       static_cast<int64_t>(pair.target.size()) > options.max_length)) {
            ++corpus.skipped_too_long;
            continue;
        }
        pair.source.push_back(source_vocab.eos_id());
        pair.target.push_back(target_vocab.eos_id());
        pair.line = i + 1;
        if (!alignment.lines.empty())
            pair.alignment = read_alignment(options.alignment_path, i + 1, alignment.lines[i], source.lines[i],
                                            target.lines[i]);
        corpus.pairs.push_back(std::move(pair));
        if (sampling) {
            corpus.source_choices.push_back(std::move(source_choices[i]));
            corpus.target_choices.push_back(std::move(target_choices[i]));
        }
        if (options.keep_text) {
            corpus.source_text.push_back(std::move(source.lines[i]));
            corpus.target_text.push_back(std::move(target.lines[i]));
        }
    }
    return corpus;
}

}  // namespace nmt
