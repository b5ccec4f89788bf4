// Making a translation use the glossary's target terms (nmt translate
// --glossary), by editing the model's output where its attention says each
// source term went, rather than by constraining the search or by hiding the
// term behind a placeholder before decoding.
//
// Why post-editing: on 61 Tatoeba sentences holding one of 17 common nouns
// (models/en-fr.nmt; tools/measure_glossary.py), hiding the term as a
// placeholder before decoding ("I bought a {0}.") made the model translate
// the rest of the sentence worse: BLEU 32.3 / chrF 58.8 against 45.3 / 63.3
// for the plain output, even though the term put back was the reference's
// own word; articles and agreement lost the noun they agree with. Editing the
// output keeps the sentence the model wrote: 46.4 / 64.5 with the
// reference's words as the terms, and with words the model never chose
// ("car" -> "bagnole") 44.6 / 64.1 against references edited the same way,
// where hiding scored 32.3 / 59.7 and the unedited output 29.7 / 49.8. Every
// output of both holds its term. Beam search constrained to the terms would
// need the search to know the glossary and a beam per constraint; this
// model's attention already says where each term went.
#pragma once
#include <string>

#include "decode/alignment_output.h"
#include "decode/placeholders.h"
#include "text/glossary.h"

namespace nmt {

// `translation` of `source` with each glossary term of the source (whole
// words; Glossary::find) given as its target term, and each verbatim span
// as itself:
//  - a term whose target term the translation already holds, as often as
//    the source holds the term, is left alone;
//  - otherwise the target words that attended most to the term's source
//    words (`words`, when it describes these texts word for word) are
//    replaced by the target term: the run of such adjacent words around the
//    one that attended most, less short words (three bytes or fewer: "de",
//    "la", "der") at its ends while it has more words than the target term,
//    so that "ennuis de voiture" gives "ennuis de bagnole", not "ennuis
//    bagnole". Punctuation around the run and an elided article before it
//    ("l'", "d'") stay; a term given case-insensitive takes a capital when
//    it replaces the translation's first word and that was capitalised;
//  - when no target word attended most to the term (the model dropped it),
//    the target term goes before the word that attended to it most, as a
//    dropped placeholder does;
//  - without usable attention the source term itself, when the model copied
//    it, is replaced; else the target term is added at the end: a term the
//    user asked for is never silently left out.
// The user's verbatim spans (placeholders.keep_verbatim, --do-not-translate)
// are forced first, each as a case-sensitive term whose target is itself:
// "Sound Juicer" comes out whole where the model wrote "son de son".
// Glossary terms inside a span or a placeholder of the source (an URL) are
// not translated, and placeholders and spans of the translation are never
// edited. With no term or span found the translation comes back unchanged.
std::string force_terms(const std::string& source, const std::string& translation, const Glossary& glossary,
                        const WordAttention* words = nullptr, const PlaceholderOptions& placeholders = {});

}  // namespace nmt
