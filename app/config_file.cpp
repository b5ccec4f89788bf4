#include "config_file.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/input_file.h"

namespace nmt::app {

namespace {

// CLI11 reads a line without '=' as a flag's name, so a file that is neither
// TOML nor JSON came out as "unknown option 'garbage{{'". A line must be
// blank, a comment, a [section], `key = value`, or a bare name.
void check_toml_lines(const std::string& text) {
    std::istringstream lines(text);
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
        const size_t begin = line.find_first_not_of(" \t\r");
        if (begin == std::string::npos || line[begin] == '#' || line[begin] == ';' || line[begin] == '[' ||
            line.find('=') != std::string::npos)
            continue;
        const size_t end = line.find_last_not_of(" \t\r");
        const bool bare_name = std::all_of(line.begin() + begin, line.begin() + end + 1, [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
        });
        if (!bare_name)
            throw CLI::ConversionError("line " + std::to_string(number) +
                                       " is not 'key = value': the file is neither TOML nor JSON "
                                       "(a JSON config starts with '{')");
    }
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
    check_toml_lines(text);
    std::istringstream toml(text);
    return CLI::ConfigTOML().from_config(toml);
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
        if (item.name == "++" || item.name == "--") continue;  // section markers
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
