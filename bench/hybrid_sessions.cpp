// The hybrid on real processes: a `framelock server --mode hybrid` and two `framelock join`
// bots on one core, on 127.0.0.1 through the impairment proxy, on each network of the
// issue's acceptance (80 ms and 150 ms round trips with 1% loss, and 40 ms with 3% loss in
// bursts of 3 datagrams on average: framelock_netem's two-state model), for a given number
// of frames. Per network it prints what a player feels and what prediction costs: the mean
// input delay the server scheduled (from frame 300 on, once the first round trips are in),
// the path floor the server estimated (what a frame lock pays), the stall frames of each
// player, the 99th percentile of the corrections' depth and of their re-run time, and
// whether the two hash logs (confirmed frames) are identical.
//
// The budget (docs/netplay.md, "The hybrid"): mean delay at most 2 frames, corrections p99
// at most the prediction window less a frame (11) deep and re-run within half a frame
// (8.3 ms), stall frames at most 0.1% of the frames, hash logs identical. --check exits 1
// when a network's figures are outside it.
//
// --ladder A-B plays each network in the frame lock too, beside the hybrid: adaptive, then at
// every fixed delay from A to B, and prints each one's mean delay and stall frames. The
// adaptive delay holds when its mean is at most the smallest fixed delay that stalls every
// player on at most 0.1% of the frames, plus half a frame (--check: exit 1 when it does not).
//
// --mode rollback plays rollback (its fixed local delay, 0) instead of the hybrid, under the
// same budget: the core atlas's direct run of a core it found safe (tools/atlas_direct.py).
//
//   bench_hybrid_sessions [--core arcade] [--content F] [--option K=V] [--ports N]
//                         [--frames 3600] [--networks 80ms,150ms,bursty40ms] [--ladder 4-12]
//                         [--mode hybrid|rollback] [--check] [--json F]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_core.h"
#include "bench/bench_json.h"
#include "bench/session_processes.h"

