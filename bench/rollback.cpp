// Rollback's worst case: loading the state from 8 frames back and re-running 8 frames (each
// saved first, as a rollback client does), as a fraction of one frame's time budget at the
// core's rate. Also the same 8 frames run plainly, for the ratio.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include "bench/bench_core.h"
#include "bench/bench_json.h"
#include "common/log.h"
#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"

namespace fs = std::filesystem;
using namespace framelock;
using namespace framelock::frontend;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
    CLI::App app{"rollback re-simulation cost"};
    bench::BenchCore bench_core;
    bench_core.add_to(app);
    unsigned window = 8, samples = 300;
    app.add_option("--window", window, "frames re-run (the prediction window)")
        ->capture_default_str();
    app.add_option("--samples", samples, "rollbacks timed")->capture_default_str();
    std::string json_path;
    app.add_option("--json", json_path, "also write the figures to this JSON file");
    CLI11_PARSE(app, argc, argv);
    set_log_level(LogLevel::kError);
    auto host = bench_core.host_config();
    if (!host) return 2;
    HostConfig config = *host;
    config.savestate_context = RETRO_SAVESTATE_CONTEXT_ROLLBACK_NETPLAY;
    const unsigned ports = bench_core.ports;
    auto created = RetroEmulator::create(config);
    if (!created) {
        fmt::print(stderr, "{}\n", created.error().message);
        return 2;
    }
    RetroEmulator& emu = *created.value();
    RandomInput random(77, ports);
    std::uint64_t frame = 0;
    for (; frame < 600; ++frame) emu.run_frame(random.input_for(frame), false);  // past boot

    std::vector<double> rollback_ms, plain_ms;
    std::vector<std::vector<std::uint8_t>> states(window);
    std::vector<std::uint8_t> anchor;
    for (unsigned s = 0; s < samples; ++s) {
        emu.save_state(anchor);
        // A rollback: load, then per frame save + run (the last one shown).
        auto start = Clock::now();
        emu.load_state(anchor);
        for (unsigned i = 0; i < window; ++i) {
            emu.save_state(states[i]);
            emu.run_frame(random.input_for(frame + i), i + 1 == window);
        }
        rollback_ms.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        // The same frames again, plainly.
        emu.load_state(anchor);
        start = Clock::now();
        for (unsigned i = 0; i < window; ++i)
            emu.run_frame(random.input_for(frame + i), i + 1 == window);
        plain_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        frame += window;
    }
    std::sort(rollback_ms.begin(), rollback_ms.end());
    std::sort(plain_ms.begin(), plain_ms.end());
    const double budget_ms = 1000.0 / emu.frames_per_second();
    const double median = rollback_ms[rollback_ms.size() / 2];
    const double p99 = rollback_ms[rollback_ms.size() * 99 / 100];
    fmt::print(
        "rollback ({}): load + {} x (save + run) median {:.3f} ms, p99 {:.3f} ms = {:.0f}% / "
        "{:.0f}% "
        "of a {:.2f} ms frame (target < 50%); the {} frames alone {:.3f} ms (state handling "
        "{:.2f}x)\n",
        emu.core_info().library_name, window, median, p99, 100 * median / budget_ms,
        100 * p99 / budget_ms, budget_ms, window, plain_ms[plain_ms.size() / 2],
        median / plain_ms[plain_ms.size() / 2]);
    if (!json_path.empty()) {
        const double plain = plain_ms[plain_ms.size() / 2];
        const bench::Json json = {{"bench", "rollback"},
                                  {"core", emu.core_info().library_name},
                                  {"content", fs::path(bench_core.content).filename().string()},
                                  {"ports", ports},
                                  {"window_frames", window},
                                  {"samples", samples},
                                  {"frame_budget_ms", budget_ms},
                                  {"median_ms", median},
                                  {"p99_ms", p99},
                                  {"median_pct_of_frame", 100 * median / budget_ms},
                                  {"p99_pct_of_frame", 100 * p99 / budget_ms},
                                  {"target_pct_of_frame", 50},
                                  {"plain_frames_ms", plain},
                                  {"state_handling_ratio", median / plain}};
        if (!bench::write_json(json_path, json)) return 2;
    }
    return 0;
}
