// Each subcommand lives in its own file and registers itself on the top-level
// app. Commands only parse options and call the engine in lib/.
#pragma once
#include <CLI/CLI.hpp>

namespace nmt::app {

void add_init_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_translate_command(CLI::App& app);
void add_align_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_average_command(CLI::App& app);
void add_score_command(CLI::App& app);
void add_vocab_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_shortlist_command(CLI::App& app);
void add_serve_command(CLI::App& app);
void add_detect_command(CLI::App& app);

}  // namespace nmt::app