namespace {

using namespace std::chrono_literals;
using framelock::ChildProcess;
using framelock::bench::Json;
using framelock::bench::SessionProcesses;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kSettledFrom = 300;  // the delay is read from here on (5 s)
constexpr double kMaxMeanDelay = 2.0;
constexpr unsigned kMaxDepthP99 = 11;  // the hybrid's window (12) less a frame
constexpr double kMaxRerunMsP99 = 1000.0 / 60 / 2;

// A network of the acceptance: its name and the proxy's flags (one way each).
struct Network {
    std::string name;
    std::string what;
    std::vector<std::string> impairment;
};

const std::vector<Network>& networks() {
    static const std::vector<Network> all = {
        {"80ms",
         "80 ms round trip +-2 ms, 1% loss each way",
         {"--delay", "40", "--jitter", "2", "--loss", "1"}},
        {"150ms",
         "150 ms round trip +-2 ms, 1% loss each way",
         {"--delay", "75", "--jitter", "2", "--loss", "1"}},
        {"bursty40ms",
         "40 ms round trip +-2 ms, 3% loss in bursts of 3 each way",
         {"--delay", "20", "--jitter", "2", "--burst-loss", "3", "--burst-length", "3"}},
    };
    return all;
}

struct Figures {
    double mean_delay = 0;
    int max_delay = 0;
    int path_floor = 0;
    std::vector<unsigned> stall_frames;
    unsigned depth_p99 = 0;
    double rerun_ms_p99 = 0;
    bool identical = false;
    std::size_t hashed_frames = 0;
};

std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

nlohmann::json json_of(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// The figures of a finished session in `run`, or nothing after saying why.
std::optional<Figures> read_figures(const SessionProcesses& run, std::uint32_t frames) {
    Figures f;
    try {
        const auto server = json_of(run.file("server.json"));
        const auto& s = server.at("sessions").at(0);
        std::vector<std::pair<std::uint32_t, int>> schedule;
        for (const auto& entry : s.at("schedule"))
            schedule.emplace_back(entry.at("frame").get<std::uint32_t>(),
                                  entry.at("delay").get<int>());
        if (schedule.empty()) throw std::runtime_error("an empty delay schedule");
        double sum = 0;
        for (std::uint32_t frame = kSettledFrom; frame < frames; ++frame) {
            int delay = schedule.front().second;
            for (const auto& [from, d] : schedule) {
                if (from > frame) break;
                delay = d;
            }
            sum += delay;
            f.max_delay = std::max(f.max_delay, delay);
        }
        f.mean_delay = sum / (frames - kSettledFrom);
        f.path_floor = s.at("delay").at("path_floor").get<int>();
        for (const char* bot : {"bot1", "bot2"}) {
            const auto stats = json_of(run.file(std::string(bot) + ".json"));
            f.stall_frames.push_back(stats.at("stall_frames").get<unsigned>());
            if (!stats.contains("rollback")) continue;  // the frame lock
            const auto& r = stats.at("rollback");
            f.depth_p99 = std::max(f.depth_p99, r.at("correction_depth_p99").get<unsigned>());
            f.rerun_ms_p99 =
                std::max(f.rerun_ms_p99, r.at("correction_time_p99_us").get<double>() / 1000.0);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hybrid_sessions: cannot read the statistics: %s\n", e.what());
        return std::nullopt;
    }
    const auto a = lines_of(run.file("bot1.hashes"));
    const auto b = lines_of(run.file("bot2.hashes"));
    f.hashed_frames = std::min(a.size(), b.size());
    f.identical = a.size() == frames && a == b;
    return f;
}

// One session on `network` in `mode` (with `server_flags`): its figures, or nothing after
// saying what went wrong.
std::optional<Figures> play(const framelock::bench::BenchCore& core, const std::string& core_path,
                            const Network& network, std::uint32_t frames, const std::string& mode,
                            const std::vector<std::string>& server_flags = {}) {
    std::vector<std::string> game = {"--core", core_path, "--ports", std::to_string(core.ports)};
    // The players start in a directory of their own: the content's path must not depend on it.
    if (!core.content.empty())
        game.insert(game.end(), {"--content", std::filesystem::absolute(core.content).string()});
    for (const auto& option : core.options) game.insert(game.end(), {"--option", option});
    SessionProcesses run("hybrid_sessions", "bench-hybrid-" + network.name, game);
    const int seconds = static_cast<int>(frames / 60) + 60;
    const auto deadline = Clock::now() + std::chrono::seconds(seconds);
    auto address = run.server(2, mode, seconds, server_flags);
    if (!address) return std::nullopt;
    address = run.proxy(*address, network.impairment, seconds + 10);
    if (!address) return std::nullopt;
    const std::string frames_arg = std::to_string(frames);
    ChildProcess* one = run.join(*address, "bot1",
                                 {"--slot", "1", "--random", "31", "--frames", frames_arg,
                                  "--hash-log", run.file("bot1.hashes")});
    ChildProcess* two = run.join(*address, "bot2",
                                 {"--slot", "2", "--random", "32", "--frames", frames_arg,
                                  "--hash-log", run.file("bot2.hashes")});
    if (!one || !two) return std::nullopt;
    if (!run.finished(*one, "bot1", deadline) || !run.finished(*two, "bot2", deadline))
        return std::nullopt;
    if (!run.finished(*run.server_process(), "server", Clock::now() + 15s)) return std::nullopt;
    return read_figures(run, frames);
}

// Every player stalled on at most 0.1% of the frames.
bool stalls_within(const Figures& f, std::uint32_t frames) {
    return std::all_of(f.stall_frames.begin(), f.stall_frames.end(),
                       [&](unsigned s) { return s <= frames / 1000; });
}

bool within_budget(const Figures& f, std::uint32_t frames) {
    return f.mean_delay <= kMaxMeanDelay && f.depth_p99 <= kMaxDepthP99 &&
           f.rerun_ms_p99 <= kMaxRerunMsP99 && f.identical && stalls_within(f, frames);
}

// The frame lock on `network`: adaptive, then at each fixed delay of `ladder`; printed as it
// goes. Whether the adaptive delay holds (its mean within half a frame of the smallest fixed
// delay within the stall budget), or nothing after saying what went wrong.
std::optional<bool> play_ladder(const framelock::bench::BenchCore& core,
                                const std::string& core_path, const Network& network,
                                std::uint32_t frames, std::pair<int, int> ladder, Json& out) {
    const auto adaptive = play(core, core_path, network, frames, "framelock");
    if (!adaptive) return std::nullopt;
    std::printf("  %-8s frame lock, adaptive: mean delay %.2f (max %d), stall frames %u, %u%s\n",
                network.name.c_str(), adaptive->mean_delay, adaptive->max_delay,
                adaptive->stall_frames[0], adaptive->stall_frames[1],
                adaptive->identical ? "" : "  (hash logs DIFFER)");
    std::fflush(stdout);
    Json fixed = Json::array();
    std::optional<int> smallest;
    for (int delay = ladder.first; delay <= ladder.second; ++delay) {
        const auto f =
            play(core, core_path, network, frames, "framelock", {"--delay", std::to_string(delay)});
        if (!f) return std::nullopt;
        const bool within = stalls_within(*f, frames) && f->identical;
        if (within && !smallest) smallest = delay;
        std::printf("  %-8s frame lock, fixed %2d: stall frames %u, %u%s\n", network.name.c_str(),
                    delay, f->stall_frames[0], f->stall_frames[1], within ? "  (within 0.1%)" : "");
        std::fflush(stdout);
        fixed.push_back({{"delay", delay}, {"stall_frames", f->stall_frames}, {"within", within}});
    }
    const bool holds = adaptive->identical && smallest && adaptive->mean_delay <= *smallest + 0.5;
    std::printf(
        "  %-8s frame lock: adaptive %.2f against the smallest fixed delay within 0.1%% "
        "stalls %s: %s\n",
        network.name.c_str(), adaptive->mean_delay,
        smallest ? std::to_string(*smallest).c_str() : "(none in the ladder)",
        holds ? "holds (at most it + 0.5)" : "DOES NOT HOLD");
    std::fflush(stdout);
    out = {{"adaptive_mean_delay", adaptive->mean_delay},
           {"adaptive_stall_frames", adaptive->stall_frames},
           {"adaptive_identical", adaptive->identical},
           {"fixed", fixed},
           {"smallest_fixed_within_budget", smallest ? Json(*smallest) : Json()},
           {"holds", holds}};
    return holds;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"the hybrid on real processes through the impairment proxy"};
    framelock::bench::BenchCore core;
    core.add_to(app);
    std::uint32_t frames = 3600;
    std::vector<std::string> chosen;
    for (const auto& n : networks()) chosen.push_back(n.name);
    bool check = false;
    std::string json_path;
    std::string mode = "hybrid";
    app.add_option("--frames", frames, "frames per session")
        ->check(CLI::Range(kSettledFrom + 60, 1'000'000u))
        ->capture_default_str();
    std::vector<std::string> names;
    for (const auto& n : networks()) names.push_back(n.name);
    app.add_option("--networks", chosen, "the networks to play")
        ->delimiter(',')
        ->check(CLI::IsMember(names))
        ->capture_default_str();
    std::string ladder_text;
    app.add_option("--ladder", ladder_text,
                   "also play the frame lock, adaptive and at each fixed delay A to B (A-B)");
    app.add_flag("--check", check,
                 "exit 1 when a network's figures are outside the budget (and, with --ladder, "
                 "when the adaptive delay does not hold)");
    app.add_option("--json", json_path, "also write the figures to this JSON file");
    app.add_option("--mode", mode, "what the sessions play: the hybrid, or rollback (delay 0)")
        ->check(CLI::IsMember({"hybrid", "rollback"}))
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    std::optional<std::pair<int, int>> ladder;
    if (!ladder_text.empty()) {
        int a = 0, b = 0;
        if (std::sscanf(ladder_text.c_str(), "%d-%d", &a, &b) != 2 || a < 1 || b < a || b > 30) {
            std::fprintf(stderr, "hybrid_sessions: --ladder wants A-B, 1 <= A <= B <= 30\n");
            return 2;
        }
        ladder = std::pair(a, b);
    }

    const auto host = core.host_config();
    if (!host) return 2;
    std::printf(
        "hybrid_sessions: %s, 2 bots on %s%s, %u frames a session, through framelock_netem; the "
        "delay from frame %u on; budget: mean delay <= %.0f, corrections p99 <= %u deep and "
        "<= %.1f ms, stall frames <= %u per player, hash logs identical\n",
        mode.c_str(), core.core.c_str(),
        core.content.empty() ? "" : (" (" + core.content + ")").c_str(), frames, kSettledFrom,
        kMaxMeanDelay, kMaxDepthP99, kMaxRerunMsP99, frames / 1000);
    std::printf("  %-8s %-46s %10s %5s %5s %13s %9s %9s %9s\n", "network", "", "mean delay", "max",
                "floor", "stall frames", "depth p99", "re-run ms", "identical");
    std::fflush(stdout);
    Json out = Json::array();
    bool all_within = true;
    for (const auto& network : networks()) {
        if (std::find(chosen.begin(), chosen.end(), network.name) == chosen.end()) continue;
        const auto f = play(core, host->core_path, network, frames, mode);
        if (!f) return 1;
        const bool within = within_budget(*f, frames);
        all_within = all_within && within;
        std::printf("  %-8s %-46s %10.2f %5d %5d %6u, %5u %9u %9.2f %9s%s\n", network.name.c_str(),
                    network.what.c_str(), f->mean_delay, f->max_delay, f->path_floor,
                    f->stall_frames[0], f->stall_frames[1], f->depth_p99, f->rerun_ms_p99,
                    f->identical ? "yes" : "NO", within ? "" : "  (outside the budget)");
        std::fflush(stdout);
        out.push_back({{"network", network.name},
                       {"what", network.what},
                       {"frames", frames},
                       {"mean_delay", f->mean_delay},
                       {"max_delay", f->max_delay},
                       {"path_floor", f->path_floor},
                       {"stall_frames", f->stall_frames},
                       {"correction_depth_p99", f->depth_p99},
                       {"correction_time_p99_ms", f->rerun_ms_p99},
                       {"hash_logs_identical", f->identical},
                       {"within_budget", within}});
        if (ladder) {
            Json frame_lock;
            const auto holds =
                play_ladder(core, host->core_path, network, frames, *ladder, frame_lock);
            if (!holds) return 1;
            all_within = all_within && *holds;
            out.back()["frame_lock"] = frame_lock;
        }
    }
    std::printf("hybrid_sessions: %s\n",
                all_within ? "every network within the budget" : "outside the budget");
    if (!json_path.empty()) {
        const Json json = {{"bench", "hybrid_sessions"},
                           {"mode", mode},
                           {"core", core.core},
                           {"content", core.content},
                           {"settled_from_frame", kSettledFrom},
                           {"networks", out}};
        if (!framelock::bench::write_json(json_path, json)) return 2;
    }
    return check && !all_within ? 1 : 0;
}
