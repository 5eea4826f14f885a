// Late join time against state size: a joiner connects to a running 2-player session on
// the simulated network and the time from its connection to its first frame is printed,
// for states of 64 KiB to 8 MiB (incompressible, the worst case) over 100 ms round trips
// at 10 and 50 Mbit/s and unlimited bandwidth. The unlimited column is the protocol's own
// cost (round trips, window); the others add the link's serialization time, which the
// last column gives for the raw bytes alone (the floor any protocol has).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <initializer_list>
#include <string>

#include "bench/bench_json.h"
#include "netplay/sim_session.h"

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
    if (!json_path.empty()) {
        const framelock::bench::Json json = {
            {"bench", "state_transfer"},
            {"rtt_ms", 100},
            {"what", "late join, connect to running; -1: the join failed"},
            {"rows", rows}};
        if (!framelock::bench::write_json(json_path, json)) return 2;
    }
    return 0;
}
