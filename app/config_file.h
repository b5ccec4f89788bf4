// nmt train --config FILE: options from a file, JSON ({"batch-tokens": 4000})
// or TOML 1.0 (batch-tokens = 4000; a flag is `quiet = true`). Keys are the
// long option names without dashes; '_' may stand for '-'. Options on the
// command line win.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace nmt::app {

struct ConfigFile {
    std::string path;      // empty: no --config
    std::string contents;  // exactly as read, for the model's provenance
};

// The file, read once (at most 1 MiB: a config is a few hundred bytes, a
// megabyte is a mistake, or /dev/zero).
ConfigFile read_config_file(const std::string& path);

// The key/value items of a config's text. Throws CLI::ConversionError or
// CLI::ParseError saying what is wrong (and where) with text that is neither
// TOML nor flat JSON.
std::vector<CLI::ConfigItem> parse_config_items(const std::string& text);

// Fills each option of COMMAND that a key names, unless the command line
// gave it. Throws nmt::Error "PATH: problem" for an unknown key or section
// and for a value the option refuses.
void apply_config(CLI::App& command, const ConfigFile& file);

}  // namespace nmt::app
