// Host overhead: framelock's headless host against a bare loop that dlopens the same
// core and calls retro_run directly with the same content, options and inputs.
//
// Both run in this process, alternating (ABBA) over several rounds, each round on a
// fresh private copy of the core so no run inherits another's globals. The figure is
// the ratio of the fastest host round to the fastest bare round (throughput: >1 would
// mean the host is faster). Both runs must end on the same state hash, which proves
// they did the same work.
#include <dlfcn.h>
#include <libretro.h>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_core.h"
#include "bench/bench_json.h"
#include "common/log.h"
#include "frontend/files/atomic_file.h"
#include "frontend/host/core_locator.h"
#include "frontend/host/headless.h"
#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"
#include "netplay/determinism/state_hash.h"

namespace fs = std::filesystem;
using namespace framelock;
using namespace framelock::frontend;

namespace {

using Clock = std::chrono::steady_clock;

// ---- the bare loop: only what a core needs to run, nothing framelock adds ----
namespace bare {
std::map<std::string, std::string> g_options;
std::string g_system_dir;
const netplay::InputFrame* g_input = nullptr;

bool environment(unsigned cmd, void* data) {
    switch (cmd) {
        case RETRO_ENVIRONMENT_SET_PIXEL_FORMAT:
            return true;
        case RETRO_ENVIRONMENT_GET_CAN_DUPE:
            *static_cast<bool*>(data) = true;
            return true;
        case RETRO_ENVIRONMENT_SET_SUPPORT_NO_GAME:
            return true;
        case RETRO_ENVIRONMENT_GET_INPUT_BITMASKS:
            return true;
        case RETRO_ENVIRONMENT_GET_SYSTEM_DIRECTORY:
        case RETRO_ENVIRONMENT_GET_SAVE_DIRECTORY:
            *static_cast<const char**>(data) = g_system_dir.c_str();
            return true;
        case RETRO_ENVIRONMENT_GET_VARIABLE: {
            auto* var = static_cast<retro_variable*>(data);
            auto it = g_options.find(var->key);
            var->value = it == g_options.end() ? nullptr : it->second.c_str();
            return var->value != nullptr;
        }
        case RETRO_ENVIRONMENT_GET_VARIABLE_UPDATE:
            *static_cast<bool*>(data) = false;
            return true;
        default:
            return false;
    }
}
void video(const void*, unsigned, unsigned, size_t) {}
void audio(int16_t, int16_t) {}
size_t audio_batch(const int16_t*, size_t frames) {
    return frames;
}
void poll() {}
int16_t input(unsigned port, unsigned device, unsigned, unsigned id) {
    if (port >= netplay::kMaxPlayers || (device & RETRO_DEVICE_MASK) != RETRO_DEVICE_JOYPAD)
        return 0;
    const auto word = g_input->pads[port];
    return id == RETRO_DEVICE_ID_JOYPAD_MASK ? static_cast<int16_t>(word)
                                             : static_cast<int16_t>((word >> id) & 1);
}

struct Result {
    double seconds;
    std::uint64_t hash;
};

template <class F>
F symbol(void* handle, const char* name) {
    return reinterpret_cast<F>(::dlsym(handle, name));
}

Result run(const std::string& core_path, const std::vector<std::uint8_t>& content,
           const std::string& content_path, bool need_fullpath, unsigned ports,
           const std::vector<netplay::InputFrame>& inputs) {
    const fs::path copy =
        fs::temp_directory_path() / ("framelock-bench-bare-" + std::to_string(::getpid()) + ".so");
    fs::copy_file(core_path, copy, fs::copy_options::overwrite_existing);
    void* h = ::dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw std::runtime_error(::dlerror());
    symbol<void (*)(retro_environment_t)>(h, "retro_set_environment")(environment);
    symbol<void (*)(retro_video_refresh_t)>(h, "retro_set_video_refresh")(video);
    symbol<void (*)(retro_audio_sample_t)>(h, "retro_set_audio_sample")(audio);
    symbol<void (*)(retro_audio_sample_batch_t)>(h, "retro_set_audio_sample_batch")(audio_batch);
    symbol<void (*)(retro_input_poll_t)>(h, "retro_set_input_poll")(poll);
    symbol<void (*)(retro_input_state_t)>(h, "retro_set_input_state")(input);
    symbol<void (*)()>(h, "retro_init")();
    retro_game_info game{};
    game.path = content_path.empty() ? nullptr : content_path.c_str();
    if (!need_fullpath && !content.empty()) {
        game.data = content.data();
        game.size = content.size();
    }
    if (!symbol<bool (*)(const retro_game_info*)>(
            h, "retro_load_game")(content_path.empty() ? nullptr : &game)) {
        throw std::runtime_error("bare loop: core refused the content");
    }
    auto set_device = symbol<void (*)(unsigned, unsigned)>(h, "retro_set_controller_port_device");
    for (unsigned p = 0; p < ports; ++p) set_device(p, RETRO_DEVICE_JOYPAD);
    auto retro_run = symbol<void (*)()>(h, "retro_run");

    const auto start = Clock::now();
    for (const auto& frame : inputs) {
        g_input = &frame;
        retro_run();
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

    std::vector<std::uint8_t> state(symbol<size_t (*)()>(h, "retro_serialize_size")());
    symbol<bool (*)(void*, size_t)>(h, "retro_serialize")(state.data(), state.size());
    symbol<void (*)()>(h, "retro_unload_game")();
    symbol<void (*)()>(h, "retro_deinit")();
    ::dlclose(h);
    fs::remove(copy);
    return {seconds, netplay::hash_bytes(state)};
}
}  // namespace bare

struct HostRun {
    double seconds;
    std::uint64_t hash;
    std::map<std::string, std::string> options;
    bool need_fullpath;
};

HostRun run_host(const HostConfig& config, const std::vector<netplay::InputFrame>& inputs) {
    auto created = RetroEmulator::create(config);
    if (!created) throw std::runtime_error(created.error().message);
    RetroEmulator& emu = *created.value();
    HeadlessVideo video;
    HeadlessAudio audio;
    emu.set_video_sink(&video);
    emu.set_audio_sink(&audio);
    const auto start = Clock::now();
    for (const auto& frame : inputs) emu.run_frame(frame, true);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    HostRun run{seconds, emu.state_hash(), {}, emu.core_info().need_fullpath};
    for (const auto& option : emu.options().options()) run.options[option.key] = option.value;
    return run;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"host overhead: framelock's headless host vs a bare retro_run loop"};
    bench::BenchCore bench_core;
    bench_core.add_to(app);
    unsigned frames = 3000, rounds = 7;
    double target = 0.97;
    bool require = false;
    app.add_option("--frames", frames, "frames per run")->capture_default_str();
    app.add_option("--rounds", rounds, "rounds (each runs host and bare once)")
        ->capture_default_str();
    app.add_option("--target", target, "ratio the host must reach")->capture_default_str();
    app.add_flag("--require", require, "exit 1 when the ratio is below the target");
    std::string json_path;
    app.add_option("--json", json_path, "also write the figures to this JSON file");
    CLI11_PARSE(app, argc, argv);
    set_log_level(LogLevel::kError);

