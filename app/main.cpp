// nmt: neural machine translation on one CPU. The entry point only wires the
// subcommands together and turns every error into one line on stderr.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "option_checks.h"
#include "core/error.h"
#include "core/onednn_context.h"

namespace {

constexpr int kUsageError = 64;  // README, "Exit status"

// A single-value option given twice takes its last value, as in Marian and
// OpenNMT: flags appended after a recipe script's own override them
// (tools/train_multi30k.sh de ... --label-smoothing 0.2). CLI11 would refuse
// the second one. Options that collect several values (score's -r) keep all.
void let_last_value_win(CLI::App& command) {
    for (CLI::Option* option : command.get_options())
        if (option->get_items_expected_max() <= 1) option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    for (CLI::App* subcommand : command.get_subcommands([](CLI::App*) { return true; })) let_last_value_win(*subcommand);
}

// Rules every command shares, applied to every option in one place:
//  - no value may be empty: `-i ''` or `-m ''` is a mistake (an unset shell
//    variable), not a request for stdin or the default model;
//  - --threads is 0 (OpenMP's default: OMP_NUM_THREADS or all cores) to 256;
//  - a number is a number of its option's kind before any range is checked
//    (transform() puts the check first): "1e3" is not a whole number, and
//    1e300 no float, whatever range would say of them.
void check_common_values(CLI::App& command) {
    const CLI::Validator non_empty(
        [](std::string& value) { return value.empty() ? std::string("the value is empty") : std::string(); }, "");
    for (CLI::Option* option : command.get_options()) {
        if (option->get_items_expected_max() == 0) continue;  // a flag
        option->check(non_empty);
        const std::string type = option->get_type_name();
        if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0)
            option->transform(nmt::app::whole_number(type.rfind("UINT", 0) == 0));
        else if (type.rfind("FLOAT", 0) == 0)
            option->transform(nmt::app::finite_number());
        if (option->check_lname("threads")) option->check(CLI::Range(0, 256));
    }
    for (CLI::App* subcommand : command.get_subcommands([](CLI::App*) { return true; }))
        check_common_values(*subcommand);
}

// The engine names settings in backticks (`batch_tokens`: core/error.h); the
// user sees the flag of the command they ran (--batch-tokens), or the bare
// name where that command has no such flag.
std::string with_flags(const std::string& message, const CLI::App& app) {
    std::vector<const CLI::App*> commands{&app};
    for (const CLI::App* sub : app.get_subcommands()) commands.push_back(sub);
    std::string out;
    size_t at = 0;
    while (at < message.size()) {
        const size_t open = message.find('`', at), close = open == std::string::npos ? open : message.find('`', open + 1);
        if (close == std::string::npos) break;
        std::string setting = message.substr(open + 1, close - open - 1), flag = "--" + setting;
        for (char& c : flag)
            if (c == '_') c = '-';
        bool known = false;
        for (const CLI::App* command : commands) known = known || command->get_option_no_throw(flag) != nullptr;
        out += message.substr(at, open - at) + (known ? flag : setting);
        at = close + 1;
    }
    return out + message.substr(std::min(at, message.size()));
}

// CLI11 reads an unknown first word as a stray argument and reports only
// that a subcommand is required: name it, and the commands there are.
void refuse_unknown_command(const CLI::App& app, int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return;
    std::string known;
    for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
        if (command->check_name(argv[1])) return;
        known += (known.empty() ? "" : ", ") + command->get_name();
    }
    throw CLI::ExtrasError(std::string("unknown command '") + argv[1] + "' (the commands are " + known + ")",
                           CLI::ExitCodes::ExtrasError);
}

}  // namespace

int main(int argc, char** argv) {
    nmt::prefer_vnni_to_amx();
    CLI::App app{"nmt: neural machine translation on the CPU (oneDNN-accelerated RNN encoder-decoder with attention)"};
#ifdef NMT_MPI
    app.set_version_flag("--version", std::string("nmt ") + NMT_VERSION + " (with MPI: mpirun -np N nmt train)");
#else
    app.set_version_flag("--version", std::string("nmt ") + NMT_VERSION);
#endif
    app.require_subcommand(1);
    nmt::app::add_translate_command(app);
    nmt::app::add_serve_command(app);
    nmt::app::add_detect_command(app);
    nmt::app::add_align_command(app);
    nmt::app::add_vocab_command(app);
    nmt::app::add_train_command(app);
    nmt::app::add_score_command(app);
    nmt::app::add_init_command(app);
    nmt::app::add_info_command(app);
    nmt::app::add_shortlist_command(app);
    nmt::app::add_bench_command(app);
    nmt::app::add_convert_command(app);
    nmt::app::add_average_command(app);
    let_last_value_win(app);
    check_common_values(app);
    try {
        refuse_unknown_command(app, argc, argv);
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version are "errors" with exit code 0: CLI11 prints them.
        if (e.get_exit_code() == 0) return app.exit(e);
        // A usage error is one line like every other error, with one exit
        // code (sysexits' EX_USAGE) instead of CLI11's 105-114 and its
        // second "Run with --help" line.
        std::string message = e.what();
        for (char& c : message)
            if (c == '\n') c = ' ';
        std::cerr << "nmt: error: " << message << " (see nmt --help)\n";
        return kUsageError;
    } catch (const nmt::Error& e) {
        std::cerr << "nmt: error: " << with_flags(e.what(), app) << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "nmt: internal error: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
