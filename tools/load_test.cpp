// load_test: N concurrent clients against `nmt serve` on this machine, each
// sending one sentence per request (LibreTranslate's POST /translate) and
// waiting for its answer before the next, until the input's lines are used
// up, a request count or a time limit. Reports sentences/s, latency
// percentiles and errors; with --expect, every answer is compared with the
// translation of its own request's line, so a lost, swapped or repeated
// answer shows.
//
// --pipe CMD measures the other side of the comparison: CMD (an `nmt
// translate` reading stdin) runs once, warm, and is given one line at a time,
// the next only after the answer to the last: the latency of a
// single-sentence decode without HTTP.
//
//   load_test --url http://127.0.0.1:5000 -i sentences.en --clients 32
//       --source en --target fr --expect translations.fr
//   load_test --pipe 'nmt translate --from en --to fr' -i sentences.en --expect translations.fr
//
// Only loopback URLs are accepted; counts and time are bounded.
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    std::string url, input, expect, pipe, source = "en", target = "fr";
    int clients = 1;
    long requests = 0;  // 0: each line once
    double seconds = 600;
    double timeout = 60;
};

[[noreturn]] void usage(const std::string& message) {
    std::fprintf(stderr,
                 "load_test: %s\nusage: load_test (--url http://127.0.0.1:PORT [--clients N] [--source en] "
                 "[--target fr] | --pipe CMD) -i FILE [--expect FILE] [--requests N] [--seconds S] [--timeout S]\n",
                 message.c_str());
    std::exit(64);
}

std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream in(path);
    if (!in) usage("cannot read " + path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

struct Result {
    double seconds = 0;
    bool ok = false;         // 200 and, with --expect, the expected translation
    bool refused = false;    // 503 (a full queue)
    bool mismatch = false;   // 200 with another translation than expected
    std::string detail;
};

double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t index = std::min(values.size() - 1, static_cast<size_t>(p / 100.0 * double(values.size())));
    return values[index];
}

void report(const std::vector<Result>& results, double wall, const std::string& what) {
    std::vector<double> latencies;
    long ok = 0, refused = 0, mismatched = 0, failed = 0;
    for (const Result& r : results) {
        if (r.ok) {
            ++ok;
            latencies.push_back(r.seconds);
        } else if (r.refused) {
            ++refused;
        } else if (r.mismatch) {
            ++mismatched;
        } else {
            ++failed;
        }
    }
    std::printf("%s: %zu requests in %.2f s: %.1f sentences/s answered right; latency p50 %.1f ms, p95 %.1f ms, "
                "p99 %.1f ms, max %.1f ms; %ld right, %ld wrong translation, %ld refused (503), %ld failed\n",
                what.c_str(), results.size(), wall, double(ok) / wall, 1000 * percentile(latencies, 50),
                1000 * percentile(latencies, 95), 1000 * percentile(latencies, 99), 1000 * percentile(latencies, 100),
                ok, mismatched, refused, failed);
    int shown = 0;
    for (const Result& r : results)
        if (!r.ok && !r.refused && shown++ < 5) std::printf("  %s\n", r.detail.c_str());
}

// Each client sends the next unsent line, one request at a time.
int run_http(const Options& o, const std::vector<std::string>& lines, const std::vector<std::string>& expected) {
    const std::string prefix = "http://";
    if (o.url.rfind(prefix, 0) != 0) usage("--url must be http://HOST:PORT");
    std::string host = o.url.substr(prefix.size());
    while (!host.empty() && host.back() == '/') host.pop_back();
    const size_t colon = host.rfind(':');
    if (colon == std::string::npos) usage("--url needs a port");
    const int port = std::atoi(host.substr(colon + 1).c_str());
    host = host.substr(0, colon);
    if (host != "127.0.0.1" && host != "localhost" && host != "[::1]") usage("only loopback URLs (127.0.0.1, localhost)");
    if (host == "[::1]") host = "::1";
    const long total = o.requests > 0 ? o.requests : static_cast<long>(lines.size());
    std::atomic<long> next{0};
    std::vector<Result> results(total);
    std::vector<char> done(total, 0);  // written by the clients, one slot each
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
    std::vector<std::thread> clients;
    for (int c = 0; c < o.clients; ++c)
        clients.emplace_back([&] {
            httplib::Client client(host, port);
            client.set_keep_alive(true);
            client.set_tcp_nodelay(true);
            const auto timeout = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::duration<double>(o.timeout));
            client.set_read_timeout(timeout);
            client.set_write_timeout(timeout);
            for (;;) {
                const long i = next++;
                if (i >= total || Clock::now() >= deadline) return;
                const size_t line = static_cast<size_t>(i) % lines.size();
                const nlohmann::json body = {{"q", lines[line]}, {"source", o.source}, {"target", o.target}};
                Result& r = results[i];
                const auto sent = Clock::now();
                auto answer = client.Post("/translate", body.dump(), "application/json");
                r.seconds = std::chrono::duration<double>(Clock::now() - sent).count();
                done[i] = 1;
                if (!answer) {
                    r.detail = "line " + std::to_string(line + 1) + ": " + httplib::to_string(answer.error());
                    continue;
                }
                if (answer->status == 503) {
                    r.refused = true;
                    continue;
                }
                const nlohmann::json reply = nlohmann::json::parse(answer->body, nullptr, false);
                if (answer->status != 200 || !reply.is_object() || !reply.contains("translatedText") ||
                    !reply["translatedText"].is_string()) {
                    r.detail = "line " + std::to_string(line + 1) + ": HTTP " + std::to_string(answer->status) + " " +
                               answer->body.substr(0, 200);
                    continue;
                }
                const std::string got = reply["translatedText"];
                if (!expected.empty() && got != expected[line]) {
                    r.mismatch = true;
                    r.detail = "line " + std::to_string(line + 1) + ": expected '" + expected[line] + "', got '" + got + "'";
                    continue;
                }
                r.ok = true;
            }
        });
    for (auto& t : clients) t.join();
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<Result> sent;
    for (long i = 0; i < total; ++i)
        if (done[i]) sent.push_back(results[i]);
    report(sent, wall, std::to_string(o.clients) + " client" + (o.clients == 1 ? "" : "s"));
    for (const Result& r : sent)
        if (!r.ok && !r.refused) return 1;
    return 0;
}

