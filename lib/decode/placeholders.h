// Placeholders and markup that a translation must carry over unchanged:
// printf conversions (%s, %1$d, %-10s, %lu, %%), Qt/KDE arguments (%1),
// Python named ones (%(name)s), braces ({}, {0}, {name}, ${var}), HTML and
// Pango tags (<b>, </b>, <a href="...">), entities (&amp;), URLs, e-mail
// addresses and host names (www.example.com, example.org). A
// message whose translation loses or garbles one breaks the program that
// prints it, so the translator repairs what the model got wrong instead of
// trusting it. tools/count_placeholders.py measures the same set.
#pragma once
#include <cstddef>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "decode/alignment_output.h"

namespace nmt {

// What the user adds to the placeholders: spans that must come out
// verbatim too (nmt translate --do-not-translate: names, product names,
// identifiers), each a regular expression in ECMAScript syntax (std::regex).
// Where spans overlap, the one that starts first is kept (the longer when
// they start together). restore_placeholders does not repair them: a name
// of several words the model translated word by word would only be added
// beside its translation; force_terms (decode/term_forcing.h) puts each in
// place of the words aligned to it, and nothing edits them once there.
struct PlaceholderOptions {
    std::vector<std::regex> keep_verbatim;
};

// The placeholders of `text`, in order of appearance.
std::vector<std::string> find_placeholders(const std::string& text, const PlaceholderOptions& options = {});

// The same as byte spans [first, second) of `text`.
std::vector<std::pair<size_t, size_t>> placeholder_spans(const std::string& text,
                                                         const PlaceholderOptions& options = {});

// Only the user's spans (options.keep_verbatim) of `text`, in order, not
// overlapping.
std::vector<std::pair<size_t, size_t>> verbatim_spans(const std::string& text, const PlaceholderOptions& options);

// `translation` made to hold exactly the placeholders of `source`, each as
// often (their order may differ: languages order words differently).
// A placeholder the translation has and the source lacks (the model's
// garbled copy, "%d" for "%s" or "{nom}" for "{name}") is replaced by the
// next missing one; one left over is removed; a missing one left over is
// inserted before the target word that attended most to the source word
// holding it (`words`, when the attention matches the translation's words),
// else at the end (at the start when the source starts with it). An address
// the model translated in pieces ("john.doe@ exemples.org") first goes back in
// place of the run of target words that attended to it and hold pieces of it.
// A translation that already holds them is returned unchanged. The result
// always holds exactly the source's placeholders: when an edit runs into the
// text around it and matches as something else, the translation's own
// placeholders are dropped and the source's put in as separate words, and
// when even that fails (what is left of the translation forms placeholders
// with them), the source itself is returned.
std::string restore_placeholders(const std::string& source, const std::string& translation,
                                 const WordAttention* words = nullptr);

}  // namespace nmt
