// The translation side of `nmt serve`: the served models (one copy each),
// one batch queue shared by them (lib/serve/batch_queue.h: a group per model
// and n-best size, a fixed set of decoding threads), and what a translation
// request becomes: its texts cut into lines and sentences exactly as `nmt
// translate` cuts a line, each sentence queued, the answers repaired and
// joined back, LibreTranslate's response or ours (/v1: the alignment JSON
// of `nmt translate --alignments` per line). An html text (format html) is
// a document as `nmt translate --format html` reads one: its running text's
// sentences go through the same queue, and it comes back with its markup.
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "decode/translation_result.h"
#include "decode/translator.h"
#include "model/model.h"
#include "serve/batch_queue.h"
#include "serve/html_text.h"
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
    // ApiError: 400 for languages or a domain not served, or alignments
    // asked for html; 413 for more sentences than the queue may hold; 503
    // (Retry-After) for a full queue, a timeout or shutdown; 500 when
    // decoding failed.
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
    // A request's sentences, by group, as they will be queued.
    using Submissions = std::map<int, std::vector<Queue::Sentence>>;
    // Where a queued sentence's result will be: its group and its index in
    // that group's submission; group -1 for a sentence with no pieces.
    struct Slot {
        int group = -1;
        size_t index = 0;
    };
    // Each text's answer: translatedText, alternatives, /v1's alignments.
    struct Answers {
        nlohmann::json translated = nlohmann::json::array(), alternatives = nlohmann::json::array(),
                       alignments = nlohmann::json::array();
    };

    std::vector<TranslationResult> run_batch(const BatchInfo& info, const std::vector<const Input*>& inputs);
    // `sentence` encoded for models_[model] as nmt translate encodes it and
    // added to `submissions`; cropped, a warning for `line_number`.
    Slot add_sentence(Submissions& submissions, int model, int n_best, const std::string& sentence,
                      int64_t line_number, std::vector<std::string>& warnings) const;
    // Queues every sentence of a request, all or none (413 for more than the
    // queue may hold, 503 for a full queue or shutdown), and waits for all
    // of them within the request timeout (503), or a failed batch (500).
    std::map<int, std::vector<TranslationResult>> run_all(Submissions submissions);
    // format text: each text's lines and sentences as nmt translate reads them.
    Answers translate_text(const TranslateRequest& request, const std::vector<int>& model_of, bool ours,
                           std::vector<std::string>& warnings);
    // format html: each text as nmt translate --format html translates a document.
    Answers translate_html(const TranslateRequest& request, const std::vector<HtmlText>& documents,
                           const std::vector<int>& model_of, std::vector<std::string>& warnings);
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
