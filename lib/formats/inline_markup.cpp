#include "formats/inline_markup.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"

namespace nmt {

namespace {
bool ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '\v'; }

// The marks at the edge of a part's words that may belong outside it:
// spaces, a sentence's punctuation (full stops, commas, ...) and what
// encloses words (brackets, quotes, guillemets).
enum class Mark { Space, Stop, Enclosing };

// The mark `text` has starting at `at` (or, backward, ending at `at`): its
// length in bytes (0 for none) and kind.
size_t edge_mark(const std::string& text, size_t at, bool backward, Mark& kind) {
    static const std::pair<const char*, Mark> kMarks[] = {
        {" ", Mark::Space},      {"\u00A0", Mark::Space},     {"\u202F", Mark::Space},     {".", Mark::Stop},
        {",", Mark::Stop},       {";", Mark::Stop},           {":", Mark::Stop},           {"!", Mark::Stop},
        {"?", Mark::Stop},       {"\u2026", Mark::Stop},      {"(", Mark::Enclosing},      {")", Mark::Enclosing},
        {"[", Mark::Enclosing},  {"]", Mark::Enclosing},      {"{", Mark::Enclosing},      {"}", Mark::Enclosing},
        {"\"", Mark::Enclosing}, {"'", Mark::Enclosing},      {"\u00AB", Mark::Enclosing}, {"\u00BB", Mark::Enclosing},
        {"\u2018", Mark::Enclosing}, {"\u2019", Mark::Enclosing}, {"\u201C", Mark::Enclosing}, {"\u201D", Mark::Enclosing}};
    for (const auto& [mark, mark_kind] : kMarks) {
        const size_t n = std::strlen(mark);
        if ((backward && at < n) || (backward ? at : at + n) > text.size()) continue;
        if (text.compare(backward ? at - n : at, n, mark) != 0) continue;
        kind = mark_kind;
        return n;
    }
    return 0;
}

// A mark found at an edge of a text.
struct EdgeMark {
    size_t inner;  // its boundary towards the words
    size_t length;
    Mark kind;
};

// The marks of [begin, end) of `text` at its end (backward) or its start, up
// to its first other character, from the outside in.
std::vector<EdgeMark> edge_run(const std::string& text, size_t begin, size_t end, bool backward) {
    std::vector<EdgeMark> run;
    size_t at = backward ? end : begin;
    Mark kind = Mark::Space;
    while (begin < end) {
        const size_t n = edge_mark(text, at, backward, kind);
        if (n == 0 || (backward ? at - n < begin : at + n > end)) break;
        at = backward ? at - n : at + n;
        run.push_back({at, n, kind});
    }
    return run;
}

// How many marks of each kind but spaces a text has at one edge.
struct EdgeMarks {
    int stops = 0, enclosing = 0;
    int& operator[](Mark kind) { return kind == Mark::Stop ? stops : enclosing; }
};

EdgeMarks count_marks(const std::vector<EdgeMark>& run) {
    EdgeMarks marks;
    for (const EdgeMark& mark : run)
        if (mark.kind != Mark::Space) ++marks[mark.kind];
    return marks;
}

// The closing bracket that matches an opening one ("(" → ")"), or null.
const char* closer_of(const std::string& mark) {
    static const char* const kPairs[][2] = {{"(", ")"}, {"[", "]"}, {"{", "}"}, {"\u00AB", "\u00BB"}, {"\u201C", "\u201D"}};
    for (const auto& pair : kPairs)
        if (mark == pair[0]) return pair[1];
    return nullptr;
}
const char* opener_of(const std::string& mark) {
    static const char* const kPairs[][2] = {{")", "("}, {"]", "["}, {"}", "{"}, {"\u00BB", "\u00AB"}, {"\u201D", "\u201C"}};
    for (const auto& pair : kPairs)
        if (mark == pair[0]) return pair[1];
    return nullptr;
}

// Where the opening bracket `open` that the closing one at `close_at`
// matches starts in [begin, close_at), or npos.
size_t matching_opener(const std::string& text, size_t begin, size_t close_at, const char* open, const char* close) {
    const size_t open_length = std::strlen(open), close_length = std::strlen(close);
    int depth = 1;
    for (size_t at = close_at; at > begin;) {
        --at;
        if (at + close_length <= close_at && text.compare(at, close_length, close) == 0) ++depth;
        if (at + open_length <= close_at && text.compare(at, open_length, open) == 0 && --depth == 0) return at;
    }
    return std::string::npos;
}

// [begin, end) of `text` without the marks at its end (backward) or start
// beyond those of each kind the source part had there (`keep`, the ones next
// to its words), nor the spaces around what goes: a <b> around "kernel" in
// "kernel." translated "noyau." ends before the full stop; a link around a
// quoted title keeps the closing quote and not the sentence's full stop.
// Trim the end first: a bracket wrapping the span goes there, and then its
// unmatched opener at the start. Never trims a span to nothing.
size_t trimmed_edge(const std::string& text, size_t begin, size_t end, bool backward, EdgeMarks keep) {
    const std::vector<EdgeMark> run = edge_run(text, begin, end, backward);
    const size_t edge = backward ? end : begin;
    if (run.empty() || run.back().inner == (backward ? begin : end)) return edge;  // no marks, or nothing else
    EdgeMarks removable = count_marks(run);
    removable.stops -= keep.stops;
    removable.enclosing -= keep.enclosing;
    size_t cut = edge, i = 0;
    for (; i < run.size() && (removable.stops > 0 || removable.enclosing > 0); ++i) {
        const EdgeMark& mark = run[i];
        if (mark.kind != Mark::Space) {
            if (removable[mark.kind] <= 0) break;  // one the source part had: the rest is the words'
            const size_t mark_begin = backward ? mark.inner : mark.inner - mark.length;
            const std::string glyph = text.substr(mark_begin, mark.length);
            // A bracket matched inside what is left is part of the words
            // ("dput(1)"); one wrapping the whole span ("(Nouveau)" for a
            // link inside brackets) goes, and its opener with it next.
            if (const char* open = backward ? opener_of(glyph) : nullptr) {
                const size_t opener = matching_opener(text, begin, mark_begin, open, glyph.c_str());
                if (opener != std::string::npos && opener > begin) break;
            }
            if (const char* close = backward ? nullptr : closer_of(glyph);
                close && text.find(close, mark.inner) < end)
                break;
            --removable[mark.kind];
        }
        cut = mark.inner;
    }
    for (; i < run.size() && run[i].kind == Mark::Space && cut != edge; ++i) cut = run[i].inner;  // and the spaces it leaves
    return cut;
}

}  // namespace

