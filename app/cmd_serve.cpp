// nmt serve: a LibreTranslate-compatible HTTP server (lib/serve/http_api.h)
// on cpp-httplib, with requests from all clients pooled into shared batches
// (lib/serve/batch_queue.h). This file only reads options, loads the models,
// moves bytes between cpp-httplib and the API, and shuts down on SIGTERM.
//
// cpp-httplib (Debian's libcpp-httplib-dev): a maintained, widely used
// HTTP/1.1 server with keep-alive, a thread pool for connections, read and
// write timeouts and a request body limit built in; one header and a small
// shared library, where Boost.Beast would bring Asio and leave all of that
// to write.
#include <httplib.h>
#include <omp.h>
#include <pthread.h>
#include <sys/socket.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "commands.h"
#include "core/error.h"
#include "core/onednn_context.h"
#include "decode/precision.h"
#include "model/model_catalog.h"
#include "model_choice.h"
#include "serve/http_api.h"
#include "serve/translation_service.h"
#include "stream_files.h"

namespace nmt::app {

namespace {

struct ServeCommand {
    std::string host = "127.0.0.1";
    int port = 5000;
    std::vector<std::string> model_files;  // [SRC-TGT[.DOMAIN]=]FILE
    std::string models_directory;
    ModelChoice choice;  // --from/--to/--domain: one installed model
    std::string precision = "auto";
    int threads = 0;
    SearchOptions search;
    bool length_penalty_given = false;
    int max_batch_sentences = 32;
    int64_t max_batch_tokens = 4096;
    double batch_wait_ms = 5;
    size_t max_queue = 1024;
    size_t max_request_bytes = size_t(1) << 20;
    double request_timeout = 30;
    double client_timeout = 10;
    int connections = 64;
    std::string api_key_file;
    int max_alternatives = 3;
    size_t max_texts = 1000;
    bool no_split = false, no_shortlist = false, no_placeholder_repair = false, quiet = false;
};

// The models to serve: -m files, --models DIR, --from/--to, else every installed model.
std::vector<InstalledModel> models_to_serve(const ServeCommand& o) {
    std::vector<InstalledModel> chosen;
    for (const std::string& given : o.model_files) {
        const size_t equals = given.find('=');
        std::string name = equals == std::string::npos ? "" : given.substr(0, equals);
        const std::string file = equals == std::string::npos ? given : given.substr(equals + 1);
        auto model = model_of_file(name.empty() ? file : name + ".nmt");
        if (!model)
            throw Error("-m " + given + ": cannot tell the languages from the file's name: name it SRC-TGT.nmt " +
                        "(SRC-TGT.DOMAIN.nmt) or give them: -m en-fr=" + file);
        model->path = file;
        chosen.push_back(*model);
    }
    if (!o.models_directory.empty()) {
        auto found = models_in_directory(o.models_directory);
        if (found.empty()) throw Error("--models " + o.models_directory + ": no SRC-TGT.nmt models there");
        chosen.insert(chosen.end(), found.begin(), found.end());
    }
    if (!o.choice.from.empty() || !o.choice.to.empty()) {
        const std::string path = o.choice.path();
        auto model = model_of_file(path);
        if (!model) throw Error(path + ": not an installed model's name");
        chosen.push_back(*model);
    }
    if (chosen.empty()) chosen = installed_models();
    if (chosen.empty()) throw Error("no models installed (searched $NMT_MODELS and models/ directories): give -m FILE");
    return chosen;
}

std::set<std::string> read_api_keys(const std::string& path) {
    std::set<std::string> keys;
    if (path.empty()) return keys;
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot read the API keys");
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        size_t start = 0;
        while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) ++start;
        line = line.substr(start);
        if (!line.empty() && line[0] != '#') keys.insert(line);
    }
    if (keys.empty()) throw Error(path + ": no API keys in it (one a line; # starts a comment)");
    return keys;
}

serve::HttpRequest to_api(const httplib::Request& req) {
    serve::HttpRequest r;
    r.method = req.method;
    r.path = req.path;
    const size_t question = req.target.find('?');
    if (question != std::string::npos) r.query = req.target.substr(question + 1);
    r.content_type = req.get_header_value("Content-Type");
    r.body = req.body;
    for (const auto& [name, part] : req.files)
        if (part.filename.empty()) r.parts.emplace_back(name, part.content);
    return r;
}

void to_httplib(const serve::HttpResponse& from, httplib::Response& to) {
    to.status = from.status;
    for (const auto& [name, value] : from.headers) to.headers.emplace(name, value);
    if (!from.content_type.empty()) to.set_content(from.body, from.content_type.c_str());
}

