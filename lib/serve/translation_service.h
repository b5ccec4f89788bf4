// The translation side of `nmt serve`: the served models (one copy each),
// one batch queue shared by them (lib/serve/batch_queue.h: a group per model
// and n-best size, a fixed set of decoding threads), and what a translation
// request becomes: its texts cut into lines and sentences exactly as `nmt
// translate` cuts a line, each sentence queued, the answers repaired and
// joined back, LibreTranslate's response or ours (/v1: the alignment JSON
// of `nmt translate --alignments` per line).
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "decode/translation_result.h"
#include "decode/translator.h"
#include "model/model.h"
#include "serve/batch_queue.h"
#include "serve/metrics.h"
#include "serve/request.h"

namespace nmt::serve {

struct ServedModel {
    std::string source, target;  // language codes ("en", "fr")
    std::string domain;          // "" for the pair's general model, else e.g. "captions"
    std::string path;            // for /health
    std::shared_ptr<const Model> model;
    // Its search settings (beam, its tuned length penalty), shortlist and
    // placeholder repair, as nmt translate would use them.
    TranslateOptions options;
};

struct ServiceOptions {
    BatchQueueOptions batching;
    RequestLimits limits;
    std::chrono::milliseconds request_timeout{30000};
    // Lines of several sentences translated sentence by sentence (nmt
    // translate's default; never with alternatives, as with --n-best).
    bool split_sentences = true;
};

// English names of the languages, for /languages ("fr" → "French"); the
// code itself for one not in the table.
std::string language_name(const std::string& code);

struct Translation {
    nlohmann::json body;                // the response's JSON
    std::vector<std::string> warnings;  // cropped sentences, repaired text
};

class TranslationService {
public:
    // Throws nmt::Error for no models, two for the same pair and domain, or
    // batching limits a model's longest sentence would not fit.
    TranslationService(std::vector<ServedModel> models, const ServiceOptions& options);
    ~TranslationService();

    // GET /languages: [{"code", "name", "targets": [...]}, ...] by code.
    nlohmann::json languages() const;
    // POST /translate (ours = false) and /v1/translate (ours = true). Throws
    // ApiError: 400 for languages or a domain not served, html; 413 for more
    // sentences than the queue may hold; 503 (Retry-After) for a full queue,
    // a timeout or shutdown; 500 when decoding failed.
    Translation translate(const TranslateRequest& request, bool ours);
    // POST /detect: [{"confidence": 0-100, "language"}] among the served languages.
    nlohmann::json detect(const std::string& text) const;
    // GET /health.
    nlohmann::json health() const;
    std::string metrics_text() const;
    Metrics& metrics() { return metrics_; }

    // Refuses new translations (503) and returns once every queued one is done.
    void close();

    const std::vector<ServedModel>& models() const { return models_; }
    const ServiceOptions& options() const { return options_; }

private:
    struct Input {
        std::vector<int> ids;  // ending with EOS
    };
    using Queue = BatchQueue<Input, TranslationResult>;

    std::vector<TranslationResult> run_batch(const BatchInfo& info, const std::vector<const Input*>& inputs);
    const ServedModel* find_model(const std::string& source, const std::string& target, const std::string& domain,
                                  int* index) const;

    std::vector<ServedModel> models_;
    ServiceOptions options_;
    std::vector<std::string> languages_;  // every source and target, sorted
    Metrics metrics_;
    // translators_[worker][model]: each worker's own encoder and decoder
    // buffers for each model, made by that worker when it first needs them.
    std::vector<std::vector<std::unique_ptr<Translator>>> translators_;
    std::unique_ptr<Queue> queue_;
};

}  // namespace nmt::serve
