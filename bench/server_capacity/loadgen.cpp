#include "bench/server_capacity/loadgen.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/server_capacity/agent_loop.h"
#include "bench/server_capacity/client_agent.h"
#include "bench/server_capacity/port_file.h"
#include "bench/server_capacity/probe_agent.h"
#include "bench/server_capacity/process_cpu.h"
#include "frontend/files/atomic_file.h"
#include "netplay/io/enet_transport.h"

namespace framelock::bench::capacity {
namespace {

using json = nlohmann::json;

// The p-quantile (nearest rank) of `sorted` microseconds, in milliseconds; 0 when empty.
double percentile_ms(const std::vector<Micros>& sorted, double p) {
    if (sorted.empty()) return 0;
    const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
    return static_cast<double>(
               sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1]) /
           1000.0;
}

// One point: every player started, a warm-up, the measured window, then the latency per
// frame and the sync check. The figures as JSON; throws naming what failed.
json run_loadgen_point(const LoadgenOptions& options) {
    const bool server = options.target == "server";
    const auto ports = read_ports(options.ports_file);
    const int sessions = static_cast<int>(ports.size());
    // Sessions out of step, as sessions started at different times are: session s's players
    // say Hello s/N of 2 frames (the clients' send interval) after the first, and the server
    // starts each session a fixed time after its players' Hello and round trips.
    const Micros hello_at = g_clock.now_us();
    const auto phase = [&](int s) { return s * 2 * kFrameTimeNs / 1000 / sessions; };
    std::vector<std::unique_ptr<Agent>> agents;
    for (int s = 0; s < sessions; ++s) {
        for (int slot = 1; slot <= 2; ++slot) {
            if (server) {
                auto agent = std::make_unique<ClientAgent>(
                    ports[static_cast<std::size_t>(s)], slot,
                    static_cast<std::uint64_t>(s * 2 + slot) * 7919, hello_at + phase(s));
                if (s == 0 && slot == 1 && options.diverge_frame > 0)
                    agent->diverge_at(static_cast<std::uint64_t>(options.diverge_frame));
                agents.push_back(std::move(agent));
            } else {
                agents.push_back(std::make_unique<ProbeAgent>(ports[static_cast<std::size_t>(s)]));
            }
        }
    }
    AgentLoop loop(agents);
    const auto first_failure = [&]() -> std::string {
        for (const auto& agent : agents)
            if (!agent->failure().empty()) return agent->failure();
        return {};
    };
    const auto run_checked = [&](Micros until) {
        while (g_clock.now_us() < until) {
            loop.run_until(std::min(until, g_clock.now_us() + 50'000));
            if (auto failure = first_failure(); !failure.empty())
                throw std::runtime_error("a player failed: " + failure);
        }
    };

    // Start: every session running (the server starts each once its players measured their
    // round trip), or, for the relay, every probe connected and then a common start.
    const Micros start_limit = g_clock.now_us() + 30'000'000;
    const auto all = [&](auto predicate) {
        return std::all_of(agents.begin(), agents.end(), predicate);
    };
    if (!server) {
        while (!all([](const auto& a) { return static_cast<ProbeAgent&>(*a).connected(); })) {
            if (g_clock.now_us() > start_limit) throw std::runtime_error("probes never connected");
            run_checked(g_clock.now_us() + 20'000);
        }
        // Each pair on its own phase, as the server's sessions.
        const Micros start = g_clock.now_us() + 100'000;
        for (std::size_t i = 0; i < agents.size(); ++i)
            static_cast<ProbeAgent&>(*agents[i]).start_at(start + phase(static_cast<int>(i / 2)));
    }
    while (!all([](const auto& a) { return a->ready(); })) {
        if (g_clock.now_us() > start_limit)
            throw std::runtime_error("not every session started within 30 s");
        run_checked(g_clock.now_us() + 20'000);
    }
    run_checked(g_clock.now_us() + static_cast<Micros>(options.warmup * 1e6));

    // The window.
    std::vector<Counters> before;
    for (const auto& agent : agents) before.push_back(agent->counters());
    const CpuTime peer_before = cpu_time(options.peer_pid);
    const std::uint64_t peer_ticks_before = cpu_ticks(options.peer_pid);
    const CpuTime self_before = cpu_time(getpid());
    const Micros t0 = g_clock.now_us();
    run_checked(t0 + static_cast<Micros>(options.seconds * 1e6));
    const Micros t1 = g_clock.now_us();
    const CpuTime peer_after = cpu_time(options.peer_pid);
    const std::uint64_t peer_ticks_after = cpu_ticks(options.peer_pid);
    const CpuTime self_after = cpu_time(getpid());
    std::vector<Counters> after;
    for (const auto& agent : agents) after.push_back(agent->counters());
    // Confirmations of the window's last frames are still on their way.
    run_checked(t1 + 300'000);
    for (auto& agent : agents) agent->leave();
    loop.run_until(g_clock.now_us() + 2 * netplay::kCloseLingerUs);

    // Latency per frame: the later sender's flush to the other player's poll.
    std::vector<Micros> all_latencies, first_session;
    std::uint64_t missing = 0, negative = 0;
    const std::uint32_t first_frame = server ? static_cast<std::uint32_t>(options.delay) : 0;
    for (int s = 0; s < sessions; ++s) {
        const FrameTimes& a = agents[static_cast<std::size_t>(2 * s)]->times;
        const FrameTimes& b = agents[static_cast<std::size_t>(2 * s + 1)]->times;
        const std::size_t frames = std::min(a.sent.size(), b.sent.size());
        for (std::uint32_t f = first_frame; f < frames; ++f) {
            const Micros sa = a.sent[f], sb = b.sent[f];
            if (sa == kNotYet || sb == kNotYet) continue;
            const Micros later = std::max(sa, sb);
            if (later < t0 || later >= t1) continue;
            const FrameTimes& other = sa >= sb ? b : a;
            const Micros received = f < other.received.size() ? other.received[f] : kNotYet;
            if (received == kNotYet) {
                ++missing;
                continue;
            }
            if (received < later) {
                ++negative;
                continue;
            }
            all_latencies.push_back(received - later);
            if (s == 0) first_session.push_back(received - later);
        }
    }
    if (negative > 0)
        throw std::runtime_error(fmt::format(
            "{} frames confirmed before their later input went out: the stamps are wrong",
            negative));
    if (all_latencies.empty()) throw std::runtime_error("no frame was measured");
    std::sort(all_latencies.begin(), all_latencies.end());
    std::sort(first_session.begin(), first_session.end());

    // Sync: both players of each session ran the same frames to the same states.
    std::uint64_t desyncs = 0, frames_compared = 0;
    if (server) {
        for (int s = 0; s < sessions; ++s) {
            const auto& a = static_cast<ClientAgent&>(*agents[static_cast<std::size_t>(2 * s)]);
            const auto& b = static_cast<ClientAgent&>(*agents[static_cast<std::size_t>(2 * s + 1)]);
            desyncs += a.desyncs() + b.desyncs();
            const std::size_t n = std::min(a.hash_log().size(), b.hash_log().size());
            if (!std::equal(a.hash_log().begin(), a.hash_log().begin() + static_cast<long>(n),
                            b.hash_log().begin()))
                throw std::runtime_error(
                    fmt::format("session {} desynced: the two players' state "
                                "hashes differ",
                                s + 1));
            frames_compared += n;
        }
        if (desyncs > 0)
            throw std::runtime_error(fmt::format("the server reported {} desyncs", desyncs));
    }

    const double window_s = static_cast<double>(t1 - t0) / 1e6;
    const double expected_frames = window_s * kFrameRate;
    const auto stall_limit = static_cast<std::uint64_t>(
        std::max(1.0, expected_frames * options.stall_limit_pct / 100.0));
    std::uint64_t stall_frames = 0, worst_stall = 0, updates = 0, min_frames = ~0ull;
    for (std::size_t i = 0; i < agents.size(); ++i) {
        const std::uint64_t stalls = after[i].stall_frames - before[i].stall_frames;
        stall_frames += stalls;
        worst_stall = std::max(worst_stall, stalls);
        updates += after[i].updates - before[i].updates;
        min_frames = std::min(min_frames, after[i].frames_run - before[i].frames_run);
    }
    const bool sustained = worst_stall <= stall_limit &&
                           static_cast<double>(min_frames) >= expected_frames * 0.98 - 2 &&
                           missing == 0;
    const Micros window_us = t1 - t0;
    return {{"sessions", sessions},
            {"clients", 2 * sessions},
            {"sustained", sustained},
            {"stall_frames", stall_frames},
            {"worst_client_stall_frames", worst_stall},
            {"min_client_frames", min_frames},
            {"expected_frames", expected_frames},
            {"unconfirmed_frames", missing},
            {"peer_cpu_pct", cpu_percent(peer_after.run_ns - peer_before.run_ns, window_us)},
            {"peer_runqueue_wait_pct",
             cpu_percent(peer_after.wait_ns - peer_before.wait_ns, window_us)},
            {"peer_cpu_pct_stat",
             cpu_percent((peer_ticks_after - peer_ticks_before) * 1'000'000'000ull /
                             static_cast<std::uint64_t>(sysconf(_SC_CLK_TCK)),
                         window_us)},
            {"loadgen_cpu_pct", cpu_percent(self_after.run_ns - self_before.run_ns, window_us)},
            {"loadgen_runqueue_wait_pct",
             cpu_percent(self_after.wait_ns - self_before.wait_ns, window_us)},
            {"p50_ms", percentile_ms(all_latencies, 0.50)},
            {"p99_ms", percentile_ms(all_latencies, 0.99)},
            {"max_ms", percentile_ms(all_latencies, 1.0)},
            {"p99_first_session_ms", percentile_ms(first_session, 0.99)},
            {"samples", all_latencies.size()},
            {"updates_per_s", static_cast<double>(updates) / window_s},
            {"frames_hash_compared", frames_compared},
            {"window_s", window_s}};
}

}  // namespace

int run_loadgen(const LoadgenOptions& options) {
    json result;
    int code = 0;
    try {
        result = run_loadgen_point(options);
        result["ok"] = true;
    } catch (const std::exception& e) {
        result = {{"ok", false}, {"error", e.what()}};
        code = 1;
    }
    const std::string text = result.dump() + "\n";
    auto written = frontend::write_file_atomic(
        options.out, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    if (!written) {
        std::fprintf(stderr, "loadgen: %s\n", written.error().message.c_str());
        return 1;
    }
    return code;
}

}  // namespace framelock::bench::capacity
