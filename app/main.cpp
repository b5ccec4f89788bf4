// nmt: neural machine translation on one CPU. The entry point only wires the
// subcommands together and turns every error into one line on stderr.
#include <iostream>

#include "commands.h"
#include "error.h"

namespace {

// A single-value option given twice takes its last value, as in Marian and
// OpenNMT: flags appended after a recipe script's own override them
// (tools/train_multi30k.sh de ... --label-smoothing 0.2). CLI11 would refuse
// the second one. Options that collect several values (score's -r) keep all.
void let_last_value_win(CLI::App& command) {
    for (CLI::Option* option : command.get_options())
        if (option->get_items_expected_max() <= 1) option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    for (CLI::App* subcommand : command.get_subcommands([](CLI::App*) { return true; })) let_last_value_win(*subcommand);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"nmt: neural machine translation on the CPU (oneDNN-accelerated RNN encoder-decoder with attention)"};
    app.set_version_flag("--version", std::string("nmt ") + NMT_VERSION);
    app.require_subcommand(1);
    nmt::app::add_translate_command(app);
    nmt::app::add_vocab_command(app);
    nmt::app::add_train_command(app);
    nmt::app::add_score_command(app);
    nmt::app::add_init_command(app);
    nmt::app::add_info_command(app);
    nmt::app::add_bench_command(app);
    nmt::app::add_convert_command(app);
    nmt::app::add_average_command(app);
    let_last_value_win(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const nmt::Error& e) {
        std::cerr << "nmt: error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "nmt: internal error: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
