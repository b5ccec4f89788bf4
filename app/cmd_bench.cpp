// nmt bench: decoding speed of a model on a file, for several beam and batch
// sizes in one run, so figures are comparable with each other.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "error.h"
#include "onednn_context.h"
#include "text_input.h"
#include "translator.h"

namespace nmt::app {

namespace {

struct BenchOptions {
    std::string model, input;
    std::vector<int> beams = {1, 5}, batches = {1, 32};
    int threads = 2, lines = 0, repeat = 1;
    bool json = false;
};

std::vector<std::string> read_lines(const std::string& path, int limit) {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot open");
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line) && (limit <= 0 || static_cast<int>(lines.size()) < limit))
        lines.push_back(clean_line(line, lines.size() + 1, nullptr));
    return lines;
}

void run(const BenchOptions& o) {
    set_threads(o.threads);
    const Model model = load_model(o.model);
    const auto lines = read_lines(o.input, o.lines);
    Translator translator(model);
    if (!o.json)
        std::cout << "model " << o.model << ", " << lines.size() << " lines of " << o.input << ", " << o.threads
                  << " threads\n"
                  << "beam  batch  sentences/s  target tokens/s  ms/sentence\n";
    for (int beam : o.beams)
        for (int batch : o.batches) {
            TranslateOptions options;
            options.search.beam_size = beam;
            options.batch_size = batch;
            translator.translate({lines.front()}, options);  // warm-up: primitive creation, page faults
            double best = 1e30;
            int64_t tokens = 0;
            for (int r = 0; r < o.repeat; ++r) {
                const auto start = std::chrono::steady_clock::now();
                const auto results = translator.translate(lines, options);
                best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
                tokens = 0;
                for (const auto& res : results)
                    if (!res.hypotheses.empty()) tokens += res.hypotheses[0].target_pieces.size();
            }
            const double sentences_per_s = lines.size() / best, tokens_per_s = tokens / best;
            if (o.json) {
                std::cout << nlohmann::json{{"beam", beam}, {"batch", batch}, {"threads", o.threads},
                                            {"sentences", lines.size()}, {"seconds", best},
                                            {"sentences_per_s", sentences_per_s}, {"target_tokens_per_s", tokens_per_s}}
                                 .dump()
                          << std::endl;
            } else {
                char row[128];
                std::snprintf(row, sizeof row, "%4d  %5d  %11.1f  %15.0f  %11.2f\n", beam, batch, sentences_per_s,
                              tokens_per_s, 1000.0 * best / lines.size());
                std::cout << row << std::flush;
            }
        }
}

}  // namespace

void add_bench_command(CLI::App& app) {
    auto o = std::make_shared<BenchOptions>();
    auto* c = app.add_subcommand("bench", "Measure decoding speed (sentences/s, target tokens/s)");
    c->add_option("-m,--model", o->model, "Model file")->required();
    c->add_option("-i,--input", o->input, "Source sentences, one per line")->required();
    c->add_option("--beam-sizes", o->beams, "Beam sizes to measure")->delimiter(',')->capture_default_str();
    c->add_option("--batch-sizes", o->batches, "Batch sizes to measure")->delimiter(',')->capture_default_str();
    c->add_option("--threads", o->threads, "CPU threads")->capture_default_str();
    c->add_option("--lines", o->lines, "Use only the first N lines (0 = all)")->capture_default_str();
    c->add_option("--repeat", o->repeat, "Runs per setting; the fastest counts")->capture_default_str();
    c->add_flag("--json", o->json, "One JSON object per setting");
    c->callback([o] { run(*o); });
}

}  // namespace nmt::app