void run(ServeCommand& o) {
    // Signals go to the thread that waits for them, not to whichever thread
    // the kernel picks: blocked here, before any thread starts.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    ::signal(SIGPIPE, SIG_IGN);  // a client gone mid-answer is an error on its socket, not the end of the server

    if (!std::isfinite(o.search.length_penalty)) throw Error("--length-penalty must be a finite number");
    set_threads(o.threads);
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    const Precision precision = parse_precision(o.precision);
    const auto gemm_kernels = precision == Precision::Int8 ? std::future<void>() : prepare_fp32_gemm_kernels();
    const std::set<std::string> api_keys = read_api_keys(o.api_key_file);

    std::vector<serve::ServedModel> served;
    for (const InstalledModel& m : models_to_serve(o)) {
        serve::ServedModel s;
        s.source = m.source_language;
        s.target = m.target_language;
        s.domain = m.domain;
        s.path = m.path;
        s.model = std::make_shared<Model>(load_model(m.path, precision == Precision::Int8));
        s.options.search = o.length_penalty_given ? o.search : with_model_defaults(o.search, *s.model);
        s.options.use_shortlist = !o.no_shortlist;
        s.options.repair_placeholders = !o.no_placeholder_repair;
        const uint64_t bound =
            search_memory_bound(s.model->config, s.options.search, o.max_batch_sentences) * uint64_t(threads);
        const double physical = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGE_SIZE));
        if (physical > 0 && double(bound) > 0.75 * physical)
            throw Error("--beam-size " + std::to_string(o.search.beam_size) + " with --max-batch-sentences " +
                        std::to_string(o.max_batch_sentences) + " on " + std::to_string(threads) +
                        " threads may need more memory than this machine has: lower one of them");
        served.push_back(std::move(s));
    }

    serve::ServiceOptions options;
    options.batching.threads = threads;
    options.batching.max_batch_sentences = o.max_batch_sentences;
    options.batching.max_batch_tokens = o.max_batch_tokens;
    options.batching.batch_wait = std::chrono::microseconds(static_cast<int64_t>(o.batch_wait_ms * 1000));
    options.batching.max_queue = o.max_queue;
    options.limits.max_alternatives = o.max_alternatives;
    options.limits.max_texts = o.max_texts;
    options.request_timeout = std::chrono::milliseconds(static_cast<int64_t>(o.request_timeout * 1000));
    options.split_sentences = !o.no_split;
    serve::TranslationService service(std::move(served), options);
    serve::HttpApi api(service, api_keys);

    httplib::Server server;
    const int connections = o.connections;
    server.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
    server.set_payload_max_length(o.max_request_bytes);
    const auto client_timeout = std::chrono::microseconds(static_cast<int64_t>(o.client_timeout * 1e6));
    server.set_read_timeout(client_timeout);
    server.set_write_timeout(client_timeout);
    server.set_keep_alive_timeout(5);
    server.set_keep_alive_max_count(10000);
    server.set_tcp_nodelay(true);
    const auto handler = [&api](const httplib::Request& req, httplib::Response& res) {
        to_httplib(api.handle(to_api(req)), res);
    };
    server.Get(".*", handler);
    server.Post(".*", handler);
    server.Put(".*", handler);
    server.Patch(".*", handler);
    server.Delete(".*", handler);
    server.Options(".*", handler);
    // What cpp-httplib answers itself (a body past --max-request-bytes: 413;
    // a request line or header too long: 414, 400) in LibreTranslate's shape.
    server.set_error_handler([&api](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        to_httplib(api.error(res.status, req.path, 0.0), res);
    });

    // cpp-httplib listens with a backlog of 5 (compiled into Debian's
    // library): a burst of new connections past it is reset by the kernel.
    // The socket is caught as it is made and listened on again with a
    // larger backlog once bound.
    int listening = -1;
    server.set_socket_options([&listening](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        listening = sock;
    });
    int port = o.port;
    if (port == 0) {
        port = server.bind_to_any_port(o.host);
        if (port < 0) throw Error("cannot listen on " + o.host + " (any port)");
    } else if (!server.bind_to_port(o.host, port)) {
        throw Error("cannot listen on " + o.host + ":" + std::to_string(port) + " (in use, or not an address here?)");
    }
    if (listening >= 0) ::listen(listening, 4096);
    std::atomic<bool> signalled{false};
    std::thread stopper([&] {
        int signal = 0;
        sigwait(&stop_signals, &signal);
        signalled = true;
        if (!o.quiet)
            std::fprintf(stderr, "nmt serve: %s: finishing the requests already received\n",
                         signal == SIGINT ? "SIGINT" : "SIGTERM");
        api.stopping();
        server.stop();
    });
    if (!o.quiet) {
        std::string names;
        for (const auto& m : service.models())
            names += " " + m.source + "-" + m.target + (m.domain.empty() ? "" : "." + m.domain);
        std::fprintf(stderr, "nmt serve: listening on http://%s:%d (models:%s; %d decoding threads)\n",
                     o.host.c_str(), port, names.c_str(), threads);
        std::fflush(stderr);
    }
    const bool listened = server.listen_after_bind();  // returns once stopped and every connection is done
    if (!signalled) pthread_kill(stopper.native_handle(), SIGTERM);
    stopper.join();
    service.close();  // every request answered; the batch workers end
    if (!listened && !signalled) throw Error("the server stopped listening on " + o.host + ":" + std::to_string(port));
    if (!o.quiet) std::fprintf(stderr, "nmt serve: stopped\n");
    exit_without_teardown();
}

}  // namespace

