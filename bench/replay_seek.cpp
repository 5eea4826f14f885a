// Seeking in a long replay: a session of the bundled arcade core (or --core) is played on
// the simulated network for --minutes of emulated time, one player recording it as a
// session does (RecordingEmulator, a keyframe every 600 frames); then the replay is read
// back and a viewer's emulator seeks to --seeks random frames. Each seek's time is printed
// next to the baseline measured on the same frames in the same run, re-running from the
// start (what seeking cost before keyframes, and what a replay without them costs), and the
// state hash after every frame shown is checked against the recording's, for the seeks and
// for steps a frame at a time back and forth across a keyframe.
//
// --check: exits 1 when a hash differs or a seek takes 0.2 s or more.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

#include "bench/bench_core.h"
#include "bench/bench_json.h"
#include "frontend/files/replay_file.h"
#include "frontend/session/recording_emulator.h"
#include "frontend/session/session_identity.h"
#include "netplay/determinism/replay_seeker.h"
#include "netplay/sim/sim_session.h"

using namespace framelock;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A player's emulator that records the session as `join --record` does: the replay opens
// at the first frame with the state the session started from (a common start loads one
// player's power-on state into every player's core). In the frame lock every frame run is
// final, so each is handed to the replay as soon as it ran.
class RecordedCore final : public netplay::Emulator {
  public:
    // The replay's writer goes to `writer`, which outlives the session.
    RecordedCore(std::unique_ptr<frontend::RetroEmulator> core, std::string path,
                 netplay::ReplayHeader header, std::unique_ptr<frontend::ReplayWriter>& writer)
        : m_core(std::move(core)),
          m_recording(*m_core, nullptr, 0, nullptr, {}, true),
          m_path(std::move(path)),
          m_header(std::move(header)),
          m_writer(writer) {}
    void run_frame(const netplay::InputFrame& inputs, bool present) override {
        if (!m_writer && !m_failed) {
            m_header.start_frame = static_cast<std::uint32_t>(m_core->frame_count());
            if (!m_core->save_state(m_header.start_state)) m_header.start_state.clear();
            auto writer = frontend::ReplayWriter::open(m_path, m_header);
            m_failed = !writer;
            if (writer) m_writer = std::move(writer).value();
            m_recording.record_to(m_writer.get());
        }
        m_recording.run_frame(inputs, present);
        m_recording.flush_log(m_core->frame_count());
    }
    std::uint64_t frame_count() const override { return m_core->frame_count(); }
    bool save_state(std::vector<std::uint8_t>& out) override { return m_core->save_state(out); }
    bool load_state(std::span<const std::uint8_t> state) override {
        return m_core->load_state(state);
    }
    void rewind_to(std::uint64_t next_frame) override { m_recording.rewind_to(next_frame); }
    std::uint64_t state_hash() override { return m_core->state_hash(); }
    std::vector<netplay::MemoryRegion> memory_regions() override {
        return m_core->memory_regions();
    }
    double frames_per_second() const override { return m_core->frames_per_second(); }

  private:
    std::unique_ptr<frontend::RetroEmulator> m_core;
    frontend::RecordingEmulator m_recording;
    std::string m_path;
    netplay::ReplayHeader m_header;
    std::unique_ptr<frontend::ReplayWriter>& m_writer;
    bool m_failed = false;
};

