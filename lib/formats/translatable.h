// Whether a piece of a document has anything for a model to translate: a
// letter outside its placeholders (decode/placeholders.h). A lone "%s: %s",
// a URL or a number is copied as it is, never sent to the model, which
// could only garble it.
#pragma once
#include <string>

namespace nmt {

bool has_letters_outside_placeholders(const std::string& text);

}  // namespace nmt
