#include "decode/term_forcing.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <utility>

namespace nmt {

namespace {

struct Span {
    size_t begin = 0, end = 0;
};

// Words as the model's SentencePiece cuts them: runs between ASCII spaces.
std::vector<Span> space_words(const std::string& text) {
    std::vector<Span> words;
    size_t i = 0;
    while (i < text.size()) {
        if (std::isspace(static_cast<unsigned char>(text[i]))) {
            ++i;
            continue;
        }
        const size_t begin = i;
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        words.push_back({begin, i});
    }
    return words;
}

bool overlaps(const Span& a, size_t begin, size_t end) { return a.begin < end && begin < a.end; }

bool inside_any(const std::vector<std::pair<size_t, size_t>>& spans, size_t begin, size_t end) {
    for (const auto& [b, e] : spans)
        if (b < end && begin < e) return true;
    return false;
}

// Punctuation that clings to a word: ASCII's and the quotes and ellipsis of
// French and German text. Returns its length in bytes at text[i], 0 if none.
size_t clinging_at(const std::string& text, size_t i) {
    if (std::ispunct(static_cast<unsigned char>(text[i]))) return 1;
    static const char* const marks[] = {"\xC2\xAB", "\xC2\xBB", "\xE2\x80\x9C", "\xE2\x80\x9D", "\xE2\x80\x98",
                                        "\xE2\x80\x99", "\xE2\x80\x9E", "\xE2\x80\xA6"};
    for (const char* mark : marks)
        if (text.compare(i, std::char_traits<char>::length(mark), mark) == 0) return std::char_traits<char>::length(mark);
    return 0;
}

// What of a word stays around a term put in its place: leading punctuation
// and an elided article or pronoun ("l'", "d'", "qu'", with ' or ’), and
// trailing punctuation. The word's core is what lies between.
struct WordParts {
    size_t core_begin, core_end;  // offsets in the translation
};

WordParts parts(const std::string& text, const Span& word) {
    size_t begin = word.begin;
    while (begin < word.end) {
        const size_t mark = clinging_at(text, begin);
        if (mark == 0 || text.compare(begin, 1, "'") == 0 || text.compare(begin, 3, "\xE2\x80\x99") == 0) break;
        begin += mark;
    }
    size_t letters = begin;
    while (letters < word.end && letters - begin < 6 && std::isalpha(static_cast<unsigned char>(text[letters])))
        ++letters;
    if (letters > begin && letters < word.end) {
        const size_t apostrophe = text.compare(letters, 1, "'") == 0                ? 1
                                  : text.compare(letters, 3, "\xE2\x80\x99") == 0 ? 3
                                                                                  : 0;
        if (apostrophe && letters + apostrophe < word.end) begin = letters + apostrophe;
    }
    size_t end = word.end;
    while (end > begin) {
        size_t mark = 0;
        for (size_t back = 1; back <= 3 && back <= end - begin && !mark; ++back)
            if (clinging_at(text, end - back) == back) mark = back;
        if (mark == 0) break;
        end -= mark;
    }
    return {begin, end};
}

bool capital(const std::string& text, size_t i) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if (b >= 'A' && b <= 'Z') return true;
    if (b != 0xC3 || i + 1 >= text.size()) return false;
    const unsigned char next = static_cast<unsigned char>(text[i + 1]);
    return next >= 0x80 && next <= 0x9E && next != 0x97;
}

// The target term with its first letter a capital (ASCII and Latin-1).
std::string capitalised(std::string term) {
    const unsigned char b = static_cast<unsigned char>(term[0]);
    if (b >= 'a' && b <= 'z') {
        term[0] = static_cast<char>(b - 32);
    } else if (b == 0xC3 && term.size() > 1) {
        const unsigned char next = static_cast<unsigned char>(term[1]);
        if (next >= 0xA0 && next <= 0xBE && next != 0xB7) term[1] = static_cast<char>(next - 0x20);
    }
    return term;
}

struct Edit {
    size_t begin, end;
    std::string text;
};

class TermForcer {
public:
    TermForcer(const std::string& source, const std::string& translation, const WordAttention* words,
               const PlaceholderOptions& placeholders)
        : source_(source),
          translation_(translation),
          source_words_(space_words(source)),
          target_words_(space_words(translation)),
          protected_(placeholder_spans(translation, placeholders)),
          used_(target_words_.size(), false) {
        if (words && !words->weights.empty() && words->source.size() == source_words_.size() + 1 &&
            words->target.size() == target_words_.size() + 1)  // + "</s>" on both sides
            words_ = words;
    }

