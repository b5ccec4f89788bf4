// What GET /metrics reports, in Prometheus's text format (version 0.0.4):
// requests by endpoint and status, their latency as a histogram, the batches
// (count, sentences per batch as a histogram, padded source tokens), the
// sentences and target tokens decoded and the seconds spent decoding, and
// the queue's depth and busy workers at the time of the scrape.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace nmt::serve {

// Cumulative histogram over fixed upper bounds (+Inf implied).
struct Histogram {
    explicit Histogram(std::vector<double> bounds) : bounds(std::move(bounds)), counts(this->bounds.size() + 1, 0) {}
    void observe(double value);
    std::vector<double> bounds;
    std::vector<uint64_t> counts;  // per bucket, not cumulative; the last is +Inf
    double sum = 0;
    uint64_t count = 0;
};

class Metrics {
public:
    Metrics();
    // One HTTP request answered: `endpoint` is a known path or "other".
    void request(const std::string& endpoint, int status, double seconds);
    // One batch decoded.
    void batch(size_t sentences, int64_t padded_tokens, int64_t target_tokens, double seconds);
    // The exposition text; queue figures are read at the call.
    std::string text(size_t queue_sentences, int busy_workers, int workers) const;

private:
    mutable std::mutex mutex_;
    std::map<std::pair<std::string, int>, uint64_t> requests_;
    Histogram latency_;
    Histogram batch_sentences_;
    uint64_t batches_ = 0, sentences_ = 0;
    int64_t padded_tokens_ = 0, target_tokens_ = 0;
    double decode_seconds_ = 0;
};

}  // namespace nmt::serve
