#include "config_file.h"

#include <cstdio>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "core/error.h"
#include "io/input_file.h"

namespace nmt::app {

namespace {

// A TOML value as the text an option parses: numbers, text and true/false;
// anything else (a date, a table, a list of lists) has no option to go to.
std::string option_text(const toml::node& node, const std::string& key) {
    if (const auto* text = node.as_string()) return text->get();
    if (const auto* integer = node.as_integer()) return std::to_string(integer->get());
    if (const auto* boolean = node.as_boolean()) return boolean->get() ? "true" : "false";
    if (const auto* number = node.as_floating_point()) {
        char digits[40];
        std::snprintf(digits, sizeof digits, "%.17g", number->get());
        return digits;
    }
    throw CLI::ConversionError("line " + std::to_string(node.source().begin.line) + ": key '" + key +
                               "' holds a value no option takes (numbers, text, true or false, or a list of them)");
}

// Keys of `table` as options: a list's items are the option's values, and a
// table one level down is a section (the caller decides which it accepts).
void add_toml_items(const toml::table& table, const std::vector<std::string>& parents,
                    std::vector<CLI::ConfigItem>& items) {
    for (const auto& [key, node] : table) {
        const std::string name(key.str());
        if (const auto* section = node.as_table()) {
            if (!parents.empty())
                throw CLI::ConversionError("line " + std::to_string(node.source().begin.line) + ": section '" +
                                           parents[0] + "." + name + "' is nested; sections are one level deep");
            add_toml_items(*section, {name}, items);
            continue;
        }
        CLI::ConfigItem item;
        item.parents = parents;
        item.name = name;
        for (char& c : item.name)
            if (c == '_') c = '-';
        if (const auto* list = node.as_array())
            for (const auto& value : *list) item.inputs.push_back(option_text(value, name));
        else
            item.inputs.push_back(option_text(node, name));
        items.push_back(std::move(item));
    }
}

// toml++ 3.3 (Debian bookworm's) reaches __builtin_unreachable() in its
// whitespace test for most characters from U+00A1 to U+0499 met outside a
// string (is_non_ascii_horizontal_whitespace: undefined behaviour, found by
// fuzz_config_file), and on malformed text it cannot be told in advance where
// toml++ will think a string ends. So a TOML config is ASCII but for lines
// that are comments as a whole, which no reading can take for anything else;
// a JSON config takes any text.
void refuse_non_ascii(const std::string& text) {
    int line = 1;
    for (size_t begin = 0; begin < text.size(); ++line) {
        size_t end = text.find('\n', begin);
        if (end == std::string::npos) end = text.size();
        const size_t first = text.find_first_not_of(" \t", begin);
        const bool comment = first < end && text[first] == '#';
        for (size_t i = begin; i < end && !comment; ++i)
            if (static_cast<unsigned char>(text[i]) >= 0x80)
                throw CLI::ConversionError("line " + std::to_string(line) +
                                           ": a non-ASCII character; a TOML config is ASCII here (toml++ 3.3 "
                                           "mishandles others) but for comment lines: write it as JSON");
        begin = end + 1;
    }
}

// TOML 1.0 through toml++ (a complete parser of the standard: CLI11's own
// reader took a broken `warmup = [1,2` for a value and a bare name for
// `true`, inventing settings the user never wrote).
std::vector<CLI::ConfigItem> toml_items(const std::string& text) {
    refuse_non_ascii(text);
    toml::table table;
    try {
        table = toml::parse(text);
    } catch (const toml::parse_error& e) {
        throw CLI::ConversionError("line " + std::to_string(e.source().begin.line) + ": " +
                                   std::string(e.description()) +
                                   " (not valid TOML, where every setting is 'key = value'; a JSON config starts "
                                   "with '{')");
    }
    std::vector<CLI::ConfigItem> items;
    add_toml_items(table, {}, items);
    return items;
}

std::vector<CLI::ConfigItem> json_items(const std::string& text) {
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw CLI::ConversionError(std::string("not valid JSON (") + e.what() + ")");
    }
    std::vector<CLI::ConfigItem> items;
    for (const auto& [key, value] : json.items()) {
        CLI::ConfigItem item;
        item.name = key;
        for (char& c : item.name)
            if (c == '_') c = '-';
        auto text_of = [&](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
        if (value.is_array())
            for (const auto& v : value) item.inputs.push_back(text_of(v));
        else if (value.is_object())
            throw CLI::ConversionError("key '" + key + "' holds an object; values must be flat");
        else
            item.inputs.push_back(text_of(value));
        items.push_back(std::move(item));
    }
    return items;
}

}  // namespace

ConfigFile read_config_file(const std::string& path) {
    return {path, read_small_file(path, size_t(1) << 20, "a config file")};
}

std::vector<CLI::ConfigItem> parse_config_items(const std::string& text) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{') return json_items(text);
    return toml_items(text);
}

// CLI11 (2.1) reads config files for the main app only, so the subcommand
// applies its own, as CLI11 would: each key fills the option of that long
// name unless the command line gave it. A [train] section is accepted too.
void apply_config(CLI::App& command, const ConfigFile& file) {
    const std::string& path = file.path;
    std::vector<CLI::ConfigItem> items;
    try {
        items = parse_config_items(file.contents);
    } catch (const CLI::Error& e) {
        throw Error(path + ": " + e.what());
    }
    for (const CLI::ConfigItem& item : items) {
        if (!item.parents.empty() && !(item.parents.size() == 1 && item.parents[0] == "train"))
            throw Error(path + ": unknown section '" + item.fullname() + "' (use top-level keys or [train])");
        CLI::Option* option = command.get_option_no_throw("--" + item.name);
        if (option == nullptr || item.name == "config" || item.name == "help")
            throw Error(path + ": unknown option '" + item.name + "' (keys are long option names of nmt train)");
        if (option->count() > 0) continue;
        try {
            if (option->get_expected_min() == 0)
                option->add_result(option->get_flag_value(item.name, item.inputs.empty() ? "true" : item.inputs[0]));
            else
                option->add_result(item.inputs);
            option->run_callback();
        } catch (const CLI::Error& e) {
            throw Error(path + ": " + e.what());
        }
    }
}

}  // namespace nmt::app