// CMD on a pipe, fed one line at a time.
int run_pipe(const Options& o, const std::vector<std::string>& lines, const std::vector<std::string>& expected) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) usage("cannot make pipes");
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(to_child[0], STDIN_FILENO);
        dup2(from_child[1], STDOUT_FILENO);
        close(to_child[1]);
        close(from_child[0]);
        execl("/bin/sh", "sh", "-c", o.pipe.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    signal(SIGPIPE, SIG_IGN);
    FILE* in = fdopen(from_child[0], "r");
    const long total = o.requests > 0 ? o.requests : static_cast<long>(lines.size());
    std::vector<Result> results;
    const auto start = Clock::now();
    char* buffer = nullptr;
    size_t capacity = 0;
    for (long i = 0; i < total; ++i) {
        if (std::chrono::duration<double>(Clock::now() - start).count() > o.seconds) break;
        const std::string& line = lines[static_cast<size_t>(i) % lines.size()];
        const std::string text = line + "\n";
        Result r;
        const auto sent = Clock::now();
        if (write(to_child[1], text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
            r.detail = "cannot write to the command";
            results.push_back(r);
            break;
        }
        const ssize_t n = getline(&buffer, &capacity, in);
        r.seconds = std::chrono::duration<double>(Clock::now() - sent).count();
        if (n <= 0) {
            r.detail = "the command ended";
            results.push_back(r);
            break;
        }
        std::string got(buffer, static_cast<size_t>(n));
        if (!got.empty() && got.back() == '\n') got.pop_back();
        const size_t index = static_cast<size_t>(i) % lines.size();
        if (!expected.empty() && got != expected[index]) {
            r.mismatch = true;
            r.detail = "line " + std::to_string(index + 1) + ": expected '" + expected[index] + "', got '" + got + "'";
        } else {
            r.ok = true;
        }
        results.push_back(r);
    }
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    close(to_child[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    free(buffer);
    report(results, wall, "pipe, one line at a time");
    for (const Result& r : results)
        if (!r.ok) return 1;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--url") o.url = value();
        else if (arg == "-i" || arg == "--input") o.input = value();
        else if (arg == "--expect") o.expect = value();
        else if (arg == "--pipe") o.pipe = value();
        else if (arg == "--source") o.source = value();
        else if (arg == "--target") o.target = value();
        else if (arg == "--clients") o.clients = std::atoi(value().c_str());
        else if (arg == "--requests") o.requests = std::atol(value().c_str());
        else if (arg == "--seconds") o.seconds = std::atof(value().c_str());
        else if (arg == "--timeout") o.timeout = std::atof(value().c_str());
        else usage("unknown option " + arg);
    }
    if (o.input.empty()) usage("-i FILE is needed");
    if (o.url.empty() == o.pipe.empty()) usage("give one of --url and --pipe");
    if (o.clients < 1 || o.clients > 1024) usage("--clients must be from 1 to 1024");
    if (o.requests < 0 || o.requests > 10000000) usage("--requests must be from 0 to 10,000,000");
    if (!(o.seconds > 0 && o.seconds <= 3600)) usage("--seconds must be from 0 to 3600");
    if (!(o.timeout > 0 && o.timeout <= 3600)) usage("--timeout must be from 0 to 3600");
    const std::vector<std::string> lines = read_lines(o.input);
    if (lines.empty()) usage(o.input + " has no lines");
    std::vector<std::string> expected;
    if (!o.expect.empty()) {
        expected = read_lines(o.expect);
        if (expected.size() != lines.size()) usage("--expect must have as many lines as -i");
    }
    return o.pipe.empty() ? run_http(o, lines, expected) : run_pipe(o, lines, expected);
}