    void force(const TermMatch& match) {
        std::vector<size_t> term_words;  // the source words the term overlaps
        for (size_t s = 0; s < source_words_.size(); ++s)
            if (overlaps(source_words_[s], match.begin, match.end)) term_words.push_back(s);
        if (words_ && !term_words.empty()) {
            if (replace_aligned(*match.term, term_words) || insert_before_attending(*match.term, term_words)) return;
        } else if (replace_copied(match)) {
            return;
        }
        append(match.term->target);
    }

    std::string result() {
        std::sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) {
            return a.begin != b.begin ? a.begin > b.begin : a.end > b.end;  // a replacement before an insertion there
        });
        std::string text = translation_;
        for (const Edit& e : edits_) text.replace(e.begin, e.end - e.begin, e.text);
        return text;
    }

private:
    float weight(size_t t, const std::vector<size_t>& term_words) const {
        float sum = 0;
        for (size_t s : term_words) sum += words_->weights[t][s];
        return sum;
    }

    // The source word target word t attended to most ("</s>" left out).
    size_t looked_at(size_t t) const {
        size_t best = 0;
        for (size_t s = 1; s < source_words_.size(); ++s)
            if (words_->weights[t][s] > words_->weights[t][best]) best = s;
        return best;
    }

    bool editable(size_t t) const {
        if (used_[t] || inside_any(protected_, target_words_[t].begin, target_words_[t].end)) return false;
        const WordParts p = parts(translation_, target_words_[t]);
        return p.core_end > p.core_begin;
    }

    bool replace_aligned(const GlossaryTerm& term, const std::vector<size_t>& term_words) {
        std::vector<bool> aligned(target_words_.size(), false);
        int best = -1;
        for (size_t t = 0; t < target_words_.size(); ++t) {
            if (!editable(t)) continue;
            aligned[t] = std::find(term_words.begin(), term_words.end(), looked_at(t)) != term_words.end();
            if (aligned[t] && (best < 0 || weight(t, term_words) > weight(size_t(best), term_words)))
                best = static_cast<int>(t);
        }
        if (best < 0) return false;
        size_t first = size_t(best), last = size_t(best);
        while (first > 0 && aligned[first - 1]) --first;
        while (last + 1 < target_words_.size() && aligned[last + 1]) ++last;
        const size_t term_length = std::max<size_t>(1, space_words(term.target).size());
        auto is_short = [&](size_t t) {
            const WordParts p = parts(translation_, target_words_[t]);
            return p.core_end - p.core_begin <= 3;
        };
        // Short words at the ends go while a longer one stays: the
        // preposition or article the model linked to the noun is not the noun.
        auto longer_one_in = [&](size_t from, size_t to) {
            for (size_t t = from; t <= to; ++t)
                if (!is_short(t)) return true;
            return false;
        };
        while (last - first + 1 > term_length) {
            if (is_short(first) && longer_one_in(first + 1, last)) {
                ++first;
            } else if (is_short(last) && longer_one_in(first, last - 1)) {
                --last;
            } else {
                break;
            }
        }
        const WordParts head = parts(translation_, target_words_[first]);
        const WordParts tail = parts(translation_, target_words_[last]);
        const bool sentence_start = first == 0 && head.core_begin == target_words_[0].begin;
        const std::string text = !term.case_sensitive && sentence_start && capital(translation_, head.core_begin)
                                     ? capitalised(term.target)
                                     : term.target;
        edits_.push_back({head.core_begin, tail.core_end, text});
        for (size_t t = first; t <= last; ++t) used_[t] = true;
        return true;
    }

    bool insert_before_attending(const GlossaryTerm& term, const std::vector<size_t>& term_words) {
        int best = -1;
        for (size_t t = 0; t < target_words_.size(); ++t) {
            const size_t at = target_words_[t].begin;
            if (used_[t] || inside_any(protected_, at, at + 1) ||  // a placeholder's own words
                std::any_of(protected_.begin(), protected_.end(), [&](const auto& p) { return p.first < at && at < p.second; }))
                continue;
            if (best < 0 || weight(t, term_words) > weight(size_t(best), term_words)) best = static_cast<int>(t);
        }
        if (best < 0) return false;
        edits_.push_back({target_words_[size_t(best)].begin, target_words_[size_t(best)].begin, term.target + " "});
        return true;
    }

    // Without attention: the model often copies what it does not know (names,
    // product names), so the source term standing in the translation is the
    // place.
    bool replace_copied(const TermMatch& match) {
        const std::string as_written = source_.substr(match.begin, match.end - match.begin);
        for (size_t at : find_whole_words(translation_, as_written, match.term->case_sensitive)) {
            const size_t end = at + as_written.size();
            if (inside_any(protected_, at, end)) continue;
            bool free = true;
            for (size_t t = 0; t < target_words_.size(); ++t)
                if (overlaps(target_words_[t], at, end) && used_[t]) free = false;
            for (const Edit& e : edits_)
                if (e.begin < end && at < e.end) free = false;
            if (!free) continue;
            edits_.push_back({at, end, match.term->target});
            for (size_t t = 0; t < target_words_.size(); ++t)
                if (overlaps(target_words_[t], at, end)) used_[t] = true;
            return true;
        }
        return false;
    }

    void append(const std::string& target) {
        const size_t end = translation_.size();
        edits_.push_back({end, end, translation_.empty() ? target : " " + target});
    }

    const std::string& source_;
    const std::string& translation_;
    std::vector<Span> source_words_, target_words_;
    std::vector<std::pair<size_t, size_t>> protected_;  // the translation's placeholders
    std::vector<bool> used_;  // target words already given a term
    const WordAttention* words_ = nullptr;
    std::vector<Edit> edits_;
};

}  // namespace

