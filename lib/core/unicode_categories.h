// The Unicode facts sacreBLEU's text handling rests on, reproduced from the
// Python runtime it runs on (the tables are generated from Python itself by
// tools/gen_unicode_categories.py into unicode_categories.cpp), so that
// tokenization, whitespace splitting and lowercasing agree character for
// character with sacreBLEU.
#pragma once
#include <string>

namespace nmt {

// The `regex` module's \p{P}, \p{S} and \p{N}, used by the intl tokenizer.
bool is_punctuation(char32_t c);
bool is_symbol(char32_t c);
bool is_number(char32_t c);

// Python's str.isspace(): what str.split() and str.rstrip() treat as space.
bool is_space(char32_t c);

// The two properties Python's Final_Sigma rule consults in str.lower().
// is_cased is only meaningful for characters that are not case-ignorable.
bool is_case_ignorable(char32_t c);
bool is_cased(char32_t c);

// Appends Python's str.lower() of one character (U+0130 becomes two), except
// that capital sigma is left to the caller, which knows its context.
void append_lower(char32_t c, std::u32string& out);

}  // namespace nmt
