// The batcher of nmt serve on its own (lib/serve/batch_queue.h), with a fake
// decoding function: sentences are numbers, a "translation" is the number
// negated, and the fake records every batch it is given.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "serve/batch_queue.h"

using nmt::serve::BatchInfo;
using nmt::serve::BatchQueueOptions;
using nmt::serve::QueueClosed;
using nmt::serve::QueueFull;
using Queue = nmt::serve::BatchQueue<int, int>;
using namespace std::chrono_literals;

namespace {

struct Seen {
    BatchInfo info;
    std::vector<int> inputs;
};

// A fake decoder: negates each input and records each batch. It can be
// held: a batch waits at the gate while everything is held, or while it
// holds a value that is held, until that is released.
class Fake {
public:
    explicit Fake(bool hold_all = false) : hold_all_(hold_all) {}

    Queue::Run run() {
        return [this](const BatchInfo& info, const std::vector<const int*>& inputs) {
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ++running_;
                changed_.notify_all();
                changed_.wait(lock, [&] {
                    if (hold_all_) return false;
                    for (const int* x : inputs)
                        if (held_.count(*x)) return false;
                    return true;
                });
                --running_;
            }
            std::vector<int> out;
            Seen seen{info, {}};
            for (const int* x : inputs) {
                out.push_back(-*x);
                seen.inputs.push_back(*x);
            }
            std::lock_guard<std::mutex> lock(mutex_);
            batches_.push_back(std::move(seen));
            changed_.notify_all();
            return out;
        };
    }
    void hold(int value) {
        std::lock_guard<std::mutex> lock(mutex_);
        held_.insert(value);
    }
    void release(int value) {
        std::lock_guard<std::mutex> lock(mutex_);
        held_.erase(value);
        changed_.notify_all();
    }
    void open() {
        std::lock_guard<std::mutex> lock(mutex_);
        hold_all_ = false;
        held_.clear();
        changed_.notify_all();
    }
    // Waits until `n` batches are at the gate.
    void wait_running(int n) {
        std::unique_lock<std::mutex> lock(mutex_);
        REQUIRE(changed_.wait_for(lock, 10s, [&] { return running_ >= n; }));
    }
    // Waits until a batch holding `value` has run.
    void wait_done(int value) {
        std::unique_lock<std::mutex> lock(mutex_);
        REQUIRE(changed_.wait_for(lock, 10s, [&] {
            for (const Seen& b : batches_)
                for (int x : b.inputs)
                    if (x == value) return true;
            return false;
        }));
    }
    std::vector<Seen> batches() {
        std::lock_guard<std::mutex> lock(mutex_);
        return batches_;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    bool hold_all_;
    std::set<int> held_;
    int running_ = 0;
    std::vector<Seen> batches_;
};

std::vector<Queue::Sentence> sentences(std::vector<int> values, int tokens = 1) {
    std::vector<Queue::Sentence> out;
    for (int v : values) out.push_back({v, tokens});
    return out;
}

std::vector<int> negated(std::vector<int> values) {
    for (int& v : values) v = -v;
    return values;
}

}  // namespace

TEST_CASE("batch queue: every sentence of many clients answered exactly once and in order") {
    BatchQueueOptions options;
    options.threads = 2;
    options.max_batch_sentences = 8;
    options.max_batch_tokens = 40;
    options.batch_wait = 2ms;
    options.max_queue = 100000;
    Fake fake;
    std::atomic<int> next_id{0};
    {
        Queue queue(options, fake.run());
        std::vector<std::thread> clients;
        std::atomic<int> wrong{0};
        for (int c = 0; c < 12; ++c)
            clients.emplace_back([&, c] {
                std::mt19937 random(c);
                for (int r = 0; r < 40; ++r) {
                    std::vector<Queue::Sentence> request;
                    std::vector<int> ids;
                    const int n = 1 + static_cast<int>(random() % 5);
                    for (int i = 0; i < n; ++i) {
                        ids.push_back(next_id++);
                        request.push_back({ids.back(), 1 + static_cast<int>(random() % 12)});
                    }
                    auto ticket = queue.submit(static_cast<int>(random() % 2), std::move(request));
                    if (ticket.results.get() != negated(ids)) ++wrong;
                }
            });
        for (auto& t : clients) t.join();
        CHECK(wrong == 0);
    }
    std::vector<int> answered(next_id, 0);
    for (const Seen& b : fake.batches())
        for (int x : b.inputs) ++answered.at(x);
    for (int id = 0; id < next_id; ++id) CHECK_MESSAGE(answered[id] == 1, "sentence ", id, " answered ", answered[id], " times");
}

