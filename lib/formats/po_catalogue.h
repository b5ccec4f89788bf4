// gettext catalogues (PO and POT files) translated message by message,
// read and written by libgettextpo, gettext's own parser and writer, so that
// what comes out is what msgfmt and every PO editor read.
//
//  - Each message without a translation gets one in msgstr; a plural message
//    gets msgid's translation in msgstr[0] and msgid_plural's in every other
//    msgstr[n] that the target language's Plural-Forms asks for (the
//    header's, else the language's usual rule, which is then written there).
//    A language of one form gets msgid_plural's.
//  - Messages already translated are kept, unless overwrite_translated.
//  - Every machine translation is marked "#, fuzzy", so that gettext
//    ignores it until a reviewer clears the mark.
//  - A message is translated piece by piece, cut where its layout is: at its
//    "\n", at tabs and runs of two or more spaces (the columns of --help
//    text), its leading and trailing whitespace set apart; the layout comes
//    back byte for byte. Pieces without letters (a lone "%s: %s") and option
//    names ("-h, --help") are copied.
//  - Placeholders (%s, %1$d, %(name)s, {name}; decode/placeholders.h) come
//    out as in the source: the translator keeps them, and unnumbered ones
//    (%s, %d, {}) are put back in the source's order, which C and Python
//    need; a message that still fails gettext's format check is left
//    untranslated with a warning.
//  - An accelerator (_File, &File: one '_' or '&' before a letter, in a
//    label of at most four words) is taken out before translating and put
//    back on the target word aligned to its word, else on the first word.
//  - The header's Language is set, and its charset to UTF-8. A catalogue in
//    another charset is refused (msgconv --to-code=UTF-8 converts it), as is
//    a malformed one, naming the file and line; nothing is written then.
#pragma once
#include <string>

#include "formats/document_format.h"

namespace nmt {

std::string translate_po(const std::string& text, const std::string& name, SegmentTranslator& translator,
                         const DocumentOptions& options);

// The Plural-Forms header value gettext's manual gives for a language
// ("fr" or "fr_FR": "nplurals=2; plural=(n > 1);"); "" for one it lacks.
std::string usual_plural_forms(const std::string& language);

// The nplurals of a Plural-Forms value, 0 when it has none (POT's
// "nplurals=INTEGER").
int plural_count(const std::string& plural_forms);

}  // namespace nmt
