// framelock_netem: command line for the UDP impairment proxy (see netem_proxy.h).
#include <fmt/core.h>
#include <signal.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/netem/netem_proxy.h"

namespace {

using namespace framelock;
using namespace framelock::netem;

// A signal can come before the proxy exists (or while it is being opened): the flag keeps it.
std::atomic<bool> g_stop_requested{false};
std::atomic<NetemProxy*> g_proxy{nullptr};

extern "C" void on_stop_signal(int) {
    g_stop_requested.store(true);
    if (NetemProxy* proxy = g_proxy.load()) proxy->request_stop();
}

// "T:S" (seconds, decimals allowed) as a blackout window, or a usage error quoting it.
Result<Blackout> parse_blackout(const std::string& text) {
    const auto bad = [&] {
        return make_error(
            ErrorCode::kUsage,
            "--blackout expects START:LENGTH in seconds (e.g. 10:5), got '" + text + "'");
    };
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return bad();
    Blackout window;
    char* end = nullptr;
    const std::string start = text.substr(0, colon), length = text.substr(colon + 1);
    window.start_s = std::strtod(start.c_str(), &end);
    if (*end != '\0') return bad();
    window.length_s = std::strtod(length.c_str(), &end);
    if (*end != '\0') return bad();
    return window;
}

int fail(const Error& error) {
    std::fprintf(stderr, "framelock_netem: error: %s\n", error.message.c_str());
    return static_cast<int>(error.code);
}

// One impairment setting with a both-directions option and per-direction overrides,
// e.g. --delay, --delay-up, --delay-down.
struct Knob {
    double both = 0, up = 0, down = 0;
    CLI::Option* both_option = nullptr;
    CLI::Option* up_option = nullptr;
    CLI::Option* down_option = nullptr;
    std::string name;