InlineSegment::InlineSegment() { parts_.emplace_back(); }

int InlineSegment::add_part(int parent, bool verbatim) {
    InlinePart part;
    part.parent = parent;
    part.verbatim = verbatim;
    part.start_byte = text_.size();
    parts_.push_back(part);
    const int index = static_cast<int>(parts_.size()) - 1;
    parts_[parent].children.push_back(index);
    return index;
}

void InlineSegment::add_text(const char* text, size_t size, int part, bool counts) {
    for (size_t i = 0; i < size; ++i) {
        if (ascii_space(text[i])) {
            pending_space_ = true;
            continue;
        }
        if (pending_space_ && !text_.empty()) {
            text_ += ' ';
            owner_.push_back(part);
        }
        pending_space_ = false;
        text_ += text[i];
        owner_.push_back(part);
        if (counts) has_words_ = true;
    }
}

class InlineLayout {
public:
    InlineLayout(const InlineSegment& segment, const SegmentTranslation& tr) : seg_(segment), tr_(tr) {}

    void write(const InlineSegment::Writer& writer) {
        check();
        const int parts = static_cast<int>(seg_.parts_.size());
        ns_ = static_cast<int>(tr_.source_words.size());
        nt_ = static_cast<int>(tr_.target_words.size());
        sources_of_target_.assign(nt_, {});
        targets_of_source_.assign(ns_, {});
        for (auto [s, t] : tr_.links) {
            if (s < 0 || s >= ns_ || t < 0 || t >= nt_) continue;
            targets_of_source_[s].push_back(t);
        }
        link_copies();
        for (int s = 0; s < ns_; ++s)
            for (int t : targets_of_source_[s]) sources_of_target_[t].push_back(s);
        words_of_.assign(parts, {});
        own_words_of_.assign(parts, {});
        for (int s = 0; s < ns_; ++s) {
            const ByteSpan word = tr_.source_words[s];
            std::vector<int> owners;
            bool single = true;
            for (size_t b = word.begin; b < word.end && b < seg_.owner_.size(); ++b) {
                if (seg_.owner_[b] != seg_.owner_[word.begin]) single = false;
                for (int p = seg_.owner_[b]; p >= 0; p = seg_.parts_[p].parent)
                    if (std::find(owners.begin(), owners.end(), p) == owners.end()) owners.push_back(p);
            }
            for (int p : owners) words_of_[p].push_back(s);
            if (single && word.begin < seg_.owner_.size()) own_words_of_[seg_.owner_[word.begin]].push_back(s);
        }
        // Each part's source text, for the punctuation at its edges.
        std::vector<size_t> first(parts, seg_.text_.size()), last(parts, 0);
        for (size_t b = 0; b < seg_.owner_.size(); ++b)
            for (int p = seg_.owner_[b]; p >= 0; p = seg_.parts_[p].parent) {
                first[p] = std::min(first[p], b);
                last[p] = std::max(last[p], b + 1);
            }
        leading_marks_.assign(parts, {});
        trailing_marks_.assign(parts, {});
        for (int p = 0; p < parts; ++p) {
            if (first[p] >= last[p]) continue;
            leading_marks_[p] = count_marks(edge_run(seg_.text_, first[p], last[p], false));
            trailing_marks_[p] = count_marks(edge_run(seg_.text_, first[p], last[p], true));
        }
        dropped_.assign(nt_, false);
        span_.assign(parts, {});
        span_[0] = {0, nt_};
        place(0);
        render(0, 0, tr_.text.size(), writer);
    }

private:
    struct Span {
        int begin = 0, end = 0;  // target words [begin, end)
    };

