// The batcher behind `nmt serve`: sentences from many requests wait in one
// queue per group (a model and its search settings), and a fixed set of
// batch workers, one per decoding thread, takes them in batches: the oldest
// waiting sentence and those closest to it in length, up to a number of
// sentences and of padded tokens (sentences × the longest). Each request's
// results come back in its own order, once all of its sentences are done.
//
// Who takes what, exactly:
//  - A worker that can take work waits at most `batch_wait` for a batch to
//    fill, and only while another worker is decoding: an idle server answers
//    a lone request at once, a busy one pools what arrives meanwhile.
//  - Workers take turns: the lowest-numbered idle worker forms the next batch
//    (one at a time). When other workers are idle too, it takes only its
//    share of what waits (the waiting sentences divided among the idle
//    workers), so that every decoding thread gets some.
//  - A batch that takes everything waiting while no other worker is decoding
//    runs on all `threads` (a lone request's latency); any other batch runs
//    on one thread, beside the others. A worker starts only when a thread is
//    free, so batches never ask for more threads than `threads`.
//  - A worker counts itself idle (and its threads free) before it hands out
//    the answers of its batch: a client that sends its next request the
//    moment it has its answer finds that worker idle, and a lone client's
//    requests all go to worker 0 on all threads.
//  - The queue is bounded: a request whose sentences would take the number
//    waiting past `max_queue` is refused whole (QueueFull), before any of it
//    is queued. close() refuses new requests and lets the workers finish
//    everything already queued.
//
// The decoding itself is a function given to the queue (`Run`), so the
// queue is tested with a fake one (tests/test_batch_queue.cpp).
#pragma once
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace nmt::serve {

struct BatchQueueOptions {
    int threads = 1;               // decoding threads: one batch worker each
    int max_batch_sentences = 32;  // sentences per batch
    int64_t max_batch_tokens = 4096;  // sentences × the longest one's tokens, per batch
    std::chrono::microseconds batch_wait{5000};  // the longest a worker waits for a batch to fill
    size_t max_queue = 1024;  // sentences waiting for a worker (not those being decoded)
};

// submit() refusing a request: the queue would pass max_queue.
struct QueueFull : std::runtime_error {
    QueueFull() : std::runtime_error("the translation queue is full") {}
};
// submit() after close().
struct QueueClosed : std::runtime_error {
    QueueClosed() : std::runtime_error("the server is shutting down") {}
};

// What a batch is run with.
struct BatchInfo {
    int worker = 0;   // 0 .. threads - 1
    int group = 0;    // the group its sentences were submitted in
    int threads = 1;  // threads the batch may use
    int64_t padded_tokens = 0;  // sentences × the longest
};

struct QueueStats {
    size_t waiting = 0;    // sentences not yet taken by a worker
    int busy_workers = 0;  // workers decoding a batch now
};

template <typename In, typename Out>
class BatchQueue {
public:
    struct Sentence {
        In input;
        int tokens = 1;  // its length as the batch limit counts it (at least 1)
    };
    // Decodes one batch: one result per input, in order. An exception fails
    // every request with a sentence in the batch.
    using Run = std::function<std::vector<Out>(const BatchInfo&, const std::vector<const In*>&)>;
    // Told of each batch once its answers are out (its worker already idle).
    using Observe = std::function<void(const BatchInfo&, size_t sentences)>;

    class Request;
    struct Ticket {
        std::shared_ptr<Request> request;
        std::future<std::vector<Out>> results;  // one per sentence submitted, in order
    };

    BatchQueue(const BatchQueueOptions& options, Run run, Observe observe = {})
        : options_(options), run_(std::move(run)), observe_(std::move(observe)) {
        if (options_.threads < 1) throw std::invalid_argument("batch queue: threads must be at least 1");
        if (options_.max_batch_sentences < 1) throw std::invalid_argument("batch queue: max_batch_sentences must be at least 1");
        if (options_.max_batch_tokens < 1) throw std::invalid_argument("batch queue: max_batch_tokens must be at least 1");
        free_threads_ = options_.threads;
        busy_.assign(options_.threads, false);
        for (int w = 0; w < options_.threads; ++w) workers_.emplace_back([this, w] { work(w); });
    }

    ~BatchQueue() { close(); }
    BatchQueue(const BatchQueue&) = delete;
    BatchQueue& operator=(const BatchQueue&) = delete;

    // Queues a request's sentences (all or none). Throws QueueFull,
    // QueueClosed, or std::invalid_argument for a sentence longer than a
    // batch may be. A request of no sentences is answered at once.
    Ticket submit(int group, std::vector<Sentence> sentences) {
        auto request = std::make_shared<Request>();
        Ticket ticket{request, request->promise.get_future()};
        for (const Sentence& s : sentences)
            if (s.tokens < 1 || s.tokens > options_.max_batch_tokens)
                throw std::invalid_argument("batch queue: a sentence of " + std::to_string(s.tokens) +
                                            " tokens cannot be batched (limit " +
                                            std::to_string(options_.max_batch_tokens) + ")");
        request->sentences = std::move(sentences);
        request->results.resize(request->sentences.size());
        request->remaining = request->sentences.size();
        if (request->sentences.empty()) {
            request->promise.set_value({});
            return ticket;
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (closed_) throw QueueClosed();
            if (waiting_ + request->sentences.size() > options_.max_queue) throw QueueFull();
            const auto now = Clock::now();
            std::deque<Item>& queue = groups_[group];
            for (size_t i = 0; i < request->sentences.size(); ++i)
                queue.push_back(Item{request, i, request->sentences[i].tokens, now, next_sequence_++});
            waiting_ += request->sentences.size();
        }
        changed_.notify_all();
        return ticket;
    }

    // Gives up on a request (its client timed out or went away): its
    // sentences still waiting leave the queue, those being decoded finish
    // and are dropped, and its future is never set. Returns how many left
    // the queue.
    size_t cancel(const std::shared_ptr<Request>& request) {
        size_t removed = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (request->remaining == 0 || request->cancelled) return 0;
            request->cancelled = true;
            for (auto it = groups_.begin(); it != groups_.end();) {
                std::deque<Item>& queue = it->second;
                const size_t before = queue.size();
                queue.erase(std::remove_if(queue.begin(), queue.end(),
                                           [&](const Item& item) { return item.request == request; }),
                            queue.end());
                removed += before - queue.size();
                it = queue.empty() ? groups_.erase(it) : std::next(it);
            }
            waiting_ -= removed;
        }
        changed_.notify_all();
        return removed;
    }

    // Refuses new requests, finishes every queued one, and joins the workers.
    void close() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            closed_ = true;
        }
        changed_.notify_all();
        for (std::thread& t : workers_)
            if (t.joinable()) t.join();
    }

    QueueStats stats() const {
        std::lock_guard<std::mutex> lock(mutex_);
        QueueStats s;
        s.waiting = waiting_;
        for (bool b : busy_) s.busy_workers += b;
        return s;
    }

    const BatchQueueOptions& options() const { return options_; }

    class Request {
        friend class BatchQueue;
        std::vector<Sentence> sentences;
        std::vector<Out> results;
        size_t remaining = 0;
        bool cancelled = false, failed = false;
        std::promise<std::vector<Out>> promise;
    };

