// How the adaptive input delay compares with fixed delays on the same simulated traces.
//
// 1. For 2, 4 and 8 clients at 100 ms +- 20 ms and 2% loss over 36,000 frames: the delay
//    the server chose (after its first minute) against the smallest fixed delay that
//    produced no stall after 2 s on the very same trace.
// 2. On the jittery trace of 1 (100 ms +- 20 ms, 2% loss, 2 clients), the adaptive delay
//    against every fixed delay 1..10 in the score the issue sets: stall frames (per client,
//    over the run) + delay frames (the mean input delay). Also shown: the per-frame reading
//    (mean delay + stall frames per frame), under which a too-small delay looks cheap
//    because a client that ran late catches up, and the lag players feel (delay + how late
//    frames ran).
// 3. On a trace that alternates 15 s of a good link (40 +- 10 ms) and 15 s of a bad one
//    (110 +- 30 ms, 1% loss), the adaptive delay against every fixed delay 1..10: mean
//    delay, how late frames ran behind schedule, frames spent waiting (stalls) and frames
//    run without being shown. Figures, not pass/fail.
// 4. Delay and stalls against RTT: 2 clients, 1% loss and jitter, RTT 0 to 300 ms: the
//    adaptive delay's mean, its stall frames and the no-stall optimum on the same trace.
//
// --quick runs only 4, on shorter traces (for CI); --json FILE also writes the figures.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "bench/bench_json.h"
#include "netplay/sim_session.h"

using namespace framelock::netplay;
using framelock::bench::Json;