    // The core of a word: without the punctuation at its edges ("dupload."
    // → "dupload").
    static std::string_view core(const std::string& text, ByteSpan word) {
        const auto leading = edge_run(text, word.begin, word.end, false);
        const size_t begin = leading.empty() ? word.begin : leading.back().inner;
        const auto trailing = edge_run(text, begin, word.end, true);
        const size_t end = trailing.empty() ? word.end : trailing.back().inner;
        return std::string_view(text).substr(begin, end - begin);
    }

    // A source word the translation copied (a command, a name, a number:
    // the same core of three bytes or more) and that attention linked to its
    // copy and to other words keeps the copy alone ("debuild" in "For the
    // debuild command" → "Pour la commande debuild", not "commande
    // debuild"), with the punctuation next to it it was linked to. A copy
    // it was not linked to, or one far from its other links, may be another
    // occurrence's, and changes nothing.
    void link_copies() {
        for (int s = 0; s < ns_; ++s) {
            std::vector<int>& linked = targets_of_source_[s];
            if (linked.size() < 2) continue;
            const std::string_view word = core(seg_.text_, tr_.source_words[s]);
            if (word.size() < 3) continue;
            std::vector<int> copies;
            for (int t : linked)
                if (core(tr_.text, tr_.target_words[t]) == word) copies.push_back(t);
            if (copies.size() != 1) continue;
            const int copy = copies[0];
            bool beside = false;  // a copy far from its other links may be another occurrence's
            for (int t : linked) beside = beside || (t != copy && std::abs(t - copy) <= 2);
            if (!beside) continue;
            std::vector<int> kept;  // the copy and the punctuation next to it ("(re)build »")
            for (int t : linked)
                if (t == copy || (std::abs(t - copy) == 1 && core(tr_.text, tr_.target_words[t]).empty()))
                    kept.push_back(t);
            linked = kept;
        }
    }

