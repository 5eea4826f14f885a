#include "lobby/serve_command.h"

#include <fmt/format.h>

#include <cstdio>

#include "common/log.h"
#include "common/relay_key.h"
#include "lobby/secrets.h"

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
    add_ranged(command, "--guess-budget", o.service.api.guesses.room,
               "wrong passwords a room's joins may try per --guess-window, from all addresses; "
               "past it every join of the room waits (429 with Retry-After, unchecked)",
               1, 1000);
    add_ranged(command, "--guess-share", o.service.api.guesses.address,
               "of those, from one address (below --guess-budget: one address cannot spend it)", 1,
               1000);
    add_ranged(command, "--guess-client-share", o.service.api.guesses.client,
               "of those, from one client at an address (its join's client_key; below "
               "--guess-share: a player beside a guesser keeps tries of its own)",
               1, 1000);
    add_ranged(command, "--guess-window", o.guess_window_s,
               "seconds a wrong password counts against those", 0.1, 86400.0);
    command.add_option("--relay-key-file", o.relay_key_file,
                       fmt::format("a file holding the relay key (its first line, at least {} "
                                   "characters) that relay servers must show to register; else "
                                   "the environment's {}; with neither, no relay can register",
                                   kRelayKeyMinLength, kRelayKeyEnv));
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
    o.service.api.guesses.window_ms = static_cast<std::int64_t>(o.guess_window_s * 1000);
    o.service.connections.request_deadline_ms =
        static_cast<std::int64_t>(o.request_deadline_s * 1000);
    auto relay_key = load_relay_key(o.relay_key_file);
    if (!relay_key) {
        log_error("{}", relay_key.error().message);
        return static_cast<int>(relay_key.error().code);
    }
    if (relay_key.value().empty()) {
        log_warn(
            "no relay key (--relay-key-file or {}): relay servers cannot register, so rooms "
            "need their host's own server_address",
            kRelayKeyEnv);
    } else {
        o.service.api.relay_key_hash = hash_token(relay_key.value());
        log_info("relay servers register with the relay key from {}",
                 o.relay_key_file.empty() ? kRelayKeyEnv : o.relay_key_file);
    }
    o.service.log_requests = !o.quiet;
    return run_lobby_service(o.service, [](std::uint16_t bound) {
        // Scripts and tests read the port from here when they asked for any.
        fmt::print("listening {}\n", bound);
        std::fflush(stdout);
    });
}

}  // namespace framelock::lobby