TEST_CASE("batch queue: a batch never passes the sentence or padded-token limit, nor mixes groups") {
    BatchQueueOptions options;
    options.threads = 2;
    options.max_batch_sentences = 6;
    options.max_batch_tokens = 30;
    options.batch_wait = 5ms;
    Fake fake(/*held=*/true);
    Queue queue(options, fake.run());
    // Hold both workers (two idle workers share a request of two sentences),
    // then queue sentences of every length in two groups.
    auto held = queue.submit(0, sentences({1000, 1001}, 3));
    fake.wait_running(2);
    std::mt19937 random(7);
    std::vector<Queue::Ticket> tickets;
    std::map<int, int> group_of;
    for (int i = 0; i < 300; ++i) {
        const int group = i % 3 == 0 ? 1 : 0;
        group_of[i] = group;
        tickets.push_back(queue.submit(group, sentences({i}, 1 + static_cast<int>(random() % 30))));
    }
    fake.open();
    for (auto& t : tickets) t.results.get();
    CHECK(held.results.get() == negated({1000, 1001}));
    int batches_of_several = 0;
    for (const Seen& b : fake.batches()) {
        CHECK(b.inputs.size() <= 6);
        CHECK(b.info.padded_tokens <= 30);
        for (int x : b.inputs)
            if (x < 1000) CHECK(group_of.at(x) == b.info.group);
        batches_of_several += b.inputs.size() > 1;
    }
    CHECK(batches_of_several > 10);
}

TEST_CASE("batch queue: the padded-token limit counts sentences times the longest") {
    BatchQueueOptions options;
    options.threads = 1;
    options.max_batch_sentences = 100;
    options.max_batch_tokens = 20;
    Fake fake(true);
    Queue queue(options, fake.run());
    auto hold = queue.submit(0, sentences({99}));
    fake.wait_running(1);
    // Four of 5 tokens fit (20); a fifth, or one of 6, would not.
    auto a = queue.submit(0, sentences({1, 2, 3, 4, 5}, 5));
    auto b = queue.submit(0, sentences({6}, 6));
    fake.open();
    CHECK(a.results.get() == negated({1, 2, 3, 4, 5}));
    CHECK(b.results.get() == negated({6}));
    const auto batches = fake.batches();
    REQUIRE(batches.size() >= 3);
    CHECK(batches[1].inputs == std::vector<int>{1, 2, 3, 4});
    CHECK(batches[1].info.padded_tokens == 20);
    // A sentence longer than a batch may be is refused, not queued.
    CHECK_THROWS_AS(queue.submit(0, sentences({7}, 21)), std::invalid_argument);
}

TEST_CASE("batch queue: a request that would pass max_queue is refused whole") {
    BatchQueueOptions options;
    options.threads = 1;
    options.max_queue = 10;
    Fake fake(true);
    Queue queue(options, fake.run());
    auto hold = queue.submit(0, sentences({100}));
    fake.wait_running(1);  // taken by the worker: no longer waiting
    auto six = queue.submit(0, sentences({1, 2, 3, 4, 5, 6}));
    CHECK_THROWS_AS(queue.submit(0, sentences({7, 8, 9, 10, 11})), QueueFull);  // 6 + 5 > 10
    CHECK(queue.stats().waiting == 6);
    auto four = queue.submit(1, sentences({7, 8, 9, 10}));  // exactly 10
    CHECK_THROWS_AS(queue.submit(0, sentences({11})), QueueFull);
    CHECK(queue.stats().waiting == 10);
    fake.open();
    CHECK(hold.results.get() == negated({100}));
    CHECK(six.results.get() == negated({1, 2, 3, 4, 5, 6}));
    CHECK(four.results.get() == negated({7, 8, 9, 10}));
    // Room again once the queue drained.
    CHECK(queue.submit(0, sentences({12})).results.get() == negated({12}));
}

TEST_CASE("batch queue: close() refuses new requests and finishes every queued one") {
    BatchQueueOptions options;
    options.threads = 2;
    options.max_batch_sentences = 3;
    Fake fake(true);
    auto queue = std::make_unique<Queue>(options, fake.run());
    std::vector<Queue::Ticket> tickets;
    std::vector<std::vector<int>> values;
    for (int r = 0; r < 20; ++r) {
        values.push_back({3 * r, 3 * r + 1, 3 * r + 2});
        tickets.push_back(queue->submit(r % 2, sentences(values.back())));
    }
    fake.wait_running(1);
    std::thread closer([&] { queue->close(); });
    // Closing: new requests are refused while the queued ones still wait.
    // (Probes sent before close() began are queued, and answered, too.)
    std::vector<Queue::Ticket> probes;
    for (int tries = 0; tries < 1000; ++tries) {
        try {
            probes.push_back(queue->submit(0, sentences({-1})));
            std::this_thread::sleep_for(1ms);
        } catch (const QueueClosed&) {
            break;
        }
    }
    CHECK_THROWS_AS(queue->submit(0, sentences({-1})), QueueClosed);
    for (auto& t : tickets) CHECK(t.results.wait_for(0s) == std::future_status::timeout);
    fake.open();
    closer.join();
    for (size_t r = 0; r < tickets.size(); ++r) {
        REQUIRE(tickets[r].results.wait_for(0s) == std::future_status::ready);
        CHECK(tickets[r].results.get() == negated(values[r]));
    }
    for (auto& p : probes) CHECK(p.results.get() == negated({-1}));
    int answered = 0;
    for (const Seen& b : fake.batches()) answered += static_cast<int>(b.inputs.size());
    CHECK(answered == 60 + static_cast<int>(probes.size()));
}

