// nmt: neural machine translation on one CPU. The entry point only wires the
// subcommands together and turns every error into one line on stderr.
#include <iostream>

#include "commands.h"
#include "error.h"

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