void add_serve_command(CLI::App& app) {
    auto o = std::make_shared<ServeCommand>();
    auto* c = app.add_subcommand("serve",
                                 "HTTP translation server speaking LibreTranslate's API, batching requests across clients");
    c->add_option("--host", o->host, "Address to listen on (127.0.0.1: this machine only)")->capture_default_str();
    c->add_option("--port", o->port, "Port to listen on (0: any free port, printed on stderr)")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str();
    c->add_option("-m,--model", o->model_files,
                  "Model to serve, as [SRC-TGT[.DOMAIN]=]FILE (the languages from the file's name when not given); "
                  "repeatable. Default: every installed model (--list-models of nmt translate)");
    c->add_option("--models", o->models_directory, "Serve every SRC-TGT[.DOMAIN].nmt model in this directory");
    c->add_option("--from", o->choice.from, "Serve the installed model from this language (with --to)");
    c->add_option("--to", o->choice.to, "Serve the installed model into this language (with --from)");
    c->add_option("--domain", o->choice.domain, "With --from/--to: the installed model of this domain");
    c->add_option("--threads,--cpu-threads", o->threads,
                  "Decoding threads, one batch worker each (default: OMP_NUM_THREADS or all cores)");
    c->add_option("--precision", o->precision, "Arithmetic of the products: fp32, int8 or auto (as nmt translate)")
        ->check(CLI::IsMember({"auto", "fp32", "int8"}))
        ->capture_default_str();
    c->add_option("-b,--beam-size", o->search.beam_size, "Beam size (1 = greedy)")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    auto* penalty = c->add_option("--length-penalty,--normalize", o->search.length_penalty,
                                  "alpha of GNMT's length penalty (default: each model's tuned value, else 0.6)");
    c->add_option("--max-length-factor", o->search.max_length_factor,
                  "Stop hypotheses at factor * source pieces + 5 target pieces")
        ->check(CLI::Range(0.0, 1000.0))
        ->capture_default_str();
    c->add_option("--max-batch-sentences", o->max_batch_sentences, "Sentences per batch")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    c->add_option("--max-batch-tokens", o->max_batch_tokens,
                  "Source tokens per batch, padding included (sentences x the longest); at least a model's "
                  "longest sentence")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 24))
        ->capture_default_str();
    c->add_option("--batch-wait-ms", o->batch_wait_ms,
                  "While another batch decodes, wait at most this long for a batch to fill")
        ->check(CLI::Range(0.0, 10000.0))
        ->capture_default_str();
    c->add_option("--max-queue", o->max_queue,
                  "Sentences waiting for a decoding thread; a request past it gets 503 with Retry-After")
        ->check(CLI::Range(size_t{1}, size_t{1} << 24))
        ->capture_default_str();
    c->add_option("--max-request-bytes", o->max_request_bytes, "Largest request body; a larger one gets 413")
        ->check(CLI::Range(size_t{64}, size_t{1} << 30))
        ->capture_default_str();
    c->add_option("--request-timeout", o->request_timeout,
                  "Seconds a translation may take from its arrival; past it the request gets 503 and leaves the queue")
        ->check(CLI::Range(0.001, 86400.0))
        ->capture_default_str();
    c->add_option("--client-timeout", o->client_timeout,
                  "Seconds a client may take to send the next bytes of a request or to take those of an answer "
                  "before its connection is closed")
        ->check(CLI::Range(0.001, 3600.0))
        ->capture_default_str();
    c->add_option("--connections", o->connections,
                  "Connections served at once, each on a thread of its own; more wait to be accepted")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    c->add_option("--api-key-file", o->api_key_file,
                  "Require one of the API keys in this file (one a line) in api_key: 403 without it");
    c->add_option("--max-alternatives", o->max_alternatives, "Largest `alternatives` a request may ask for")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    c->add_option("--max-texts", o->max_texts, "Entries a q list may have")
        ->check(CLI::Range(size_t{1}, size_t{1} << 20))
        ->capture_default_str();
    c->add_flag("--no-split", o->no_split, "Translate each line whole instead of sentence by sentence");
    c->add_flag("--no-shortlist", o->no_shortlist, "Score the whole target vocabulary even where a model has a shortlist");
    c->add_flag("--no-placeholder-repair", o->no_placeholder_repair,
                "Answer the model's own text even where it lost or garbled a placeholder of the source");
    c->add_flag("-q,--quiet", o->quiet, "Nothing on stderr but errors");
    c->callback([o, penalty] {
        o->length_penalty_given = penalty->count() > 0;
        run(*o);
    });
}

}  // namespace nmt::app
