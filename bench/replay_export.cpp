// How fast `framelock replay export` turns a replay into a video, beside the baseline of the
// same replay played headless (`framelock replay play`, the emulation alone) in the same run.
//
// A replay of --frames (default 3,600: a minute at 60 fps) is made here with what a session's
// replay holds (the core's state at its first frame, every frame's pads, from two seeded bots,
// and the evidence hash after each; no keyframes: an export plays forward and needs none),
// checked with `replay play --verify`, then exported to .mp4
// (the default settings), .webm and a lossless .mkv; each child's wall time is printed with
// its ratio to the baseline, and the export's own "export: N frames in S s" line. The goal:
// a minute's .mp4 in under 30 s on a 2-core machine, and that .mp4 as ffprobe reads it: the
// core's frame rate, every frame (counted by decoding) and a sound stream.
//
//   bench_replay_export [--frames N] [--core arcade] [--option K=V]...
#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_core.h"
#include "bench/bench_json.h"
#include "bench/sibling_exe.h"
#include "frontend/files/replay_file.h"
#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/session/session_identity.h"
#include "netplay/determinism/evidence.h"
#include "support/process.h"
#include "support/temp_dir.h"

using namespace framelock;

namespace {

// A replay of `frames` frames from the core's first frame, two bots' pads.
Status make_replay(const frontend::HostConfig& host, std::uint64_t frames,
                   const std::string& path) {
    auto created = frontend::RetroEmulator::create(host);
    if (!created) return created.error();
    frontend::RetroEmulator& emu = *created.value();
    netplay::ReplayHeader header;
    header.identity = frontend::session_identity(emu);
    header.players = static_cast<std::uint8_t>(host.ports);
    header.start_frame = 0;
    if (!emu.save_state(header.start_state))
        return make_error(ErrorCode::kState, "the core cannot save its state");
    auto writer = frontend::ReplayWriter::open(path, header);
    if (!writer) return writer.error();
    frontend::RandomInput bots(7, host.ports);
    std::vector<std::uint8_t> scratch;
    for (std::uint64_t f = 0; f < frames; ++f) {
        netplay::ReplayFrame frame;
        frame.inputs = bots.input_for(f);
        emu.run_frame(frame.inputs, false);
        frame.hash = netplay::evidence_hash(emu, netplay::EvidenceMask{}, scratch);
        if (Status s = writer.value()->add(frame); !s) return s;
    }
    return writer.value()->close();
}

struct Timed {
    bool ok = false;
    double seconds = 0;
    std::string out;
};

// Runs `args` to its end (support/process.h, 10 minutes at most): its wall time and output.
Timed timed(const std::vector<std::string>& args) {
    const auto started = std::chrono::steady_clock::now();
    const test::ProcessResult run = test::run_process(args, std::chrono::minutes(10));
    Timed result;
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    result.out = run.out;
    result.ok = !run.timed_out && !run.signaled && run.exit_code == 0;
    if (!result.ok) fmt::print(stderr, "export   {} failed:\n{}{}\n", args[2], run.out, run.err);
    return result;
}

// The export's own line: "export: N frames in S s (X fps)".
std::string export_line(const std::string& out) {
    const auto at = out.find("export: ");
    return at == std::string::npos ? "(no export line)" : out.substr(at, out.find('\n', at) - at);
}

// What ffprobe reads of an export: the video's rate and frame count (counted by decoding),
// the sound's codec and rate. False, after saying why, unless the rate is the core's, every
// frame is there and there is sound.
bool probe_export(const std::string& file, std::uint64_t frames, double fps) {
    // Debian's ffmpeg package (tools/quickstart.sh installs it) puts ffprobe there.
    const Timed probed = timed(
        {"/usr/bin/ffprobe", "-v", "error", "-count_frames", "-show_streams", "-of", "json", file});
    if (!probed.ok) return false;
    const auto streams =
        nlohmann::json::parse(probed.out, nullptr, false).value("streams", nlohmann::json::array());
    nlohmann::json video = nlohmann::json::object(), audio = nlohmann::json::object();
    for (const auto& stream : streams) {
        const std::string type = stream.value("codec_type", "");
        if (type == "video") video = stream;
        if (type == "audio") audio = stream;
    }
    const std::string rate_text = video.value("r_frame_rate", "0/1");
    const auto slash = rate_text.find('/');
    const double rate = slash == std::string::npos ? 0
                                                   : std::stod(rate_text.substr(0, slash)) /
                                                         std::stod(rate_text.substr(slash + 1));
    const std::string counted = video.value("nb_read_frames", "");
    const bool rate_ok = std::abs(rate - fps) < 1e-6 * fps;
    const bool frames_ok = counted == std::to_string(frames);
    const bool sound_ok = audio.contains("codec_name");
    fmt::print(
        "export   ffprobe {}: video {} at {} ({} the core's {:.6f} fps), {} frames ({}); "
        "audio {} at {} Hz\n",
        std::filesystem::path(file).filename().string(), video.value("codec_name", "NONE"),
        rate_text, rate_ok ? "is" : "IS NOT", fps, counted,
        frames_ok ? "every one" : "NOT " + std::to_string(frames),
        audio.value("codec_name", "NONE"), audio.value("sample_rate", "-"));
    return rate_ok && frames_ok && sound_ok;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"replay export's speed against replay play's, same replay, same run"};
    bench::BenchCore core;
    core.options = {"farcade_players=2"};
    core.add_to(app);
    std::uint64_t frames = 3600;
    app.add_option("--frames", frames, "the replay's length")->capture_default_str();
    std::string json_path;
    app.add_option("--json", json_path, "also write the figures to this JSON file");
    CLI11_PARSE(app, argc, argv);
    const auto host = core.host_config();
    if (!host) return 1;
    double fps = 0;
    {
        auto probe_core = frontend::RetroEmulator::create(*host);
        if (!probe_core) {
            fmt::print(stderr, "export   {}\n", probe_core.error().message);
            return 1;
        }
        fps = probe_core.value()->frames_per_second();
    }
    const framelock::test::TempDir dir("bench_replay_export");
    const std::string replay = dir.file("match.flrp");
    if (Status s = make_replay(*host, frames, replay); !s) {
        fmt::print(stderr, "export   cannot make the replay: {}\n", s.error().message);
        return 1;
    }
    std::vector<std::string> game = {"--core", host->core_path, "--no-sram",
                                     "-q",     "--ports",       std::to_string(host->ports)};
    for (const auto& o : core.options) game.insert(game.end(), {"--option", o});
    const std::string exe = bench::sibling_exe("framelock");
    const auto run = [&](std::vector<std::string> args) {
        args.insert(args.begin(), exe);
        args.insert(args.end(), game.begin(), game.end());
        return timed(args);
    };
    const Timed verified = run({"replay", "play", replay, "--verify"});
    if (!verified.ok) return 1;
    const Timed baseline = run({"replay", "play", replay});
    if (!baseline.ok) return 1;
    fmt::print("export   {} frames of {} ({:.1f} s of play), replay verified\n", frames, core.core,
               static_cast<double>(frames) / 60.0);
    fmt::print("export   baseline  replay play          {:6.2f} s\n", baseline.seconds);
    bool fast = true;
    bench::Json exports = bench::Json::array();
    for (const char* out : {"match.mp4", "match.webm", "lossless.mkv"}) {
        std::vector<std::string> args = {"replay", "export", replay, dir.file(out),
                                         "--no-progress"};
        if (std::string(out) == "lossless.mkv") args.push_back("--lossless");
        const Timed exported = run(args);
        if (!exported.ok) return 1;
        fmt::print("export   {:<12} replay export {:6.2f} s ({:.1f}x the baseline)  {}\n", out,
                   exported.seconds, exported.seconds / baseline.seconds,
                   export_line(exported.out));
        exports.push_back({{"file", out},
                           {"seconds", exported.seconds},
                           {"baseline_ratio", exported.seconds / baseline.seconds}});
        if (std::string(out) == "match.mp4" && !probe_export(dir.file(out), frames, fps)) return 1;
        if (std::string(out) == "match.mp4") {
            // The goal scales with the length: 30 s a minute.
            const double limit = 30.0 * static_cast<double>(frames) / 3600.0;
            fast = exported.seconds < limit;
            fmt::print("export   mp4 goal: under {:.1f} s: {}\n", limit, fast ? "met" : "MISSED");
        }
    }
    if (!json_path.empty()) {
        const bench::Json json = {{"bench", "replay_export"},
                                  {"core", core.core},
                                  {"frames", frames},
                                  {"baseline_play_s", baseline.seconds},
                                  {"mp4_limit_s", 30.0 * static_cast<double>(frames) / 3600.0},
                                  {"exports", exports}};
        if (!bench::write_json(json_path, json)) return 1;
    }
    return fast ? 0 : 1;
}
