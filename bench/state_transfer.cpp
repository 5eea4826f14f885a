// Late join time against state size: a joiner connects to a running 2-player session on
// the simulated network and the time from its connection to its first frame is printed,
// for states of 64 KiB to 8 MiB (incompressible, the worst case) over 100 ms round trips
// at 10 and 50 Mbit/s and unlimited bandwidth. The unlimited column is the protocol's own
// cost (round trips, window); the others add the link's serialization time, which the
// last column gives for the raw bytes alone (the floor any protocol has).
//
// Then the session start: the time from the last player's connection to frame 0 with the
// common start state (every player loads the first player's power-on state), the last
// player arriving 3 s after the first or together with it, next to the same start without
// a common state (each player from its own power-on) measured in the same run.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <initializer_list>
#include <string>

#include "bench/bench_json.h"
#include "netplay/sim/sim_session.h"

using namespace framelock::netplay;

namespace {

double join_seconds(std::size_t padding, std::uint32_t bits_per_second) {
    SimScenario sc;
    sc.players = 2;
    sc.slots = 3;
    // Long enough for the slowest transfer: twice the bytes at 10 Mbit/s, with margin.
    sc.frames = 600 + static_cast<std::uint32_t>(2.0 * padding * 8 / 10e6 * 60 * 1.5);
    sc.link = LinkParams{50'000, 2'000, 0.0, 0.0, bits_per_second};
    sc.state_padding = padding;
    sc.joiners = {{300, false, 0}};
    const SimResult r = run_scenario(sc);
    const auto& joiner = r.clients.back();
    if (joiner.running_at_us < 0 || SimResult::first_difference(r.clients[0], joiner) != -1)
        return -1;
    return (joiner.running_at_us - joiner.connected_at_us) / 1e6;
}

// Seconds from the last player's connection to frame 0 (-1: the start failed).
double start_seconds(std::size_t padding, std::uint32_t bits_per_second, Micros gap,
                     bool common_start) {
    SimScenario sc;
    sc.players = 2;
    sc.frames = 120;
    sc.link = LinkParams{50'000, 2'000, 0.0, 0.0, bits_per_second};
    sc.state_padding = padding;
    sc.load_stamps = true;
    sc.last_player_after_us = gap;
    sc.server.common_start = common_start;
    const SimResult r = run_scenario(sc);
    if (r.clients.size() != 2 || r.clients[1].stats.frames_run == 0) return -1;
    if (common_start && r.clients[0].final_state_hash != r.clients[1].final_state_hash) return -1;
    const Micros joined = gap > 0 ? r.clients[1].connected_at_us : 0;
    return (r.start_offset_us - joined) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"late join time against state size (simulated network)"};
    std::string json_path;
    app.add_option("--json", json_path, "also write the figures to this JSON file");
    CLI11_PARSE(app, argc, argv);

    std::printf("late join at 100 ms RTT: connect -> running, seconds (state incompressible)\n");
    std::printf("%10s %12s %12s %12s %14s\n", "state", "unlimited", "50 Mbit/s", "10 Mbit/s",
                "2 x bytes@10M");
    framelock::bench::Json rows = framelock::bench::Json::array();
    for (std::size_t kib : {64, 256, 1024, 4096, 8192}) {
        const std::size_t bytes = kib * 1024;
        const double floor_10 = 2.0 * bytes * 8 / 10e6;  // up to the server, then down
        const double unlimited = join_seconds(bytes, 0);
        const double at_50 = join_seconds(bytes, 50'000'000);
        const double at_10 = join_seconds(bytes, 10'000'000);
        std::printf("%7zu KiB %12.3f %12.3f %12.3f %14.3f\n", kib, unlimited, at_50, at_10,
                    floor_10);
        rows.push_back({{"state_bytes", bytes},
                        {"unlimited_s", unlimited},
                        {"mbit50_s", at_50},
                        {"mbit10_s", at_10},
                        {"floor_mbit10_s", floor_10}});
    }
    std::printf(
        "\nsession start at 100 ms RTT: the last player's connect -> frame 0, seconds (state "
        "incompressible; baseline: each player from its own power-on, same run)\n");
    std::printf("%10s %14s %14s %14s %14s %10s\n", "state", "3 s, 50 Mbit/s", "3 s, unlim.",
                "0 s, 50 Mbit/s", "0 s, unlim.", "baseline");
    framelock::bench::Json starts = framelock::bench::Json::array();
    for (std::size_t kib : {64, 256, 1024, 4096}) {
        const std::size_t bytes = kib * 1024;
        const double late_50 = start_seconds(bytes, 50'000'000, 3'000'000, true);
        const double late_unl = start_seconds(bytes, 0, 3'000'000, true);
        const double both_50 = start_seconds(bytes, 50'000'000, 0, true);
        const double both_unl = start_seconds(bytes, 0, 0, true);
        const double baseline = start_seconds(bytes, 50'000'000, 3'000'000, false);
        std::printf("%7zu KiB %14.3f %14.3f %14.3f %14.3f %10.3f\n", kib, late_50, late_unl,
                    both_50, both_unl, baseline);
        starts.push_back({{"state_bytes", bytes},
                          {"last_3s_mbit50_s", late_50},
                          {"last_3s_unlimited_s", late_unl},
                          {"together_mbit50_s", both_50},
                          {"together_unlimited_s", both_unl},
                          {"baseline_no_common_state_s", baseline}});
    }
    if (!json_path.empty()) {
        const framelock::bench::Json json = {
            {"bench", "state_transfer"},
            {"rtt_ms", 100},
            {"what", "late join, connect to running; -1: the join failed"},
            {"rows", rows},
            {"start_what", "session start, the last player's connect to frame 0"},
            {"start_rows", starts}};
        if (!framelock::bench::write_json(json_path, json)) return 2;
    }
    return 0;
}
