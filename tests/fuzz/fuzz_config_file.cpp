// `nmt train --config FILE`: JSON or TOML text, applied to options of each
// kind the trainer has (integer, number, text, list, flag). Anything but
// applied options or an nmt::Error naming the file is a finding.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config_file.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const nmt::app::ConfigFile file{"fuzz.conf", std::string(reinterpret_cast<const char*>(data), size)};
    CLI::App app;
    CLI::App* train = app.add_subcommand("train");
    int64_t batch_tokens = 0;
    float lr = 0;
    std::string valid_source;
    std::vector<float> alphas;
    bool quiet = false;
    train->add_option("--batch-tokens", batch_tokens)->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
    train->add_option("--lr", lr);
    train->add_option("--valid-source", valid_source);
    train->add_option("--sentencepiece-alphas", alphas)->expected(1, 2);
    train->add_flag("--quiet", quiet);
    train->add_option("--config", valid_source);
    try {
        nmt::app::apply_config(*train, file);
    } catch (const nmt::Error& e) {
        if (std::string(e.what()).rfind("fuzz.conf: ", 0) != 0) std::abort();  // errors name the file
    }
    return 0;
}
