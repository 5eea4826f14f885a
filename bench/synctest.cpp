// Determinism-check throughput: frames the save/load round-trip check gets through per
// second, against a plain headless run of the same core, content and inputs in the same
// process (the ratio is the figure). Then the whole `framelock synctest` (both checks, in
// worker processes) against `framelock run` of the same frames, end to end.
//
// Inputs are random but use only B, A and the d-pad: nestopia's turbo X/Y are outside its
// savestates (see README), and a failing check would stop early and measure nothing.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_core.h"
#include "common/child_process.h"
#include "common/log.h"
#include "frontend/host/headless.h"
#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"
#include "netplay/determinism/synctest.h"

namespace fs = std::filesystem;
using namespace framelock;
using namespace framelock::frontend;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double run_plain(const HostConfig& config, const std::vector<netplay::InputFrame>& inputs) {
    auto emulator = RetroEmulator::create(config);
    if (!emulator) throw std::runtime_error(emulator.error().message);
    HeadlessVideo video;
    HeadlessAudio audio;
    emulator.value()->set_video_sink(&video);
    emulator.value()->set_audio_sink(&audio);
    const auto start = Clock::now();
    for (const auto& frame : inputs) emulator.value()->run_frame(frame, true);
    return seconds_since(start);
}

double run_check(const HostConfig& config, const std::vector<netplay::InputFrame>& inputs,
                 std::string& verdict) {
    auto emulator = RetroEmulator::create(config);
    if (!emulator) throw std::runtime_error(emulator.error().message);
    HeadlessVideo video;
    HeadlessAudio audio;
    video.keep_last_frame(true);  // as the synctest worker, which keeps pictures for reports
    emulator.value()->set_video_sink(&video);
    emulator.value()->set_audio_sink(&audio);
    const auto start = Clock::now();
    const auto v = netplay::run_round_trip_check(*emulator.value(), inputs, {8});
    const double elapsed = seconds_since(start);
    verdict = v.result == netplay::RoundTripResult::kDeterministic
                  ? "deterministic"
                  : std::string(netplay::round_trip_result_name(v.result)) + " at frame " +
                        std::to_string(v.frame);
    return elapsed;
}

double run_command(const std::vector<std::string>& args) {
    const auto start = Clock::now();
    auto child = ChildProcess::spawn(args, "/dev/null", "/dev/null");
    if (!child) throw std::runtime_error(child.error().message);
    auto status = child.value().wait_until(Clock::now() + std::chrono::minutes(10));
    if (!status) throw std::runtime_error(args[1] + " did not finish");
    if (status->code > 1 || status->signal)
        throw std::runtime_error(args[1] + " failed: " + status->describe());
    return seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"synctest throughput against a plain headless run"};
    bench::BenchCore bench_core;
    bench_core.add_to(app);
    unsigned frames = 3000, rounds = 3;
    app.add_option("--frames", frames, "frames per run")->capture_default_str();
    app.add_option("--rounds", rounds, "rounds (best of)")->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    set_log_level(LogLevel::kError);

    auto host = bench_core.host_config();
    if (!host) return 2;
    HostConfig config = *host;
    config.private_core_copy = true;
    const std::string& core = bench_core.core;
    const std::string& content = bench_core.content;
    const std::vector<std::string>& options = bench_core.options;
    const unsigned ports = bench_core.ports;
    RandomInput random(1941, ports);
    std::vector<netplay::InputFrame> inputs(frames);
    for (unsigned f = 0; f < frames; ++f) {
        inputs[f] = random.input_for(f);
        for (auto& pad : inputs[f].pads) pad &= 0x01f1;  // B, A, d-pad
    }

    std::vector<double> plain, check;
    std::string verdict;
    try {
        for (unsigned round = 0; round < rounds; ++round) {
            plain.push_back(run_plain(config, inputs));
            check.push_back(run_check(config, inputs, verdict));
        }
    } catch (const std::exception& e) {
        fmt::print(stderr, "bench_synctest: {}\n", e.what());
        return 1;
    }
    const double best_plain = *std::min_element(plain.begin(), plain.end());
    const double best_check = *std::min_element(check.begin(), check.end());
    fmt::print(
        "synctest ({}): round trip checks {:.0f} frames/s, plain headless runs {:.0f} "
        "frames/s: ratio {:.2f} ({} frames, distance 8, best of {}; verdict {})\n",
        core, frames / best_check, frames / best_plain, best_plain / best_check, frames, rounds,
        verdict);

    // End to end: the framelock next to this benchmark.
    const fs::path exe = fs::read_symlink("/proc/self/exe").parent_path() / "framelock";
    if (fs::exists(exe)) {
        const fs::path report = fs::temp_directory_path() / "framelock-bench-synctest";
        std::vector<std::string> common = {
            "--core",  config.core_path,      "--frames",  std::to_string(frames),
            "--ports", std::to_string(ports), "--no-sram", "-q"};
        if (!content.empty()) common.insert(common.end(), {"--content", content});
        for (const auto& o : options) common.insert(common.end(), {"--option", o});
        std::vector<std::string> run_args = {exe.string(), "run"};
        run_args.insert(run_args.end(), common.begin(), common.end());
        std::vector<std::string> sync_args = {exe.string(), "synctest", "--no-progress", "--report",
                                              report.string()};
        sync_args.insert(sync_args.end(), common.begin(), common.end());
        try {
            const double run_s = run_command(run_args);
            const double sync_s = run_command(sync_args);
            fmt::print(
                "synctest ({}): `framelock synctest` (both checks, worker processes) {:.2f} s, "
                "`framelock run` {:.2f} s for the same {} frames: {:.1f}x the time\n",
                core, sync_s, run_s, frames, sync_s / run_s);
        } catch (const std::exception& e) {
            fmt::print(stderr, "bench_synctest: {}\n", e.what());
            return 1;
        }
        fs::remove_all(report);
    }
    return 0;
}