    auto host = bench_core.host_config();
    if (!host) return 2;
    HostConfig config = *host;
    config.private_core_copy = true;
    const std::string& content = bench_core.content;
    const unsigned ports = bench_core.ports;
    std::vector<std::uint8_t> content_bytes;
    if (!content.empty()) content_bytes = read_file(content).value();

    RandomInput random(1941, ports);
    std::vector<netplay::InputFrame> inputs(frames);
    for (unsigned f = 0; f < frames; ++f) inputs[f] = random.input_for(f);

    std::vector<double> host_times, bare_times;
    std::vector<std::uint64_t> host_hashes, bare_hashes;
    bool need_fullpath = false;
    try {
        for (unsigned round = 0; round < rounds; ++round) {
            // ABBA order: neither side always runs on a warmer machine.
            for (int step = 0; step < 2; ++step) {
                if ((round % 2 == 0) == (step == 0)) {
                    HostRun h = run_host(config, inputs);
                    host_times.push_back(h.seconds);
                    host_hashes.push_back(h.hash);
                    bare::g_options = h.options;
                    bare::g_system_dir = config.system_dir;
                    need_fullpath = h.need_fullpath;
                } else {
                    // Round 0 runs the host first, so the bare loop gets the same option values.
                    auto b = bare::run(config.core_path, content_bytes, content, need_fullpath,
                                       ports, inputs);
                    bare_times.push_back(b.seconds);
                    bare_hashes.push_back(b.hash);
                }
            }
        }
    } catch (const std::exception& e) {
        fmt::print(stderr, "benchmark failed: {}\n", e.what());
        return 2;
    }
    const double host_best = *std::min_element(host_times.begin(), host_times.end());
    const double bare_best = *std::min_element(bare_times.begin(), bare_times.end());
    const double ratio = bare_best / host_best;  // throughput ratio host/bare
    fmt::print("host_overhead core={} content={} frames={} rounds={}\n",
               fs::path(config.core_path).filename().string(),
               content.empty() ? "(none)" : fs::path(content).filename().string(), frames, rounds);
    fmt::print("  bare loop : {:9.0f} frames/s (best of {})\n", frames / bare_best,
               bare_times.size());
    fmt::print("  framelock : {:9.0f} frames/s (best of {})\n", frames / host_best,
               host_times.size());
    // Every round of both sides must end on the first round's state, or the two sides
    // did not do the same work (or the core is not deterministic from one load to the next).
    const std::uint64_t reference = host_hashes.front();
    const auto differing = [&](const std::vector<std::uint64_t>& hashes) {
        return std::count_if(hashes.begin(), hashes.end(),
                             [&](std::uint64_t h) { return h != reference; });
    };
    const long host_off = differing(host_hashes), bare_off = differing(bare_hashes);
    const bool same = host_off == 0 && bare_off == 0;
    fmt::print(
        "  same final state in every round: {} ({}; rounds differing: framelock {}, bare {})\n",
        same ? "yes" : "NO", netplay::hash_to_hex(reference), host_off, bare_off);
    if (!same) {
        fmt::print(
            "  note: a run that ends elsewhere than the others means the core is not "
            "deterministic\n"
            "        across loads in one process (framelock synctest tells where); the ratio "
            "still\n"
            "        compares equal amounts of emulation.\n");
    }
    fmt::print("  throughput ratio framelock/bare = {:.3f} (target >= {:.2f}: {})\n", ratio, target,
               ratio >= target ? "met" : "NOT met");
    if (!json_path.empty()) {
        const bench::Json json = {
            {"bench", "host_overhead"},
            {"core", fs::path(config.core_path).filename().string()},
            {"content", content.empty() ? "" : fs::path(content).filename().string()},
            {"ports", ports},
            {"frames", frames},
            {"rounds", rounds},
            {"bare_frames_per_s", frames / bare_best},
            {"framelock_frames_per_s", frames / host_best},
            {"ratio", ratio},
            {"target", target},
            {"same_final_state", same}};
        if (!bench::write_json(json_path, json)) return 2;
    }
    return (require && (ratio < target || !same)) ? 1 : 0;
}