private:
    using Clock = std::chrono::steady_clock;
    struct Item {
        std::shared_ptr<Request> request;
        size_t index = 0;
        int tokens = 1;
        Clock::time_point arrived;
        uint64_t sequence = 0;
    };

    // The group whose front sentence has waited longest (groups_ not empty).
    typename std::map<int, std::deque<Item>>::iterator oldest_group() {
        auto best = groups_.begin();
        for (auto it = groups_.begin(); it != groups_.end(); ++it)
            if (it->second.front().sequence < best->second.front().sequence) best = it;
        return best;
    }

    int lowest_idle() const {
        for (int w = 0; w < options_.threads; ++w)
            if (!busy_[w]) return w;
        return -1;
    }

    bool others_busy(int w) const {
        for (int o = 0; o < options_.threads; ++o)
            if (o != w && busy_[o]) return true;
        return false;
    }

    int idle_count() const {
        int n = 0;
        for (bool b : busy_) n += !b;
        return n;
    }

    bool may_form(int w) const {
        if (waiting_ == 0 || free_threads_ == 0 || busy_[w]) return false;
        return former_ < 0 ? lowest_idle() == w : former_ == w;
    }

    // Enough waits in `queue` to fill a whole batch.
    bool full(const std::deque<Item>& queue) const {
        if (queue.size() >= static_cast<size_t>(options_.max_batch_sentences)) return true;
        int64_t longest = 0;
        for (const Item& item : queue) longest = std::max<int64_t>(longest, item.tokens);
        return static_cast<int64_t>(queue.size()) * longest >= options_.max_batch_tokens;
    }

    // Takes a batch out of `queue`: its front (oldest) sentence, then those
    // closest to it in length (older first among equals), while the batch
    // stays within `limit` sentences and max_batch_tokens padded tokens.
    std::vector<Item> take(std::deque<Item>& queue, size_t limit, int64_t& padded_tokens) {
        std::vector<size_t> order(queue.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        const int first = queue.front().tokens;
        std::stable_sort(order.begin() + 1, order.end(), [&](size_t a, size_t b) {
            return std::abs(queue[a].tokens - first) < std::abs(queue[b].tokens - first);
        });
        std::vector<bool> chosen(queue.size(), false);
        size_t count = 0;
        int64_t longest = 0;
        for (size_t k = 0; k < order.size() && count < limit; ++k) {
            const Item& item = queue[order[k]];
            const int64_t new_longest = std::max<int64_t>(longest, item.tokens);
            if (static_cast<int64_t>(count + 1) * new_longest > options_.max_batch_tokens) continue;
            chosen[order[k]] = true;
            longest = new_longest;
            ++count;
        }
        std::vector<Item> batch;
        std::deque<Item> rest;
        for (size_t i = 0; i < queue.size(); ++i) {
            if (chosen[i])
                batch.push_back(std::move(queue[i]));
            else
                rest.push_back(std::move(queue[i]));
        }
        queue.swap(rest);
        padded_tokens = static_cast<int64_t>(batch.size()) * longest;
        return batch;
    }

    void work(int w) {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            changed_.wait(lock, [&] { return (closed_ && waiting_ == 0) || may_form(w); });
            if (waiting_ == 0) return;  // closed and nothing left
            former_ = w;
            // Wait for the batch to fill, only while another worker decodes
            // (an idle server answers at once), and never past the oldest
            // sentence's arrival + batch_wait.
            const auto deadline = oldest_group()->second.front().arrived + options_.batch_wait;
            while (!closed_ && waiting_ > 0 && others_busy(w) && !full(oldest_group()->second) &&
                   Clock::now() < deadline)
                changed_.wait_until(lock, deadline);
            if (waiting_ == 0) {  // all of it cancelled meanwhile
                former_ = -1;
                changed_.notify_all();
                continue;
            }
            auto group = oldest_group();
            // This worker's share: what waits in the group divided among the
            // idle workers that have a thread to run on.
            const size_t helpers = static_cast<size_t>(std::max(1, std::min(idle_count(), free_threads_)));
            const size_t share = (group->second.size() + helpers - 1) / helpers;
            const size_t limit = std::min(share, static_cast<size_t>(options_.max_batch_sentences));
            BatchInfo info;
            info.worker = w;
            info.group = group->first;
            std::vector<Item> batch = take(group->second, limit, info.padded_tokens);
            if (group->second.empty()) groups_.erase(group);
            waiting_ -= batch.size();
            // All threads for a batch that takes everything while no other
            // worker decodes; else one.
            info.threads = waiting_ == 0 && free_threads_ == options_.threads ? options_.threads : 1;
            free_threads_ -= info.threads;
            busy_[w] = true;
            former_ = -1;
            lock.unlock();
            changed_.notify_all();  // the next idle worker may form a batch of what is left

            std::vector<const In*> inputs;
            inputs.reserve(batch.size());
            for (const Item& item : batch) inputs.push_back(&item.request->sentences[item.index].input);
            std::vector<Out> outputs;
            std::exception_ptr failure;
            try {
                outputs = run_(info, inputs);
                if (outputs.size() != inputs.size())
                    throw std::logic_error("batch queue: the run gave " + std::to_string(outputs.size()) +
                                           " results for " + std::to_string(inputs.size()) + " sentences");
            } catch (...) {
                failure = std::current_exception();
            }

            // Idle again (threads free) before any answer goes out.
            std::vector<std::shared_ptr<Request>> done, failed;
            lock.lock();
            busy_[w] = false;
            free_threads_ += info.threads;
            for (size_t i = 0; i < batch.size(); ++i) {
                Request& r = *batch[i].request;
                if (r.cancelled || r.failed) continue;
                if (failure) {
                    r.failed = true;
                    failed.push_back(batch[i].request);
                    continue;
                }
                r.results[batch[i].index] = std::move(outputs[i]);
                if (--r.remaining == 0) done.push_back(batch[i].request);
            }
            lock.unlock();
            changed_.notify_all();
            for (auto& r : done) r->promise.set_value(std::move(r->results));
            for (auto& r : failed) r->promise.set_exception(failure);
            if (observe_) observe_(info, batch.size());
            batch.clear();  // the requests' last references may be ours
            done.clear();
            failed.clear();
            lock.lock();
        }
    }

    const BatchQueueOptions options_;
    const Run run_;
    const Observe observe_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::map<int, std::deque<Item>> groups_;
    size_t waiting_ = 0;
    uint64_t next_sequence_ = 0;
    std::vector<bool> busy_;
    int free_threads_ = 0;
    int former_ = -1;  // the worker forming the next batch, if any
    bool closed_ = false;
    std::vector<std::thread> workers_;
};

}  // namespace nmt::serve
