#include "lobby/serve_command.h"

#include <fmt/format.h>

#include <cstdio>

#include "common/log.h"

namespace framelock::lobby {
namespace {

template <class T, class Bound>
void add_ranged(CLI::App& command, const char* name, T& value, const char* help, Bound low,
                Bound high) {
    command.add_option(name, value, help)->check(CLI::Range(low, high))->capture_default_str();
}

}  // namespace

void add_serve_options(CLI::App& command, ServeOptions& o) {
    command.add_option("--listen", o.listen, "HOST:PORT to listen on (port 0: any free one)")
        ->capture_default_str();
    command
        .add_option("--db", o.service.db,
                    "store: a SQLite file (sqlite:PATH or PATH) or postgresql://...")
        ->capture_default_str();
    add_ranged(command, "--room-ttl", o.room_ttl_s,
               "seconds a room lives without a heartbeat (servers likewise)", 1.0, 3600.0);
    add_ranged(command, "--rate", o.service.api.rate_per_s, "requests per second per client IP",
               0.1, 100000.0);
    add_ranged(command, "--burst", o.service.api.burst, "requests a client may burst", 1.0,
               1000000.0);
    add_ranged(command, "--lockout-tries", o.service.api.lockout.failures,
               "wrong room passwords from one address before its joins of the room stop", 1, 1000);
    add_ranged(command, "--lockout", o.lockout_s,
               "seconds those joins stay stopped (429 with Retry-After)", 0.1, 86400.0);
    add_ranged(command, "--password-threads", o.service.api.password_threads,
               "threads hashing and checking room passwords (Argon2id)", 1, 64);
    // Each password job that may wait holds a request thread of its own (http_service.h).
    add_ranged(command, "--password-queue", o.service.api.password_queue,
               "password checks that may wait for a thread; more are refused (503)", 0, 256);
    add_ranged(command, "--http-threads", o.service.http_threads,
               "threads serving requests (password checks get threads of their own beyond)", 1,
               256);
    add_ranged(command, "--connections-per-address", o.service.connections.per_address,
               "connections open at once from one address; more are refused", 1, 100000);
    add_ranged(command, "--max-connections", o.service.connections.total,
               "connections open at once in all", 16, 1000000);
    add_ranged(command, "--request-deadline", o.request_deadline_s,
               "seconds a connection has to send each whole request (headers and body)", 0.5,
               600.0);
    command.add_flag("--quiet", o.quiet, "no line per request");
}

int run_serve(ServeOptions& o) {
    const auto colon = o.listen.rfind(':');
    int port = -1;
    if (colon != std::string::npos) {
        try {
            port = std::stoi(o.listen.substr(colon + 1));
        } catch (...) {
        }
    }
    if (colon == std::string::npos || port < 0 || port > 65535) {
        log_error("--listen {}: expected HOST:PORT", o.listen);
        return static_cast<int>(ErrorCode::kUsage);
    }
    o.service.bind = o.listen.substr(0, colon);
    o.service.port = static_cast<std::uint16_t>(port);
    o.service.api.room_ttl_ms = o.service.api.server_ttl_ms =
        static_cast<std::int64_t>(o.room_ttl_s * 1000);
    o.service.api.lockout.lockout_ms = static_cast<std::int64_t>(o.lockout_s * 1000);
    o.service.connections.request_deadline_ms =
        static_cast<std::int64_t>(o.request_deadline_s * 1000);
    o.service.log_requests = !o.quiet;
    return run_lobby_service(o.service, [](std::uint16_t bound) {
        // Scripts and tests read the port from here when they asked for any.
        fmt::print("listening {}\n", bound);
        std::fflush(stdout);
    });
}

}  // namespace framelock::lobby
