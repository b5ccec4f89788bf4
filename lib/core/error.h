// One exception type for everything a user can act on. The CLI prints what()
// on one line of stderr and exits non-zero; the message names the file or the
// setting and the problem ("model.nmt: tensor decoder.W has shape [2,3], expected [3,3]").
//
// The engine knows settings, not command-line flags: a message names a
// setting in backticks, as its field is called (`batch_tokens`), and the CLI
// shows the flag that sets it (--batch-tokens) where the command has one.
#pragma once
#include <stdexcept>
#include <string>

namespace nmt {

struct Error : std::runtime_error {
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace nmt