std::string force_terms(const std::string& source, const std::string& translation, const Glossary& glossary,
                        const WordAttention* words, const PlaceholderOptions& placeholders) {
    // What must come out: each verbatim span as itself, then the glossary's
    // terms outside the spans and the placeholders.
    std::deque<GlossaryTerm> verbatim;  // the spans as terms, at stable addresses
    std::vector<TermMatch> wanted;
    for (const auto& [begin, end] : verbatim_spans(source, placeholders)) {
        const std::string span = source.substr(begin, end - begin);
        verbatim.push_back({span, span, true});
        wanted.push_back({begin, end, &verbatim.back()});
    }
    const auto kept_as_they_are = placeholder_spans(source, placeholders);
    for (const TermMatch& m : glossary.find(source))
        if (!inside_any(kept_as_they_are, m.begin, m.end)) wanted.push_back(m);
    if (wanted.empty()) return translation;
    // How often each target must come out: as often as the source asks.
    std::map<std::pair<std::string, bool>, size_t> asked;
    for (const TermMatch& m : wanted) ++asked[{m.term->target, m.term->case_sensitive}];
    TermForcer forcer(source, translation, words, placeholders);
    bool edited = false;
    for (const TermMatch& m : wanted) {
        // Already there as often as asked for: the model chose it itself.
        const size_t present = find_whole_words(translation, m.term->target, m.term->case_sensitive).size();
        if (present >= asked[{m.term->target, m.term->case_sensitive}]) continue;
        forcer.force(m);
        edited = true;
    }
    return edited ? forcer.result() : translation;
}

}  // namespace nmt