    void add_to(CLI::App& app, const std::string& option, const std::string& unit, double max,
                const std::string& help) {
        name = option;
        const auto range = CLI::Range(0.0, max);
        both_option = app.add_option("--" + option, both, help + ", each direction (" + unit + ")")
                          ->check(range);
        up_option =
            app.add_option("--" + option + "-up", up,
                           "client->server " + option + " (" + unit + "), overrides --" + option)
                ->check(range);
        down_option =
            app.add_option("--" + option + "-down", down,
                           "server->client " + option + " (" + unit + "), overrides --" + option)
                ->check(range);
    }
    bool given_for_both() const {
        return both_option->count() > 0 || (up_option->count() > 0 && down_option->count() > 0);
    }
    double up_value() const { return up_option->count() > 0 ? up : both; }
    double down_value() const { return down_option->count() > 0 ? down : both; }
};

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "framelock_netem: UDP proxy adding delay, jitter, spikes, loss (bursty too), duplication, "
        "corruption and blackouts between clients and one server on 127.0.0.1.\n"
        "Delays are ONE-WAY per direction: --delay 20 adds 40 ms to every round trip.\n"
        "Jitter J spreads each datagram's delay uniformly over [max(0, D-J), D+J], which also "
        "reorders datagrams."};
    std::string listen_text, forward_text;
    Knob delay, jitter, loss, duplicate, corrupt, burst_loss, burst_length, spike_pct, spike_ms;
    std::vector<std::string> blackout_texts;
    ProxyConfig config;
    std::string stats_file;
    bool quiet = false;

    app.add_option("--listen", listen_text, "ADDRESS:PORT clients send to (port 0: pick one)")
        ->required();
    app.add_option("--forward", forward_text, "ADDRESS:PORT of the server")->required();
    delay.add_to(app, "delay", "ms", kMaxDelayMs, "added one-way delay; required");
    jitter.add_to(app, "jitter", "ms", kMaxDelayMs, "+/- random spread of the delay");
    loss.add_to(app, "loss", "%", 100.0, "chance a datagram is dropped");
    duplicate.add_to(app, "duplicate", "%", 100.0, "chance a datagram is sent twice");
    corrupt.add_to(app, "corrupt", "%", 100.0,
                   "chance a delivered datagram has one random bit flipped");
    burst_loss.add_to(app, "burst-loss", "%", 100.0,
                      "share of datagrams lost in bursts (two-state model, with --burst-length)");
    burst_length.add_to(app, "burst-length", "datagrams", kMaxBurstLength,
                        "mean datagrams a burst of --burst-loss takes, at least 1");
    spike_pct.add_to(app, "spike-pct", "%", 100.0,
                     "chance a datagram is held a spike longer (with --spike-ms)");
    spike_ms.add_to(app, "spike-ms", "ms", kMaxDelayMs / kSpikeCap,
                    "a spike's least length: Pareto from it, at most ten times it");
    app.add_option("--blackout", blackout_texts,
                   "START:LENGTH seconds after the start during which every datagram is dropped, "
                   "both directions (repeatable)");
    app.add_option("--seed", config.seed, "random seed (runs with equal traffic repeat exactly)")
        ->capture_default_str();
    app.add_option("--duration", config.duration_s,
                   "exit after this many seconds (required, at most 3600)")
        ->required();
    app.add_option("--idle-exit", config.idle_exit_s,
                   "exit early after this many seconds without any datagram (0: off)");
    app.add_option("--max-clients", config.max_clients,
                   "client source addresses served at once; more are refused")
        ->capture_default_str();
    app.add_option("--client-timeout", config.client_timeout_s,
                   "seconds of silence after which a client's upstream socket is closed")
        ->capture_default_str();
    app.add_option("--stats-file", stats_file, "also write the exit statistics here as JSON");
    app.add_option("--capture", config.capture_file,
                   "write every datagram here, one line each: up|down, then its bytes in hex");
    app.add_option("--tamper-every", config.tamper_every,
                   "every Nth upstream datagram, if it is one ENet input message: flip its last "
                   "byte and make ENet's CRC32 right again (an attacker on the path)");
    app.add_option("--port-file", config.port_file,
                   "write the listen port here once bound (atomically: temp file + rename)");
    app.add_flag(
        "--allow-non-loopback", config.allow_non_loopback,
        "allow addresses outside 127.0.0.0/8 (by default the proxy refuses them: it is a test "
        "tool for this machine's loopback)");
    app.add_flag("-q,--quiet", quiet, "no event lines on stderr (statistics still printed)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : static_cast<int>(ErrorCode::kUsage);
    }

    if (!delay.given_for_both()) {
        return fail(make_error(ErrorCode::kUsage,
                               "--delay MS is required (0 for none), or both --delay-up and "
                               "--delay-down"));
    }
    auto listen = parse_endpoint(listen_text, "--listen");
    if (!listen) return fail(listen.error());
    auto forward = parse_endpoint(forward_text, "--forward");
    if (!forward) return fail(forward.error());
    config.listen = listen.value();
    config.forward = forward.value();
    config.up = {delay.up_value(),        jitter.up_value(),    loss.up_value(),
                 duplicate.up_value(),    corrupt.up_value(),   burst_loss.up_value(),
                 burst_length.up_value(), spike_pct.up_value(), spike_ms.up_value()};
    config.down = {delay.down_value(),        jitter.down_value(),    loss.down_value(),
                   duplicate.down_value(),    corrupt.down_value(),   burst_loss.down_value(),
                   burst_length.down_value(), spike_pct.down_value(), spike_ms.down_value()};
    for (const std::string& text : blackout_texts) {
        auto window = parse_blackout(text);
        if (!window) return fail(window.error());
        config.blackouts.push_back(window.value());
    }
    if (!quiet) {
        config.log = [](std::string_view line) {
            fmt::print(stderr, "framelock_netem: {}\n", line);
        };
    }

    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);

    auto opened = NetemProxy::open(config);
    if (!opened) return fail(opened.error());
    NetemProxy& proxy = *opened.value();
    g_proxy.store(&proxy);
    if (g_stop_requested.load()) proxy.request_stop();

    auto stats = proxy.run();

    // A late signal must not reach the proxy once it is gone; the statistics still get out.
    g_proxy.store(nullptr);

    if (!stats) return fail(stats.error());
    fmt::print("{}", format_stats_text(stats.value()));
    std::fflush(stdout);
    if (!stats_file.empty()) {
        if (auto status = write_text_atomic(stats_file, format_stats_json(stats.value()));
            !status) {
            return fail(status.error());
        }
    }
    return 0;
}
