// SegmentTranslators for format tests that need no model.
//
// ReversingTranslator: each word (a run of non-space bytes) is upper-cased
// (ASCII letters only) and the words come out in reverse order, one space
// between them, so that tests can see both that text was translated and
// that markup followed its words rather than its positions. Every segment it
// was given is kept in `seen`.
//
// IdentityTranslator: each segment back as it is, every word linked to
// itself: a document must then come back with the same elements.
//
// ScriptedTranslator: given translations and links, below.
#pragma once
#include <cctype>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "formats/segment_translator.h"

namespace nmt::testing {

// The runs of non-space bytes of `text` (ASCII white space between them):
// the words the fakes below translate and link.
inline std::vector<ByteSpan> ascii_words(const std::string& text) {
    std::vector<ByteSpan> spans;
    for (size_t i = 0; i < text.size();) {
        if (std::isspace(static_cast<unsigned char>(text[i]))) {
            ++i;
            continue;
        }
        size_t end = i;
        while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
        spans.push_back({i, end});
        i = end;
    }
    return spans;
}

class ReversingTranslator : public SegmentTranslator {
public:
    std::vector<std::vector<std::string>> seen;  // each call's segments

    std::vector<SegmentTranslation> translate(const std::vector<std::string>& segments) override {
        seen.push_back(segments);
        std::vector<SegmentTranslation> out;
        for (const auto& segment : segments) out.push_back(reverse(segment));
        return out;
    }

    static SegmentTranslation reverse(const std::string& segment) {
        SegmentTranslation result;
        result.source_words = ascii_words(segment);
        const int n = static_cast<int>(result.source_words.size());
        for (int t = 0; t < n; ++t) {
            const ByteSpan& word = result.source_words[n - 1 - t];
            if (t > 0) result.text += ' ';
            const size_t begin = result.text.size();
            for (size_t b = word.begin; b < word.end; ++b)
                result.text += static_cast<char>(std::toupper(static_cast<unsigned char>(segment[b])));
            result.target_words.push_back({begin, result.text.size()});
        }
        for (int s = 0; s < n; ++s) result.links.emplace_back(s, n - 1 - s);
        return result;
    }
};

class IdentityTranslator : public SegmentTranslator {
public:
    std::vector<SegmentTranslation> translate(const std::vector<std::string>& segments) override {
        std::vector<SegmentTranslation> out;
        for (const auto& segment : segments) {
            SegmentTranslation t = ReversingTranslator::reverse(segment);
            t.text = segment;
            t.target_words = t.source_words;
            for (auto& link : t.links) link.second = link.first;
            out.push_back(t);
        }
        return out;
    }
};

// A translator that answers each segment it knows with a given translation
// and word links (words: runs of non-space bytes on both sides), for tests
// of where markup lands on translations a model might give. An unknown
// segment is an error in the test.
class ScriptedTranslator : public SegmentTranslator {
public:
    struct Answer {
        std::string source, target;
        Links links;  // (source word, target word)
    };
    explicit ScriptedTranslator(std::vector<Answer> answers) : answers_(std::move(answers)) {}

    std::vector<SegmentTranslation> translate(const std::vector<std::string>& segments) override {
        std::vector<SegmentTranslation> out;
        for (const auto& segment : segments) {
            const Answer* answer = nullptr;
            for (const Answer& a : answers_)
                if (a.source == segment) answer = &a;
            if (!answer) throw std::runtime_error("ScriptedTranslator: no answer for '" + segment + "'");
            SegmentTranslation result;
            result.text = answer->target;
            result.source_words = ascii_words(segment);
            result.target_words = ascii_words(answer->target);
            result.links = answer->links;
            out.push_back(std::move(result));
        }
        return out;
    }

private:
    std::vector<Answer> answers_;
};

}  // namespace nmt::testing
