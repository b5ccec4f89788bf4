#include "serve/translation_service.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/error.h"
#include "decode/alignment_output.h"
#include "decode/sentence_translation.h"
#include "decode/source_encoding.h"
#include "formats/segment_sentences.h"
#include "io/text_input.h"
#include "text/language_detection.h"

namespace nmt::serve {

namespace {

// Groups of the batch queue: a model and the n-best size its sentences are
// searched with (sentences searched differently cannot share a batch).
constexpr int kGroupsPerModel = 1024;

int group_of(int model, int n_best) { return model * kGroupsPerModel + n_best; }

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    size_t begin = 0;
    for (;;) {
        const size_t end = text.find('\n', begin);
        if (end == std::string::npos) {
            lines.push_back(text.substr(begin));
            return lines;
        }
        lines.push_back(text.substr(begin, end - begin));
        begin = end + 1;
    }
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
    return out;
}

double percent(double confidence) { return std::round(confidence * 1000.0) / 10.0; }

}  // namespace

std::string language_name(const std::string& code) {
    static const std::map<std::string, std::string> names = {
        {"ar", "Arabic"},  {"cs", "Czech"},    {"da", "Danish"},    {"de", "German"},   {"el", "Greek"},
        {"en", "English"}, {"es", "Spanish"},  {"et", "Estonian"},  {"fi", "Finnish"},  {"fr", "French"},
        {"hu", "Hungarian"}, {"it", "Italian"}, {"ja", "Japanese"}, {"ko", "Korean"},   {"lt", "Lithuanian"},
        {"lv", "Latvian"}, {"nl", "Dutch"},    {"pl", "Polish"},    {"pt", "Portuguese"}, {"ro", "Romanian"},
        {"ru", "Russian"}, {"sk", "Slovak"},   {"sl", "Slovenian"}, {"sv", "Swedish"},  {"tr", "Turkish"},
        {"uk", "Ukrainian"}, {"zh", "Chinese"}};
    const auto it = names.find(code);
    return it == names.end() ? code : it->second;
}

TranslationService::TranslationService(std::vector<ServedModel> models, const ServiceOptions& options)
    : models_(std::move(models)), options_(options) {
    if (models_.empty()) throw Error("no models to serve");
    std::set<std::string> languages, names;
    for (const ServedModel& m : models_) {
        const std::string name = m.source + "-" + m.target + (m.domain.empty() ? "" : "." + m.domain);
        if (!names.insert(name).second) throw Error("two models to serve as " + name);
        if (m.model->config.max_source_pieces > options_.batching.max_batch_tokens)
            throw Error("`max_batch_tokens` is " + std::to_string(options_.batching.max_batch_tokens) + ", below " +
                        name + "'s longest sentence (" + std::to_string(m.model->config.max_source_pieces) +
                        " pieces): a batch must hold at least one sentence");
        languages.insert(m.source);
        languages.insert(m.target);
    }
    languages_.assign(languages.begin(), languages.end());
    translators_.resize(options_.batching.threads);
    for (auto& row : translators_) row.resize(models_.size());
    queue_ = std::make_unique<Queue>(options_.batching, [this](const BatchInfo& info, const std::vector<const Input*>& in) {
        return run_batch(info, in);
    });
}

TranslationService::~TranslationService() { close(); }

void TranslationService::close() {
    if (queue_) queue_->close();
}