    void check() const {
        size_t previous = 0;
        for (const ByteSpan& w : tr_.target_words) {
            if (w.begin < previous || w.end < w.begin || w.end > tr_.text.size())
                throw Error("the segment translator gave target word spans out of order or outside its text");
            previous = w.end;
        }
    }

    // The gap (between target words) just after the translation of the
    // last aligned source word wholly before `byte`, else before the first
    // aligned one after, else where `byte` stands in proportion.
    int gap_near(size_t byte) const {
        int before = -1;
        for (int s = 0; s < ns_ && tr_.source_words[s].end <= byte; ++s) before = s;
        for (int s = before; s >= 0; --s)
            if (!targets_of_source_[s].empty())
                return *std::max_element(targets_of_source_[s].begin(), targets_of_source_[s].end()) + 1;
        for (int s = before + 1; s < ns_; ++s)
            if (!targets_of_source_[s].empty())
                return *std::min_element(targets_of_source_[s].begin(), targets_of_source_[s].end());
        return ns_ == 0 ? 0 : static_cast<int>(static_cast<long long>(before + 1) * nt_ / ns_);
    }

    Span desired(int p) {
        const InlinePart& part = seg_.parts_[p];
        if (part.verbatim) {
            // The target words made only from its own words are its words.
            std::vector<bool> own(ns_, false);
            for (int s : own_words_of_[p]) own[s] = true;
            std::vector<int> mine;
            for (int t = 0; t < nt_; ++t) {
                if (sources_of_target_[t].empty() || dropped_[t]) continue;
                bool all = true;
                for (int s : sources_of_target_[t]) all = all && own[s];
                if (all) mine.push_back(t);
            }
            if (mine.empty()) {
                const int g = gap_near(part.start_byte);
                return {g, g};
            }
            int end = mine[0] + 1;
            while (std::binary_search(mine.begin(), mine.end(), end)) ++end;
            for (int t : mine)
                if (t >= end) dropped_[t] = true;  // a second copy of its text
            return {mine[0], end};
        }
        const std::vector<int>& words = words_of_[p];
        int lo = nt_, hi = -1;
        for (int s : words)
            for (int t : targets_of_source_[s]) {
                lo = std::min(lo, t);
                hi = std::max(hi, t);
            }
        if (hi >= 0) return {lo, hi + 1};
        if (!words.empty() && ns_ > 0) {  // words, none aligned: where they stand in proportion
            const int begin = static_cast<int>(static_cast<long long>(words.front()) * nt_ / ns_);
            int end = static_cast<int>((static_cast<long long>(words.back() + 1) * nt_ + ns_ - 1) / ns_);
            end = std::max(end, std::min(begin + 1, nt_));
            return {begin, end};
        }
        const int g = gap_near(part.start_byte);
        return {g, g};
    }

    // Each child's span inside its parent's, siblings apart and in order.
    void place(int p) {
        const std::vector<int>& kids = seg_.parts_[p].children;
        std::vector<std::pair<Span, int>> wanted;
        for (size_t i = 0; i < kids.size(); ++i) wanted.emplace_back(desired(kids[i]), static_cast<int>(i));
        // By where they start, then in their source order (a tag with no
        // words inside a word stays on the side of the word's parts it was).
        if (!seg_.keep_order_)
            std::stable_sort(wanted.begin(), wanted.end(),
                             [](const auto& a, const auto& b) { return a.first.begin < b.first.begin; });
        const Span parent = span_[p];
        int cursor = parent.begin;
        for (auto& [want, i] : wanted) {
            Span s;
            s.begin = std::clamp(std::max(want.begin, cursor), parent.begin, parent.end);
            s.end = std::clamp(std::max(want.end, s.begin), s.begin, parent.end);
            cursor = s.end;
            span_[kids[i]] = s;
        }
        for (int kid : kids) place(kid);
    }

