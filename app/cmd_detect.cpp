// nmt detect: the language of each input line, among the installed models'
// languages (or --among's), one code per line; what --from auto decides.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "commands.h"
#include "core/error.h"
#include "io/input_file.h"
#include "io/text_input.h"
#include "model/model_catalog.h"
#include "text/language_detection.h"

namespace nmt::app {

namespace {

struct DetectCommand {
    std::string input;
    std::vector<std::string> among;
    bool confidence = false;
};

std::vector<std::string> installed_languages() {
    std::set<std::string> languages;
    for (const auto& m : installed_models()) {
        languages.insert(m.source_language);
        languages.insert(m.target_language);
    }
    if (languages.empty())
        throw Error("no models installed to take languages from; name them with --among (e.g. --among en,fr,de)");
    return {languages.begin(), languages.end()};
}

void run(const DetectCommand& o) {
    const std::vector<std::string> among = o.among.empty() ? installed_languages() : o.among;
    for (const auto& language : among)
        if (language.empty()) throw Error("--among: an empty language code; give codes such as en,fr,de");
    const bool from_stdin = o.input.empty() || o.input == "-";
    const int fd = from_stdin ? STDIN_FILENO : open_input(o.input);
    LineReader reader(fd, from_stdin ? "stdin" : o.input, LineLimit{size_t(1) << 20, LineLimit::Longer::Truncate});
    std::string line;
    while (reader.next_line(line)) {
        const LanguageGuess guess = detect_language(line, among);
        // "und" (ISO 639-2's undetermined): nothing to judge, or none of
        // --among's languages; --from auto passes such a line through.
        const std::string code = guess.confidence > 0 ? guess.language : "und";
        if (o.confidence)
            std::printf("%s\t%.2f\n", code.c_str(), guess.confidence);
        else
            std::printf("%s\n", code.c_str());
        // A line typed into a pipe is answered at once.
        if (!reader.more_available_without_blocking() && std::fflush(stdout) != 0)
            throw Error("cannot write to stdout");
    }
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw Error("cannot write to stdout");
    if (!from_stdin) ::close(fd);
}

}  // namespace

void add_detect_command(CLI::App& app) {
    auto o = std::make_shared<DetectCommand>();
    auto* c = app.add_subcommand("detect", "Print the language of each input line (what translate --from auto uses)");
    c->footer("One ISO 639-1 code per input line, in order, among --among's languages; und for a line with "
              "nothing to judge (blank, digits, punctuation) or in none of them. Detection is CLD2's (Compact Language Detector 2).\n");
    c->add_option("-i,--input", o->input, "Input file (default: stdin)");
    c->add_option("--among", o->among, "Comma-separated languages to choose from (default: the installed models')")
        ->delimiter(',')
        ->check(CLI::Validator(
            [](const std::string& code) {
                return code.empty() || detectable_language(code)
                           ? std::string()
                           : "'" + code + "' is not a language code the detector knows (ISO 639-1: en, fr, de, ...)";
            },
            "LANG"));
    c->add_flag("--confidence", o->confidence, "Also print, after a tab, the share of the line in that language (0..1)");
    c->callback([o] { run(*o); });
}

}  // namespace nmt::app