std::vector<TranslationResult> TranslationService::run_batch(const BatchInfo& info,
                                                             const std::vector<const Input*>& inputs) {
    const int model_index = info.group / kGroupsPerModel;
    const int n_best = info.group % kGroupsPerModel;
    const ServedModel& served = models_.at(model_index);
    std::unique_ptr<Translator>& translator = translators_.at(info.worker).at(model_index);
    if (!translator) translator = std::make_unique<Translator>(*served.model);
    TranslateOptions options = served.options;
    options.search.n_best = n_best;
    options.search.beam_size = std::max(options.search.beam_size, n_best);
    options.batch_size = static_cast<int>(inputs.size());  // one batch, as the queue formed it
    options.parallel_batches = 1;
    std::vector<std::vector<int>> ids;
    ids.reserve(inputs.size());
    for (const Input* input : inputs) ids.push_back(input->ids);
    omp_set_num_threads(info.threads);
    const auto started = std::chrono::steady_clock::now();
    std::vector<TranslationResult> results = translator->translate_ids(ids, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    int64_t target_tokens = 0;
    for (const TranslationResult& r : results)
        if (!r.hypotheses.empty()) target_tokens += static_cast<int64_t>(r.hypotheses[0].target_pieces.size());
    metrics_.batch(inputs.size(), info.padded_tokens, target_tokens, seconds);
    return results;
}

const ServedModel* TranslationService::find_model(const std::string& source, const std::string& target,
                                                  const std::string& domain, int* index) const {
    // The pair's model of the domain asked for; without one, its general
    // model, else its only one (as nmt translate --from/--to choose).
    const ServedModel* only = nullptr;
    int count = 0, only_index = -1;
    for (size_t i = 0; i < models_.size(); ++i) {
        const ServedModel& m = models_[i];
        if (m.source != source || m.target != target) continue;
        if (m.domain == domain) {
            *index = static_cast<int>(i);
            return &m;
        }
        ++count;
        only = &m;
        only_index = static_cast<int>(i);
    }
    if (domain.empty() && count == 1) {
        *index = only_index;
        return only;
    }
    return nullptr;
}

nlohmann::json TranslationService::languages() const {
    nlohmann::json out = nlohmann::json::array();
    for (const std::string& code : languages_) {
        std::set<std::string> targets;
        for (const ServedModel& m : models_)
            if (m.source == code) targets.insert(m.target);
        out.push_back({{"code", code}, {"name", language_name(code)}, {"targets", targets}});
    }
    return out;
}

nlohmann::json TranslationService::detect(const std::string& text) const {
    const LanguageGuess guess = detect_language(text, languages_);
    return nlohmann::json::array({{{"confidence", percent(guess.confidence)}, {"language", guess.language}}});
}

nlohmann::json TranslationService::health() const {
    nlohmann::json models = nlohmann::json::array();
    for (const ServedModel& m : models_)
        models.push_back({{"source", m.source}, {"target", m.target}, {"domain", m.domain}, {"path", m.path}});
    const QueueStats stats = queue_->stats();
    return {{"status", "ok"},
            {"models", models},
            {"queue_sentences", stats.waiting},
            {"busy_workers", stats.busy_workers},
            {"workers", options_.batching.threads}};
}

std::string TranslationService::metrics_text() const {
    const QueueStats stats = queue_->stats();
    return metrics_.text(stats.waiting, stats.busy_workers, options_.batching.threads);
}

TranslationService::Slot TranslationService::add_sentence(Submissions& submissions, int model, int n_best,
                                                          const std::string& sentence, int64_t line_number,
                                                          std::vector<std::string>& warnings) const {
    const ServedModel& served = models_[model];
    const int limit = served.model->config.max_source_pieces;
    SourceIds source = encode_source(served.model->source_vocab, limit, sentence);
    if (source.cropped) warnings.push_back(Translator::cropped_warning(line_number, limit));
    if (source.ids.empty()) return {};
    Input input;
    input.ids = std::move(source.ids);
    const int group = group_of(model, n_best);
    auto& list = submissions[group];
    const Slot slot{group, list.size()};
    const int tokens = static_cast<int>(input.ids.size());
    list.push_back({std::move(input), tokens});
    return slot;
}

std::map<int, std::vector<TranslationResult>> TranslationService::run_all(Submissions submissions) {
    size_t sentence_count = 0;
    for (const auto& [group, list] : submissions) sentence_count += list.size();
    const size_t max_queue = options_.batching.max_queue;
    if (sentence_count > max_queue)
        throw ApiError(413, "Invalid request: " + std::to_string(sentence_count) +
                                " sentences to translate, more than the server queues at once (" +
                                std::to_string(max_queue) + ")");

    // Queue them all, then wait for all, within the request's time.
    std::map<int, Queue::Ticket> tickets;
    const auto cancel_all = [&] {
        for (auto& [group, ticket] : tickets) queue_->cancel(ticket.request);
    };
    try {
        for (auto& [group, list] : submissions) tickets.emplace(group, queue_->submit(group, std::move(list)));
    } catch (const QueueFull&) {
        cancel_all();
        throw ApiError(503, "the translation queue is full; retry later", 1);
    } catch (const QueueClosed&) {
        cancel_all();
        throw ApiError(503, "the server is shutting down", 1);
    }
    const auto deadline = std::chrono::steady_clock::now() + options_.request_timeout;
    std::map<int, std::vector<TranslationResult>> answers;
    for (auto& [group, ticket] : tickets) {
        if (ticket.results.wait_until(deadline) != std::future_status::ready) {
            cancel_all();
            char message[128];
            std::snprintf(message, sizeof message,
                          "the translation took longer than the request timeout (%g s); retry later",
                          options_.request_timeout.count() / 1000.0);
            throw ApiError(503, message, 1);
        }
        try {
            answers[group] = ticket.results.get();
        } catch (const std::exception& e) {
            cancel_all();
            throw ApiError(500, std::string("Cannot translate text: ") + e.what());
        }
    }
    return answers;
}

Translation TranslationService::translate(const TranslateRequest& request, bool ours) {
    Translation out;
    const size_t texts = request.texts.size();
    const bool html = request.format == "html";
    if (html && ours && request.alignments)
        throw ApiError(400, "alignments are given for plain text only (format: text), not for html");
    // Languages, LibreTranslate's way: the target first, then each text's source.
    if (!std::binary_search(languages_.begin(), languages_.end(), request.target))
        throw ApiError(400, request.target + " is not supported");
    const bool detect = request.source == "auto";
    if (!detect && request.source != request.target &&
        !std::binary_search(languages_.begin(), languages_.end(), request.source))
        throw ApiError(400, request.source + " is not supported");
    // An html text is parsed first: its language is that of its running
    // text, not of its tags and attributes.
    std::vector<HtmlText> documents;
    if (html)
        for (const std::string& text : request.texts) documents.emplace_back(text);
    std::vector<std::string> sources(texts, request.source);
    nlohmann::json detected = nlohmann::json::array();
    if (detect)
        for (size_t t = 0; t < texts; ++t) {
            const LanguageGuess guess =
                detect_language(html ? join(documents[t].segments(), "\n") : request.texts[t], languages_);
            sources[t] = guess.language;
            detected.push_back({{"confidence", percent(guess.confidence)}, {"language", guess.language}});
        }
    // A text already in the target language is its own translation.
    std::vector<int> model_of(texts, -1);
    for (size_t t = 0; t < texts; ++t) {
        if (sources[t] == request.target) continue;
        int index = -1;
        if (!find_model(sources[t], request.target, request.domain, &index)) {
            if (!request.domain.empty())
                throw ApiError(400, "no " + request.domain + " model from " + language_name(sources[t]) + " (" +
                                        sources[t] + ") to " + language_name(request.target) + " (" +
                                        request.target + ")");
            throw ApiError(400, language_name(request.target) + " (" + request.target +
                                    ") is not available as a target language from " + language_name(sources[t]) +
                                    " (" + sources[t] + ")");
        }
        model_of[t] = index;
    }

    const Answers answers = html ? translate_html(request, documents, model_of, out.warnings)
                                 : translate_text(request, model_of, ours, out.warnings);
    nlohmann::json& body = out.body;
    body = nlohmann::json::object();
    body["translatedText"] = request.list ? answers.translated : answers.translated[0];
    if (detect) body["detectedLanguage"] = request.list ? detected : detected[0];
    if (request.alternatives > 0) body["alternatives"] = request.list ? answers.alternatives : answers.alternatives[0];
    if (ours) {
        if (request.alignments) body["alignments"] = request.list ? answers.alignments : answers.alignments[0];
        body["warnings"] = out.warnings;
    }
    return out;
}

TranslationService::Answers TranslationService::translate_text(const TranslateRequest& request,
                                                               const std::vector<int>& model_of, bool ours,
                                                               std::vector<std::string>& warnings_out) {
    // Each text's lines as nmt translate reads lines, each line's sentences
    // as it cuts them; every sentence with pieces goes to its model's queue.
    const size_t texts = request.texts.size();
    const int n_best = request.alternatives + 1;
    const bool split = options_.split_sentences && n_best == 1;
    struct Line {
        std::string text;  // cleaned
        LineSentences sentences;
        std::vector<TranslationResult> results;  // one per sentence
        std::vector<Slot> slots;                 // one per sentence
    };
    std::vector<std::vector<Line>> lines(texts);
    Submissions submissions;
    for (size_t t = 0; t < texts; ++t) {
        int64_t line_number = 0;  // within the text
        const std::string prefix = request.list ? "text " + std::to_string(t + 1) + ", " : "";
        for (std::string& raw : split_lines(request.texts[t])) {
            ++line_number;
            Line line;
            std::vector<std::string> warnings;
            line.text = clean_line(std::move(raw), line_number, &warnings);
            line.sentences = line_sentences(line.text, split);
            line.results.resize(line.sentences.sentences.size());
            for (const std::string& sentence : line.sentences.sentences)
                line.slots.push_back(model_of[t] < 0 ? Slot{}
                                                     : add_sentence(submissions, model_of[t], n_best, sentence,
                                                                    line_number, warnings));
            for (const std::string& w : warnings) warnings_out.push_back(prefix + w);
            lines[t].push_back(std::move(line));
        }
    }
    std::map<int, std::vector<TranslationResult>> results = run_all(std::move(submissions));

    // Each line's sentences repaired and joined back as nmt translate joins them.
    Answers answers;
    for (size_t t = 0; t < texts; ++t) {
        std::vector<std::string> best;
        std::vector<std::vector<std::string>> others(static_cast<size_t>(request.alternatives));
        nlohmann::json text_alignments = nlohmann::json::array();
        for (size_t l = 0; l < lines[t].size(); ++l) {
            Line& line = lines[t][l];
            if (model_of[t] < 0) {  // already in the target language
                best.push_back(line.text);
                continue;
            }
            const ServedModel& served = models_[model_of[t]];
            for (size_t k = 0; k < line.slots.size(); ++k) {
                const Slot slot = line.slots[k];
                if (slot.group < 0) continue;
                line.results[k] = std::move(results.at(slot.group).at(slot.index));
                if (served.options.repair_placeholders)
                    Translator::repair_placeholders(line.sentences.sentences[k], line.results[k]);
            }
            const TranslationResult merged =
                merge_translation_results(line.results, line.sentences.separators, ours && request.alignments);
            const std::string first = merged.hypotheses.empty() ? "" : merged.hypotheses[0].translation;
            best.push_back(first);
            for (int a = 0; a < request.alternatives; ++a) {
                const size_t h = static_cast<size_t>(a) + 1;
                others[a].push_back(h < merged.hypotheses.size() ? merged.hypotheses[h].translation : first);
            }
            if (ours && request.alignments) text_alignments.push_back(alignment_json(static_cast<int64_t>(l), merged, line.text));
        }
        const std::string text = join(best, "\n");
        // LibreTranslate's alternatives: the other hypotheses, each once, none equal to the translation.
        std::vector<std::string> unique;
        for (const auto& lines_of : others) {
            const std::string alternative = join(lines_of, "\n");
            if (alternative != text && std::find(unique.begin(), unique.end(), alternative) == unique.end())
                unique.push_back(alternative);
        }
        answers.translated.push_back(text);
        answers.alternatives.push_back(unique);
        answers.alignments.push_back(std::move(text_alignments));
    }
    return answers;
}

TranslationService::Answers TranslationService::translate_html(const TranslateRequest& request,
                                                               const std::vector<HtmlText>& documents,
                                                               const std::vector<int>& model_of,
                                                               std::vector<std::string>& warnings_out) {
    // Every text's segments cut into sentences as nmt translate --format
    // html cuts them (one translation each: no alternatives), all of them
    // queued at once, with the text requests' sentences of the same model.
    const size_t texts = documents.size();
    std::vector<SegmentSentences> sentences(texts);
    std::vector<std::vector<Slot>> slots(texts);
    Submissions submissions;
    for (size_t t = 0; t < texts; ++t) {
        if (model_of[t] < 0) continue;
        sentences[t] = cut_segments(documents[t].segments(), options_.split_sentences);
        std::vector<std::string> warnings;
        for (size_t k = 0; k < sentences[t].texts.size(); ++k)
            slots[t].push_back(add_sentence(submissions, model_of[t], 1, sentences[t].texts[k],
                                            static_cast<int64_t>(k) + 1, warnings));
        const std::string prefix = request.list ? "text " + std::to_string(t + 1) + ", " : "";
        for (const std::string& w : warnings) warnings_out.push_back(prefix + segment_warning(w, sentences[t].segment_of));
    }
    std::map<int, std::vector<TranslationResult>> results = run_all(std::move(submissions));

    // Each text written back with its translations, as nmt translate writes
    // a document; LibreTranslate gives no alternatives for html.
    Answers answers;
    for (size_t t = 0; t < texts; ++t) {
        answers.alternatives.push_back(nlohmann::json::array());
        if (model_of[t] < 0) {  // already in the target language: as it came
            answers.translated.push_back(request.texts[t]);
            continue;
        }
        const ServedModel& served = models_[model_of[t]];
        std::vector<TranslationResult> sentence_results(slots[t].size());
        for (size_t k = 0; k < slots[t].size(); ++k) {
            const Slot slot = slots[t][k];
            if (slot.group < 0) continue;
            sentence_results[k] = std::move(results.at(slot.group).at(slot.index));
            if (served.options.repair_placeholders)
                Translator::repair_placeholders(sentences[t].texts[k], sentence_results[k]);
        }
        bool kept = false;
        answers.translated.push_back(documents[t].write(
            join_segments(documents[t].segments(), sentences[t], sentence_results), &kept));
        if (kept)
            warnings_out.push_back((request.list ? "text " + std::to_string(t + 1) + ": " : std::string()) +
                                   "its markup could not be written back with the translation (markup only broken "
                                   "HTML makes); it is returned untranslated");
    }
    return answers;
}

}  // namespace nmt::serve
