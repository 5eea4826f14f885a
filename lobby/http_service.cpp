#include "lobby/http_service.h"

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "common/log.h"
#include "common/stop_signal.h"
#include "lobby/rendezvous_socket.h"

namespace framelock::lobby {

std::int64_t wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

namespace {

// Requests larger than this are cut off by the HTTP layer itself (the API's own, smaller
// limit answers with a JSON error for anything between).
constexpr std::size_t kTransportBodyLimit = 64 * 1024;

ApiRequest to_api(const httplib::Request& req) {
    ApiRequest r;
    r.method = req.method;
    r.path = req.path;
    for (const auto& [k, v] : req.params) r.query.emplace(k, v);  // the first of repeats
    r.body = req.body;
    r.client = req.remote_addr;
    const std::string auth = req.get_header_value("Authorization");
    if (auth.rfind("Bearer ", 0) == 0) r.bearer = auth.substr(7);
    r.now_ms = wall_clock_ms();
    return r;
}

#if defined(__SANITIZE_THREAD__)
#define FRAMELOCK_LOBBY_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FRAMELOCK_LOBBY_TSAN 1
#endif
#endif

#ifdef FRAMELOCK_LOBBY_TSAN
// ThreadSanitizer builds only. Debian's cpp-httplib is a library built without
// -fsanitize=thread, and parsing a request initialises function-local statics in it (the
// set of methods in Server::parse_request_line, std::regex's matcher for the "." of the
// route pattern, the Range header's regex). C++ makes that initialisation thread-safe, but
// a later thread checks it with an inline load TSan cannot see in code it did not
// instrument, so it reports the first request parsed on a second worker thread as a race
// with the first (docs/faults.md). So one request is parsed first on a thread that is
// joined before the server's workers start: for TSan every later read then follows the
// initialisation, which is what the machine does anyway.
void parse_one_request_first(const char* pattern) {
    struct Inline : httplib::TaskQueue {
        void enqueue(std::function<void()> fn) override { fn(); }
        void shutdown() override {}
    };
    httplib::Server warm;
    warm.new_task_queue = [] { return new Inline; };
    warm.Get(pattern, [](const httplib::Request&, httplib::Response& res) {
        res.set_content("ok", "text/plain");
    });
    const int port = warm.bind_to_any_port("127.0.0.1");
    if (port <= 0) return;
    std::atomic<bool> done{false};
    std::thread listener([&] {
        warm.listen_after_bind();
        done = true;
    });
    while (!warm.is_running() && !done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(5, 0);
    client.Get("/", httplib::Headers{{"Range", "bytes=0-0"}});
    warm.stop();
    listener.join();
}
#endif

}  // namespace

int run_lobby_service(const LobbyServiceConfig& config,
                      const std::function<void(std::uint16_t)>& on_listening) {
    auto store = open_store(config.db);
    if (!store) {
        log_error("{}", store.error().message);
        return static_cast<int>(store.error().code);
    }
    if (Status migrated = store.value()->migrate(); !migrated) {
        log_error("{}", migrated.error().message);
        return static_cast<int>(migrated.error().code);
    }
    Rendezvous rendezvous;
    ApiConfig api_config = config.api;
    api_config.rendezvous = &rendezvous;
    // A room moved to a relay: its host hears of it at once, on the rendezvous.
    api_config.on_room_moved = [&rendezvous](const std::string& room_id,
                                             const std::string& address) {
        rendezvous.move_room(room_id, address);
    };
    LobbyApi api(*store.value(), api_config);
    httplib::Server server;
    server.set_payload_max_length(kTransportBodyLimit);
    server.set_read_timeout(5, 0);
    server.set_write_timeout(5, 0);
    // Without it a keep-alive answer stalls ~40 ms: httplib writes the headers and the body
    // separately, Nagle holds the body until the headers are acknowledged, and the client
    // delays that ACK (bench_lobby_load measured 43 ms per GET and 87 ms per POST). Set
    // before binding: Linux hands it from the listening socket to accepted ones.
    server.set_tcp_nodelay(true);
    const auto threads = static_cast<std::size_t>(std::max(config.http_threads, 1));
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    const auto serve = [&](const httplib::Request& req, httplib::Response& res) {
        const auto start = std::chrono::steady_clock::now();
        const ApiResponse out = api.handle(to_api(req));
        res.status = out.status;
        if (!out.body.empty()) res.set_content(out.body, out.content_type);
        res.set_header("Cache-Control", "no-store");
        if (out.retry_after_s > 0) res.set_header("Retry-After", std::to_string(out.retry_after_s));
        if (config.log_requests) {
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
            log_info("lobby request method={} path={} status={} ms={:.2f} client={}", req.method,
                     req.path.substr(0, 80), out.status, ms, req.remote_addr);
        }
    };
    const char* pattern = R"(/.*)";
#ifdef FRAMELOCK_LOBBY_TSAN
    parse_one_request_first(pattern);
#endif
    server.Get(pattern, serve);
    server.Post(pattern, serve);
    server.Patch(pattern, serve);
    server.Delete(pattern, serve);
    server.Put(pattern, serve);
    // What httplib answers itself (a body over its limit, a malformed request) is JSON too.
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (res.body.empty()) {
            res.set_content(nlohmann::json{{"error", "HTTP " + std::to_string(res.status) +
                                                         " (request too large or malformed)"}}
                                .dump(),
                            "application/json");
        }
    });
    int port = config.port;
    if (port == 0) {
        port = server.bind_to_any_port(config.bind);
    } else if (!server.bind_to_port(config.bind, port)) {
        port = -1;
    }
    if (port <= 0) {
        log_error("cannot listen on {}:{} (in use, or not an address of this machine)", config.bind,
                  config.port);
        return static_cast<int>(ErrorCode::kUsage);
    }
    // Hole punching on UDP, the same address and port number (lobby/rendezvous_socket.h).
    // Without it the lobby still serves; hosts behind routers are then reached by a relay.
    auto punching =
        RendezvousSocket::open(config.bind, static_cast<std::uint16_t>(port), rendezvous);
    if (!punching) {
        log_warn("{}: no hole punching (players who cannot reach a host directly go to a relay)",
                 punching.error().message);
    }
    install_stop_signal_handlers();
    log_info("lobby listening on http://{}:{}/{} (store {}, schema v{})", config.bind, port,
             punching ? fmt::format(" and UDP {} for hole punching", port) : std::string(),
             config.db.rfind("postgres", 0) == 0 ? "postgresql" : config.db,
             store.value()->schema_version());
    if (on_listening) on_listening(static_cast<std::uint16_t>(port));
    std::thread stopper([&] {
        while (!stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        server.stop();  // graceful: requests in flight finish first
    });
    server.listen_after_bind();
    request_stop();
    stopper.join();
    log_info("lobby stopped");
    return 0;
}

}  // namespace framelock::lobby