namespace {

SimResult with_fixed(SimScenario sc, int delay) {
    sc.server.delay.adaptive = false;
    sc.server.delay.fixed_delay = delay;
    return run_scenario(sc);
}

struct Row {
    double delay, late, stalls, hidden;
};

Row row(const SimResult& r) {
    Row out{r.mean_delay, 0, 0, 0};
    double frames = 0;
    for (const auto& c : r.clients) {
        out.late += static_cast<double>(c.stats.lateness_total_us) / (1e6 / 60);
        out.stalls += c.stall_frames;
        out.hidden += c.frames_fast_forwarded;
        frames += c.stats.frames_run;
    }
    out.late /= frames;
    out.stalls /= static_cast<double>(r.clients.size());
    out.hidden /= static_cast<double>(r.clients.size());
    return out;
}

// The smallest fixed delay with no stall after the warm-up on the very same trace,
// searched upwards from `from`.
int no_stall_optimum(const SimScenario& sc, int from) {
    int optimum = std::max(1, from);
    while (with_fixed(sc, optimum).total_stalls_after_warmup != 0 && optimum < 40) ++optimum;
    return optimum;
}

// The same, searched from `guess` outwards: down while the next smaller delay does not stall
// either, else up (a delay far too small stalls all the time and is slow to simulate). It
// assumes that a delay that does not stall has none above it that does.
int no_stall_optimum_near(const SimScenario& sc, int guess) {
    const auto clean = [&sc](int d) { return with_fixed(sc, d).total_stalls_after_warmup == 0; };
    int d = std::max(1, guess);
    if (clean(d)) {
        while (d > 1 && clean(d - 1)) --d;
        return d;
    }
    while (d < 40 && !clean(++d)) {
    }
    return d;
}

Json clients_section() {
    Json rows = Json::array();
    std::printf(
        "netplay_delay: adaptive delay vs the no-stall optimum (36,000 frames, 100 +- 20 ms, 2%% "
        "loss)\n");
    std::printf(
        "  clients  identical  stalls after 2 s  delay after 1 min (min..max, mean)  no-stall "
        "optimum\n");
    for (int players : {2, 4, 8}) {
        SimScenario sc;
        sc.players = players;
        sc.frames = 36'000;
        sc.seed = 1000 + static_cast<std::uint64_t>(players);
        sc.link = {50'000, 10'000, 0.02, 0.0, 0};
        const SimResult r = run_scenario(sc);
        std::map<int, int> histogram;
        int lowest = 1000, highest = 0;
        double sum = 0;
        for (std::uint32_t f = 3600; f < sc.frames; ++f) {
            const int d = r.delay_at(f);
            lowest = std::min(lowest, d);
            highest = std::max(highest, d);
            sum += d;
        }
        const int optimum = no_stall_optimum(sc, lowest - 3);
        const double mean = sum / (sc.frames - 3600);
        std::printf("  %7d  %9s  %16u  %12d..%d, %.2f  %16d\n", players,
                    r.hashes_identical ? "yes" : "NO", r.total_stalls_after_warmup, lowest, highest,
                    mean, optimum);
        rows.push_back({{"clients", players},
                        {"identical", r.hashes_identical},
                        {"stall_frames_after_2s", r.total_stalls_after_warmup},
                        {"delay_min", lowest},
                        {"delay_max", highest},
                        {"delay_mean", mean},
                        {"no_stall_optimum", optimum}});
    }
    return rows;
}

Json fixed_section() {
    Json out = Json::object();
    {
        SimScenario sc;
        sc.players = 2;
        sc.frames = 36'000;
        sc.seed = 1002;
        sc.link = {50'000, 10'000, 0.02, 0.0, 0};
        std::printf(
            "\nnetplay_delay: adaptive vs fixed delays on the same jittery trace (100 +- 20 ms, "
            "2%% loss, 2 clients, 36,000 frames)\n");
        std::printf(
            "  policy     mean delay  stall frames  score (stalls + delay)  per-frame "
            "(delay + stalls/frame)  felt lag (delay + lateness)\n");
        Json policies = Json::array();
        const auto line = [&policies](const char* name, const SimResult& r) {
            double stalls = 0, late = 0, frames = 0;
            for (const auto& c : r.clients) {
                stalls += c.stall_frames;
                late += static_cast<double>(c.stats.lateness_total_us) / (1e6 / 60);
                frames += c.stats.frames_run;
            }
            stalls /= static_cast<double>(r.clients.size());
            const double per_client_frames = frames / static_cast<double>(r.clients.size());
            std::printf("  %-9s  %10.2f  %12.0f  %22.2f  %31.3f  %27.2f\n", name, r.mean_delay,
                        stalls, stalls + r.mean_delay, r.mean_delay + stalls / per_client_frames,
                        r.mean_delay + late / frames);
            policies.push_back({{"policy", name},
                                {"mean_delay", r.mean_delay},
                                {"stall_frames", stalls},
                                {"score", stalls + r.mean_delay}});
            return stalls + r.mean_delay;
        };
        const double adaptive = line("adaptive", run_scenario(sc));
        double best_fixed = 1e18;
        int best = 0;
        for (int d = 1; d <= 10; ++d) {
            char name[16];
            std::snprintf(name, sizeof name, "fixed %d", d);
            const double score = line(name, with_fixed(sc, d));
            if (score < best_fixed) best_fixed = score, best = d;
        }
        std::printf("  adaptive score %.2f vs the best fixed delay (%d) %.2f: %s\n", adaptive, best,
                    best_fixed, adaptive < best_fixed ? "adaptive wins" : "ADAPTIVE LOSES");
        out = {{"policies", policies},
               {"adaptive_score", adaptive},
               {"best_fixed_delay", best},
               {"best_fixed_score", best_fixed}};
    }
    return out;
}

Json alternating_section() {
    SimScenario sc;
    sc.players = 4;
    sc.frames = 60 * 120;
    sc.seed = 4242;
    sc.link = {20'000, 5'000, 0.0, 0.0, 0};
    for (Micros t = 15'000'000; t < 130'000'000; t += 30'000'000) {
        sc.changes.push_back({t, {55'000, 15'000, 0.01, 0.0, 0}, 0});
        sc.changes.push_back({t + 15'000'000, {20'000, 5'000, 0.0, 0.0, 0}, 0});
    }
    std::printf(
        "\nnetplay_delay: alternating 15 s good (40 +- 10 ms) / 15 s bad (110 +- 30 ms, 1%% loss), "
        "4 clients, 2 min\n");
    std::printf(
        "  policy     mean delay  mean lateness  delay+lateness  stall frames  frames not shown\n");
    Json rows = Json::array();
    const auto print = [&rows](const char* name, const Row& x) {
        std::printf("  %-9s  %10.2f  %13.2f  %14.2f  %12.0f  %16.0f\n", name, x.delay, x.late,
                    x.delay + x.late, x.stalls, x.hidden);
        rows.push_back({{"policy", name},
                        {"mean_delay", x.delay},
                        {"mean_lateness", x.late},
                        {"stall_frames", x.stalls},
                        {"frames_not_shown", x.hidden}});
    };
    print("adaptive", row(run_scenario(sc)));
    for (int d = 1; d <= 10; ++d) {
        char name[16];
        std::snprintf(name, sizeof name, "fixed %d", d);
        print(name, row(with_fixed(sc, d)));
    }
    return rows;
}

// Section 4: for each RTT, the adaptive delay on a trace with jitter and 1% loss, and the
// smallest fixed delay that would not have stalled on the same trace.
Json rtt_sweep(std::uint32_t frames) {
    constexpr double kLoss = 0.01;
    std::printf(
        "\nnetplay_delay: delay and stalls vs RTT (2 clients, %u frames, 1%% loss, one-way "
        "jitter +- (2 ms + RTT/20))\n",
        frames);
    std::printf(
        "  RTT ms  RTT frames  mean delay  stall frames/client (after 2 s, all)  no-stall optimum"
        "  delay - optimum\n");
    Json points = Json::array();
    const double frame_ms = 1000.0 / 60;
    for (int rtt_ms : {0, 20, 50, 80, 100, 150, 200, 300}) {
        SimScenario sc;
        sc.players = 2;
        sc.frames = frames;
        sc.seed = 7000 + static_cast<std::uint64_t>(rtt_ms);
        const Micros one_way = rtt_ms * 1000 / 2;
        const Micros jitter_us = 2'000 + rtt_ms * 1000 / 20;
        sc.link = {one_way, jitter_us, kLoss, 0.0, 0};
        const SimResult r = run_scenario(sc);
        const double clients = static_cast<double>(r.clients.size());
        double stalls_all = 0;
        for (const auto& c : r.clients) stalls_all += c.stall_frames;
        const double stalls_after = r.total_stalls_after_warmup / clients;
        stalls_all /= clients;
        const int optimum =
            no_stall_optimum_near(sc, static_cast<int>(std::lround(r.mean_delay_after_warmup)));
        std::printf("  %6d  %10.2f  %10.2f  %20.1f, %.1f  %28d  %+15.2f%s\n", rtt_ms,
                    rtt_ms / frame_ms, r.mean_delay_after_warmup, stalls_after, stalls_all, optimum,
                    r.mean_delay_after_warmup - optimum,
                    r.hashes_identical ? "" : "  (logs DIFFER)");
        points.push_back({{"rtt_ms", rtt_ms},
                          {"jitter_ms", jitter_us / 1000.0},
                          {"loss", kLoss},
                          {"mean_delay_frames", r.mean_delay_after_warmup},
                          {"min_delay_frames", r.min_delay},
                          {"max_delay_frames", r.max_delay},
                          {"stall_frames_per_client_after_2s", stalls_after},
                          {"stall_frames_per_client", stalls_all},
                          {"no_stall_optimum_frames", optimum},
                          {"identical", r.hashes_identical}});
    }
    return {{"clients", 2}, {"frames", frames}, {"frame_rate", 60}, {"points", points}};
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"adaptive input delay against fixed delays and RTT (simulated network)"};
    std::string json_path;
    bool quick = false;
    app.add_option("--json", json_path, "also write the figures to this JSON file");
    app.add_flag("--quick", quick, "only the RTT sweep, on 2-minute traces (CI)");
    CLI11_PARSE(app, argc, argv);

    Json json = {{"bench", "netplay_delay"}, {"quick", quick}};
    if (!quick) {
        json["clients"] = clients_section();
        json["adaptive_vs_fixed"] = fixed_section();
        json["alternating"] = alternating_section();
    }
    json["rtt_sweep"] = rtt_sweep(quick ? 7'200 : 36'000);
    if (!json_path.empty() && !framelock::bench::write_json(json_path, json)) return 2;
    return 0;
}