std::unique_ptr<frontend::RetroEmulator> make_core(const frontend::HostConfig& host) {
    auto core = frontend::RetroEmulator::create(host);
    if (!core) {
        fmt::print(stderr, "bench_replay_seek: {}\n", core.error().message);
        std::exit(2);
    }
    return std::move(core).value();
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"seeking in a long replay: keyframes against re-running from the start"};
    bench::BenchCore core;
    core.add_to(app);
    double minutes = 30;
    int seeks = 10;
    bool check = false;
    std::string json_path;
    std::string keep;
    app.add_option("--minutes", minutes, "the session's length, emulated minutes")
        ->capture_default_str();
    app.add_option("--seeks", seeks, "random frames to seek to")->capture_default_str();
    app.add_flag("--check", check, "exit 1 when a hash differs or a seek takes 0.2 s or more");
    app.add_option("--json", json_path, "also write the figures to this JSON file");
    app.add_option("--keep", keep, "keep the replay at this path (else a temporary file)");
    CLI11_PARSE(app, argc, argv);
    const auto host = core.host_config();
    if (!host) return 2;
    frontend::HostConfig private_host = *host;
    private_host.private_core_copy = true;  // the session's players share no globals
    if (core.core == "arcade") private_host.option_overrides.emplace("farcade_players", "2");

    // The recording: a two-player session on the simulated network, 40 ms round trips.
    const std::string path = keep.empty()
                                 ? (std::filesystem::temp_directory_path() /
                                    ("bench-replay-seek-" + std::to_string(::getpid()) + ".flrp"))
                                       .string()
                                 : keep;
    auto probe = make_core(private_host);
    netplay::ReplayHeader header;
    header.identity = frontend::session_identity(*probe);
    header.players = 2;
    const double fps = probe->frames_per_second();
    probe.reset();
    std::unique_ptr<frontend::ReplayWriter> writer;
    netplay::SimScenario sc;
    sc.players = 2;
    sc.frames = static_cast<std::uint32_t>(minutes * 60 * 60);
    sc.seed = 29;
    sc.link.latency_us = 20'000;
    sc.link.jitter_us = 2'000;
    sc.hold_min = 4;
    sc.hold_max = 40;
    sc.keep_events = false;
    sc.make_emulator = [&](int client) -> std::unique_ptr<netplay::Emulator> {
        if (client == 1) {
            return std::make_unique<RecordedCore>(make_core(private_host), path, header, writer);
        }
        return make_core(private_host);
    };
    auto t0 = Clock::now();
    sc.fps = fps;
    const netplay::SimResult session = netplay::run_scenario(sc);
    if (session.clients.empty() || session.clients[0].stats.frames_run < sc.frames) {
        fmt::print(stderr, "bench_replay_seek: the session did not run its {} frames\n", sc.frames);
        return 2;
    }
    const double record_s = ms_since(t0) / 1000;
    if (Status closed =
            writer ? writer->close() : make_error(ErrorCode::kIo, "the replay was not written");
        !closed) {
        fmt::print(stderr, "bench_replay_seek: {}\n", closed.error().message);
        return 2;
    }
    t0 = Clock::now();
    auto read = frontend::read_replay_file(path);
    const double read_ms = ms_since(t0);
    if (!read) {
        fmt::print(stderr, "bench_replay_seek: {}\n", read.error().message);
        return 2;
    }
    const netplay::ReplayContents& contents = read.value();
    const auto file_bytes = std::filesystem::file_size(path);
    if (keep.empty()) std::filesystem::remove(path);
    std::size_t keyframe_bytes = 0;
    for (const auto& k : contents.keyframes) keyframe_bytes += k.packed.size();
    fmt::print(
        "replay   {} frames ({:.1f} min at {:.3f} fps), {} keyframes, {:.1f} MiB ({:.1f} "
        "MiB of them keyframes); the session took {:.1f} s, reading the file {:.0f} ms\n",
        contents.frames.size(), contents.frames.size() / fps / 60.0, fps, contents.keyframes.size(),
        file_bytes / 1048576.0, keyframe_bytes / 1048576.0, record_s, read_ms);
    if (contents.frames.size() < 2) return 2;

    // The viewer: the seeks, then the baseline on the same frames.
    // Both viewers' cores stand at the replay's start, as `replay play` starts them.
    const auto at_start = [&](std::unique_ptr<frontend::RetroEmulator> emu) {
        if (!contents.header.start_state.empty() && !emu->load_state(contents.header.start_state)) {
            fmt::print(stderr, "bench_replay_seek: the core refused the replay's start state\n");
            std::exit(2);
        }
        emu->rewind_to(contents.header.start_frame);
        return emu;
    };
    auto viewer_core = at_start(make_core(private_host));
    netplay::ReplaySeeker seeker(*viewer_core, contents);
    auto base_core = at_start(make_core(private_host));
    netplay::ReplayContents without = contents;
    without.keyframes.clear();
    netplay::ReplaySeeker::Options only_start;
    // The start alone (and the state after its first frame): every seek re-runs from it.
    only_start.cache_interval = UINT32_MAX;
    netplay::ReplaySeeker baseline(*base_core, without, only_start);
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<std::uint64_t> any(seeker.first(), seeker.end() - 1);
    int mismatches = 0;
    double worst = 0, total = 0, base_worst = 0, base_total = 0;
    bench::Json rows = bench::Json::array();
    fmt::print("{:>8} {:>12} {:>10} {:>16} {:>8}\n", "frame", "seek ms", "re-ran", "from start ms",
               "hash");
    for (int i = 0; i < seeks; ++i) {
        const std::uint64_t frame = any(rng);
        t0 = Clock::now();
        auto ran = seeker.show(frame);
        const double ms = ms_since(t0);
        if (!ran) {
            fmt::print(stderr, "bench_replay_seek: {}\n", ran.error().message);
            return 2;
        }
        const bool same = seeker.hash_now() == seeker.recorded_hash();
        mismatches += !same;
        (void)baseline.show(baseline.first());
        t0 = Clock::now();
        (void)baseline.show(frame);
        const double base_ms = ms_since(t0);
        worst = std::max(worst, ms);
        total += ms;
        base_worst = std::max(base_worst, base_ms);
        base_total += base_ms;
        fmt::print("{:>8} {:>12.1f} {:>10} {:>16.1f} {:>8}\n", frame, ms, ran.value(), base_ms,
                   same ? "equal" : "DIFFERS");
        rows.push_back({{"frame", frame},
                        {"seek_ms", ms},
                        {"frames_rerun", ran.value()},
                        {"from_start_ms", base_ms},
                        {"hash_equal", same}});
    }
    // Steps a frame at a time across the keyframe nearest the middle: back, then forward.
    int steps = 0;
    double step_worst = 0;
    if (!contents.keyframes.empty()) {
        const std::uint64_t k = contents.keyframes[contents.keyframes.size() / 2].frame;
        (void)seeker.show(k + 3);
        std::vector<std::uint64_t> path_frames;
        for (std::uint64_t f = k + 2; f + 3 >= k; --f) path_frames.push_back(f);
        for (std::uint64_t f = k - 2; f <= k + 3; ++f) path_frames.push_back(f);
        for (const std::uint64_t f : path_frames) {
            t0 = Clock::now();
            auto ran = seeker.show(f);
            step_worst = std::max(step_worst, ms_since(t0));
            const bool same = ran && seeker.hash_now() == seeker.recorded_hash();
            if (!same)
                fmt::print("step     to frame {}: the state DIFFERS from the recording\n", f);
            mismatches += !same;
            ++steps;
        }
        fmt::print(
            "steps    {} single frames back and forth across the keyframe of frame {}: "
            "{}, the slowest {:.1f} ms\n",
            steps, k, mismatches == 0 ? "every hash equal" : "HASHES DIFFER", step_worst);
    }
    fmt::print(
        "seek     max {:.1f} ms, mean {:.1f} ms; re-running from the start: max {:.1f} ms, "
        "mean {:.1f} ms ({:.0f}x the keyframe seek's max)\n",
        worst, total / seeks, base_worst, base_total / seeks, worst > 0 ? base_worst / worst : 0.0);
    const bool holds = mismatches == 0 && worst < 200;
    fmt::print("verdict  {}: every seek under 0.2 s and every state as recorded\n",
               holds ? "holds" : "FAILS");
    if (!json_path.empty()) {
        bench::Json out = {{"bench", "replay_seek"},
                           {"frames", contents.frames.size()},
                           {"fps", fps},
                           {"keyframes", contents.keyframes.size()},
                           {"file_bytes", file_bytes},
                           {"seek_max_ms", worst},
                           {"from_start_max_ms", base_worst},
                           {"hash_mismatches", mismatches},
                           {"seeks", rows}};
        if (!bench::write_json(json_path, out)) return 2;
    }
    return check && !holds ? 1 : 0;
}
