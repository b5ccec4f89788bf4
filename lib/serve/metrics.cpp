#include "serve/metrics.h"

#include <cstdio>

namespace nmt::serve {

void Histogram::observe(double value) {
    size_t bucket = 0;
    while (bucket < bounds.size() && value > bounds[bucket]) ++bucket;
    ++counts[bucket];
    sum += value;
    ++count;
}

Metrics::Metrics()
    : latency_({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}),
      batch_sentences_({1, 2, 4, 8, 16, 32, 64, 128, 256}) {}

void Metrics::request(const std::string& endpoint, int status, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++requests_[{endpoint, status}];
    latency_.observe(seconds);
}

void Metrics::batch(size_t sentences, int64_t padded_tokens, int64_t target_tokens, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++batches_;
    sentences_ += sentences;
    padded_tokens_ += padded_tokens;
    target_tokens_ += target_tokens;
    decode_seconds_ += seconds;
    batch_sentences_.observe(static_cast<double>(sentences));
}

namespace {

std::string number(double v) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

void header(std::string& out, const char* name, const char* type, const char* help) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void histogram(std::string& out, const char* name, const char* help, const Histogram& h) {
    header(out, name, "histogram", help);
    uint64_t cumulative = 0;
    for (size_t b = 0; b < h.bounds.size(); ++b) {
        cumulative += h.counts[b];
        out += std::string(name) + "_bucket{le=\"" + number(h.bounds[b]) + "\"} " + std::to_string(cumulative) + "\n";
    }
    cumulative += h.counts.back();
    out += std::string(name) + "_bucket{le=\"+Inf\"} " + std::to_string(cumulative) + "\n";
    out += std::string(name) + "_sum " + number(h.sum) + "\n";
    out += std::string(name) + "_count " + std::to_string(h.count) + "\n";
}

void value(std::string& out, const char* name, const char* type, const char* help, const std::string& v) {
    header(out, name, type, help);
    out += std::string(name) + " " + v + "\n";
}

}  // namespace

std::string Metrics::text(size_t queue_sentences, int busy_workers, int workers) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string out;
    header(out, "nmt_requests_total", "counter", "HTTP requests answered, by endpoint and status.");
    for (const auto& [key, count] : requests_)
        out += "nmt_requests_total{endpoint=\"" + key.first + "\",status=\"" + std::to_string(key.second) + "\"} " +
               std::to_string(count) + "\n";
    histogram(out, "nmt_request_duration_seconds", "Time from a request's arrival to its answer.", latency_);
    value(out, "nmt_queue_sentences", "gauge", "Sentences waiting for a batch worker.", std::to_string(queue_sentences));
    value(out, "nmt_busy_workers", "gauge", "Batch workers decoding now.", std::to_string(busy_workers));
    value(out, "nmt_workers", "gauge", "Batch workers (one per decoding thread).", std::to_string(workers));
    value(out, "nmt_batches_total", "counter", "Batches decoded.", std::to_string(batches_));
    histogram(out, "nmt_batch_sentences", "Sentences per batch decoded.", batch_sentences_);
    value(out, "nmt_sentences_total", "counter", "Sentences decoded.", std::to_string(sentences_));
    value(out, "nmt_padded_source_tokens_total", "counter",
          "Source tokens decoded, padding included (sentences times the longest, per batch).",
          std::to_string(padded_tokens_));
    value(out, "nmt_target_tokens_total", "counter", "Target tokens produced (best hypotheses, end of sentence included).",
          std::to_string(target_tokens_));
    value(out, "nmt_decode_seconds_total", "counter", "Seconds the batch workers spent decoding, summed over workers.",
          number(decode_seconds_));
    value(out, "nmt_target_tokens_per_second", "gauge",
          "Target tokens per second of decoding, since the start (tokens over summed decoding seconds).",
          number(decode_seconds_ > 0 ? double(target_tokens_) / decode_seconds_ : 0.0));
    return out;
}

}  // namespace nmt::serve
