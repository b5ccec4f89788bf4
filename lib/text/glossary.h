// A user's glossary (nmt translate --glossary): source terms and the target
// terms they must come out as. The file is UTF-8 text, one term a line:
//
//   source term<TAB>target term[<TAB>case-sensitive|case-insensitive]
//
// '#' starts a comment line; blank lines are skipped; spaces around a term
// are dropped. A term is matched as whole words: not inside a longer word
// ("car" is not found in "cart"), and, unless its line says case-sensitive,
// whatever its case ("Car", "CAR"). Case is folded for ASCII and the Latin-1
// letters (À..Þ), which covers English, French and German terms; other
// scripts match as written.
#pragma once
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace nmt {

// Bounds on what a glossary may hold: a term list is read whole and matched
// against every sentence, so a file that is not one is refused early.
constexpr size_t kMaxGlossaryBytes = size_t(16) << 20;
constexpr size_t kMaxGlossaryLineBytes = 4096;
constexpr size_t kMaxGlossaryTerms = 100000;

struct GlossaryTerm {
    std::string source;
    std::string target;
    bool case_sensitive = false;
};

// One occurrence of a term in a text: bytes [begin, end) of it.
struct TermMatch {
    size_t begin = 0;
    size_t end = 0;
    const GlossaryTerm* term = nullptr;
};

class Glossary {
public:
    Glossary() = default;
    // Parses the text of a glossary file; `name` (the file's) starts every
    // error message: "NAME:LINE: problem". Throws nmt::Error.
    static Glossary parse(const std::string& text, const std::string& name);
    // Reads and parses the file at `path`. Throws nmt::Error naming it.
    static Glossary load(const std::string& path);

    bool empty() const { return terms_.empty(); }
    const std::vector<GlossaryTerm>& terms() const { return terms_; }

    // The terms found in `text`, left to right, none overlapping: where
    // several start at one place the longest wins, and a case-sensitive
    // term before a case-insensitive one of the same length.
    std::vector<TermMatch> find(const std::string& text) const;

private:
    void add(GlossaryTerm term, const std::string& where);

    std::vector<GlossaryTerm> terms_;
    // Terms by the folded text of their first word (letters and digits up to
    // the first other character), so a sentence is matched word by word
    // rather than against every term. Terms that start with another
    // character (".NET") are tried everywhere.
    std::unordered_map<std::string, std::vector<size_t>> by_first_word_;
    std::vector<size_t> other_starts_;
    // Each term by its case rule and matched text: a line said twice is one
    // term, a second target for it an error.
    std::unordered_map<std::string, size_t> index_;
};

// Where `phrase` occurs in `text` as whole words (not inside a longer
// word), byte offsets, left to right, not overlapping; folded with
// fold_case unless case_sensitive.
std::vector<size_t> find_whole_words(const std::string& text, const std::string& phrase, bool case_sensitive);

// Case folding used for matching: ASCII and Latin-1 capitals (U+00C0..U+00DE
// but U+00D7) to small letters, other bytes unchanged (same length).
std::string fold_case(const std::string& text);

}  // namespace nmt
