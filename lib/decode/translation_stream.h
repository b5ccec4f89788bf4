// The translate loop: lines in, exactly one output per line out, in order.
// It translates whatever input is already waiting as one chunk (a file or a
// full pipe batches for throughput) but never waits for more than one line
// (a line typed into a pipe is answered at once), and flushes after each chunk.
// With a LanguageRouter (--from auto) each line goes to the model of the
// language it is detected in: a chunk's lines are batched per model and
// written back in input order.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "io/text_input.h"
#include "decode/language_router.h"
#include "decode/translator.h"

namespace nmt {

enum class OutputFormat { Text, NBest, JsonLines };

struct StreamStats {
    int64_t lines = 0;
    int64_t target_tokens = 0;
    double seconds = 0;
};

struct StreamOptions {
    TranslateOptions translate;
    OutputFormat format = OutputFormat::Text;
    std::FILE* alignments = nullptr;  // JSON Lines of alignment objects, when wanted
    std::string svg_directory;        // one heatmap per non-empty line, when wanted
    // Repaired or cropped lines ("line 7: ..."), after each chunk; none when empty.
    std::function<void(const std::string&)> warn;
    // The running totals after each chunk is written (a progress display).
    std::function<void(const StreamStats&)> progress;
    // With a router: each line's route (line numbers from 1), in input order,
    // before its chunk is translated (-v reports them).
    std::function<void(int64_t line, const LanguageRoute&)> on_route;
    // A line of several sentences is translated sentence by sentence and
    // rejoined (lib/decode/sentence_translation.h). Not with n-best lists (n_best > 1),
    // which would have to be combined across sentences: those lines are
    // translated whole.
    bool split_sentences = true;
    int max_chunk_lines = 512;  // and at most about as many sentences
    size_t max_chunk_bytes = size_t(4) << 20;  // a chunk ends after the line that passes this
};

StreamStats translate_stream(Translator& translator, LineReader& input, std::FILE* output,
                             const StreamOptions& options);

// Each line translated by the model its language routes it to (each model's
// own options.translate, batch_size and parallel_batches taken from
// `options`), or written unchanged where the route has none (with a warning
// "line N: <note>" where the route gives a note). JSON Lines objects get
// "source_language" (null when nothing could be judged) and
// "passed_through".
StreamStats translate_stream(LanguageRouter& router, LineReader& input, std::FILE* output,
                             const StreamOptions& options);

}  // namespace nmt
