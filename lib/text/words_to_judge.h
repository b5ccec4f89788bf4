// The part of a text that says which language it is in. Software messages
// and documents carry much that is in no language: markup tags, printf and
// brace placeholders (%s, %1$d, {name}), URLs, and the accelerator marks of
// GTK and KDE menus ("_Open", "&Datei"), which split a word in two. On
// short messages those are most of the text and mislead a character-n-gram
// detector; without them CLD2 judges the words alone.
#pragma once
#include <string>
#include <string_view>

namespace nmt {

// `text` with tags, placeholders and URLs replaced by a space and accelerator
// marks inside or before a word removed. One pass, linear in the text.
std::string words_to_judge(std::string_view text);

}  // namespace nmt