    std::pair<size_t, size_t> bytes(int p, size_t parent_begin, size_t parent_end) const {
        const Span s = span_[p];
        if (s.begin < s.end) {
            size_t begin = tr_.target_words[s.begin].begin, end = tr_.target_words[s.end - 1].end;
            if (!seg_.parts_[p].verbatim) {  // its words, without the sentence's punctuation around them
                end = trimmed_edge(tr_.text, begin, end, true, trailing_marks_[p]);
                begin = trimmed_edge(tr_.text, begin, end, false, leading_marks_[p]);
            }
            begin = std::clamp(begin, parent_begin, parent_end);
            return {begin, std::clamp(end, begin, parent_end)};
        }
        size_t at = s.begin > 0 ? tr_.target_words[s.begin - 1].end : parent_begin;
        at = std::clamp(at, parent_begin, parent_end);
        return {at, at};
    }

    std::string text(size_t begin, size_t end) const {
        std::string out;
        size_t pos = begin;
        for (int t = 0; t < nt_; ++t) {
            if (!dropped_[t]) continue;
            const ByteSpan w = tr_.target_words[t];
            if (w.end <= pos || w.begin >= end) continue;
            if (w.begin > pos) out.append(tr_.text, pos, w.begin - pos);
            pos = std::max(pos, std::min<size_t>(w.end, end));
        }
        if (end > pos) out.append(tr_.text, pos, end - pos);
        return out;
    }

    // Verbatim text stands apart from its neighbours in the segment (so
    // that no word is half code); a space the translation then puts
    // between it and punctuation ("`make` .") goes again.
    static void close_up(std::string& piece, bool after_verbatim, bool before_verbatim) {
        if (after_verbatim && piece.size() >= 2 && piece[0] == ' ' && std::strchr(",.;:!?)]}\"'", piece[1]))
            piece.erase(0, 1);
        const size_t n = piece.size();
        if (before_verbatim && n >= 2 && piece[n - 1] == ' ' && std::strchr("([{\"'", piece[n - 2])) piece.erase(n - 1);
    }

    void render(int p, size_t begin, size_t end, const InlineSegment::Writer& writer) const {
        struct Placed {
            size_t begin, end;
            int part;
        };
        std::vector<Placed> placed;
        for (int kid : seg_.parts_[p].children) {
            const auto [b, e] = bytes(kid, begin, end);
            placed.push_back({b, e, kid});
        }
        std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
            if (a.begin != b.begin) return a.begin < b.begin;
            return a.end < b.end;
        });
        size_t pos = begin;
        bool after_verbatim = false;
        for (const Placed& kid : placed) {
            const bool verbatim = seg_.parts_[kid.part].verbatim;
            if (kid.begin > pos) {
                std::string piece = text(pos, kid.begin);
                close_up(piece, after_verbatim, verbatim);
                if (!piece.empty()) writer.text(piece);
            }
            after_verbatim = verbatim;
            if (verbatim) {
                writer.verbatim(kid.part);
            } else {
                const bool empty = span_[kid.part].begin == span_[kid.part].end;
                writer.open(kid.part, empty);
                render(kid.part, kid.begin, kid.end, writer);
                writer.close(kid.part, empty);
            }
            pos = std::max(pos, kid.end);
        }
        if (end > pos) {
            std::string piece = text(pos, end);
            close_up(piece, after_verbatim, false);
            if (!piece.empty()) writer.text(piece);
        }
    }

    const InlineSegment& seg_;
    const SegmentTranslation& tr_;
    int ns_ = 0, nt_ = 0;
    std::vector<std::vector<int>> sources_of_target_, targets_of_source_, words_of_, own_words_of_;
    std::vector<bool> dropped_;
    std::vector<Span> span_;
    std::vector<EdgeMarks> leading_marks_, trailing_marks_;  // the marks at each part's source edges
};

void InlineSegment::write(const SegmentTranslation& translation, const Writer& writer) const {
    InlineLayout(*this, translation).write(writer);
}

}  // namespace nmt