TEST_CASE("batch queue: a lone client is answered by worker 0 on all threads, without waiting") {
    // A worker counts itself idle, its threads free, before it hands out its
    // answers: a client that has its answer finds no worker busy, so its
    // next request goes to worker 0 on all threads at once. (Handing out
    // first let that request find the worker still busy: worker 1 then took
    // it, on one thread or after waiting.) The observer, called after the
    // answers are out, holds the worker a millisecond longer, so that a
    // worker still busy then is seen.
    BatchQueueOptions options;
    options.threads = 2;
    options.batch_wait = 50ms;
    Fake fake;
    Queue queue(options, fake.run(), [](const BatchInfo&, size_t) { std::this_thread::sleep_for(1ms); });
    const auto start = std::chrono::steady_clock::now();
    int busy_after_answer = 0;
    for (int r = 0; r < 300; ++r) {
        CHECK(queue.submit(r % 2, sentences({r})).results.get() == negated({r}));
        busy_after_answer += queue.stats().busy_workers;
    }
    CHECK(busy_after_answer == 0);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto batches = fake.batches();
    REQUIRE(batches.size() == 300);
    for (const Seen& b : batches) {
        CHECK(b.info.worker == 0);
        CHECK(b.info.threads == 2);
        CHECK(b.inputs.size() == 1);
    }
    // 300 waits of 50 ms would take 15 s.
    CHECK(seconds < 5.0);
}

TEST_CASE("batch queue: idle workers share what waits, one thread each") {
    BatchQueueOptions options;
    options.threads = 2;
    options.max_batch_sentences = 32;
    Fake fake(/*hold_all=*/true);
    Queue queue(options, fake.run());
    std::vector<int> values;
    for (int i = 0; i < 20; ++i) values.push_back(i);
    auto ticket = queue.submit(0, sentences(values));
    // Worker 0 takes half (worker 1 is idle too); worker 1, the other half.
    fake.wait_running(2);
    fake.open();
    CHECK(ticket.results.get() == negated(values));
    const auto batches = fake.batches();
    REQUIRE(batches.size() == 2);
    std::set<int> workers;
    for (const Seen& b : batches) {
        CHECK(b.inputs.size() == 10);
        CHECK(b.info.threads == 1);
        workers.insert(b.info.worker);
    }
    CHECK(workers == std::set<int>{0, 1});
}

TEST_CASE("batch queue: sentences arriving while a worker decodes are pooled into one batch") {
    BatchQueueOptions options;
    options.threads = 2;
    options.max_batch_sentences = 32;
    options.batch_wait = 300ms;
    Fake fake;
    fake.hold(100);
    fake.hold(101);
    Queue queue(options, fake.run());
    auto hold = queue.submit(0, sentences({100, 101}));  // one sentence on each worker
    fake.wait_running(2);
    fake.release(101);
    fake.wait_done(101);
    // One worker decodes (100), the other is idle: it forms the next batch
    // and waits for more (up to batch_wait) rather than taking the first alone.
    std::vector<Queue::Ticket> tickets;
    for (int i = 0; i < 10; ++i) {
        tickets.push_back(queue.submit(0, sentences({i})));
        std::this_thread::sleep_for(2ms);
    }
    for (int i = 0; i < 10; ++i) CHECK(tickets[i].results.get() == negated({i}));
    fake.release(100);
    CHECK(hold.results.get() == negated({100, 101}));
    // Batches in the order they finished: 101, the ten pooled, 100.
    const auto batches = fake.batches();
    REQUIRE(batches.size() == 3);
    CHECK(batches[1].inputs.size() == 10);
    CHECK(batches[1].info.threads == 1);
    CHECK(batches[2].inputs == std::vector<int>{100});
}

TEST_CASE("batch queue: a cancelled request leaves the queue") {
    BatchQueueOptions options;
    options.threads = 1;
    Fake fake(true);
    Queue queue(options, fake.run());
    auto hold = queue.submit(0, sentences({100}));
    fake.wait_running(1);
    auto gone = queue.submit(0, sentences({1, 2, 3}));
    auto kept = queue.submit(0, sentences({4}));
    CHECK(queue.cancel(gone.request) == 3);
    CHECK(queue.stats().waiting == 1);
    CHECK(queue.cancel(gone.request) == 0);
    fake.open();
    CHECK(kept.results.get() == negated({4}));
    for (const Seen& b : fake.batches())
        for (int x : b.inputs) CHECK((x == 100 || x == 4));
}

TEST_CASE("batch queue: a failing batch fails its requests and no others") {
    BatchQueueOptions options;
    options.threads = 1;
    Queue queue(options, [](const BatchInfo&, const std::vector<const int*>& inputs) {
        std::vector<int> out;
        for (const int* x : inputs) {
            if (*x < 0) throw std::runtime_error("negative input");
            out.push_back(-*x);
        }
        return out;
    });
    auto bad = queue.submit(0, sentences({-5}));
    CHECK_THROWS_WITH_AS(bad.results.get(), "negative input", std::runtime_error);
    CHECK(queue.submit(0, sentences({5})).results.get() == negated({5}));
    CHECK(queue.submit(0, {}).results.get().empty());
}
