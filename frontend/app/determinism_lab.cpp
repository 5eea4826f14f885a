#include "frontend/app/determinism_lab.h"

#include <signal.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/child_process.h"
#include "frontend/app/command_error.h"
#include "frontend/atomic_file.h"
#include "frontend/host/headless.h"
#include "frontend/host/image.h"
#include "frontend/host/input_script.h"
#include "frontend/progress.h"
#include "netplay/determinism/state_hash.h"
#include "netplay/determinism/synctest.h"

namespace framelock::frontend {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using netplay::ByteDiff;
using netplay::RegionDiff;

constexpr std::size_t kMaxLine = 4096;

// What one check concluded, for the summary and the JSON report.
struct CheckReport {
    std::string name;
    bool passed = false;
    std::string verdict;  // deterministic, diverged, crashed, no-savestates, ...
    std::optional<std::uint64_t> frame;
    std::string message;
    Json details = Json::object();
};

Json ranges_json(const ByteDiff& diff, std::uint64_t base) {
    Json ranges = Json::array();
    for (const auto& r : diff.ranges) {
        ranges.push_back({{"offset", r.offset},
                          {"address", fmt::format("0x{:x}", base + r.offset)},
                          {"length", r.length}});
    }
    return {{"differing_bytes", diff.differing_bytes},
            {"range_count", diff.range_count},
            {"sizes_differ", diff.sizes_differ},
            {"ranges", ranges}};
}

Json regions_json(const std::vector<RegionDiff>& regions) {
    Json out = Json::array();
    for (const auto& r : regions) {
        Json one = ranges_json(r.diff, r.start);
        one["name"] = r.name;
        one["start"] = fmt::format("0x{:x}", r.start);
        out.push_back(std::move(one));
    }
    return out;
}

Status write_bytes(const fs::path& path, std::span<const std::uint8_t> bytes) {
    return write_file_atomic(path.string(), bytes);
}

std::string safe_name(const std::string& name) {
    std::string out;
    for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out.empty() ? "unnamed" : out;
}

// A picture kept after the core's buffer is gone.
struct KeptPicture {
    std::uint64_t frame = 0;
    Image image;
};

Status write_comparison_png(const fs::path& path, const Image& a, const Image& b,
                            std::size_t* differing) {
    if (a.pixels.empty() || b.pixels.empty()) return {};
    const Image diff = diff_highlight(a, b, differing);
    return write_png(path, side_by_side({&a, &b, &diff}, 4, 0x404040));
}

// ---------------------------------------------------------------------------------------
// Workers

struct WorkerCore {
    std::unique_ptr<RetroEmulator> emulator;
    std::unique_ptr<InputSource> input;
    HeadlessVideo video;
    HeadlessAudio audio;
};

Result<std::unique_ptr<WorkerCore>> open_core(const SynctestOptions& options) {
    HostConfig host = options.host;
    host.load_sram = false;
    host.write_sram = false;
    auto input = make_input_source(options.input_script,
                                   options.input_script.empty() && !options.random_seed
                                       ? std::optional<std::uint64_t>(1)
                                       : options.random_seed,
                                   host.ports);
    if (!input) return input.error();
    auto emulator = RetroEmulator::create(host);
    if (!emulator) return emulator.error();
    auto core = std::make_unique<WorkerCore>();
    core->emulator = std::move(emulator).value();
    core->input = std::move(input).value();
    core->video.keep_last_frame(true);
    core->emulator->set_video_sink(&core->video);
    core->emulator->set_audio_sink(&core->audio);
    return core;
}

int worker_roundtrip(const SynctestOptions& options, WorkerCore& core, const fs::path& dir,
                     std::FILE* out) {
    netplay::RoundTripCheck check(*core.emulator, {options.check_distance});
    std::deque<KeptPicture> first;  // the first run's recent pictures
    KeptPicture rerun;
    const std::size_t keep = 2 * static_cast<std::size_t>(options.check_distance) + 2;
    for (std::uint64_t f = 0; f < options.frames; ++f) {
        std::fprintf(out, "f %llu\n", static_cast<unsigned long long>(f));
        std::fflush(out);
        check.run(core.input->input_for(f));
        first.push_back({f, to_image(core.video.last_frame())});
        if (first.size() > keep) first.pop_front();
        while (check.rerunning()) {
            const std::uint64_t g = check.rerun_frame();
            std::fprintf(out, "r %llu\n", static_cast<unsigned long long>(g));
            std::fflush(out);
            check.rerun_step();
            if (check.failed()) rerun = {g, to_image(core.video.last_frame())};
        }
        if (check.failed()) break;
    }
    const netplay::RoundTripVerdict& v = check.finish();
    const auto& stats = check.stats();

    Json result = {{"verdict", netplay::round_trip_result_name(v.result)},
                   {"passed", v.result == netplay::RoundTripResult::kDeterministic},
                   {"frame", v.frame},
                   {"message", v.message},
                   {"check_distance", options.check_distance},
                   {"frames", stats.frames},
                   {"states_loaded", stats.loads},
                   {"frames_rerun", stats.rerun_frames},
                   {"state_size_min", stats.min_state_size},
                   {"state_size_max", stats.max_state_size},
                   {"state_size_changes", stats.size_changes}};
    if (stats.size_changes) result["first_state_size_change"] = stats.first_size_change;
    if (!v.reload_bytes.empty()) {
        Json ranges = Json::array();
        for (const auto& r : v.reload_bytes)
            ranges.push_back({{"offset", r.offset}, {"length", r.length}});
        result["reload_bytes"] = {{"bytes", netplay::covered_bytes(v.reload_bytes)},
                                  {"ranges", ranges}};
    }
    Json files = Json::array();
    if (v.result == netplay::RoundTripResult::kDiverged ||
        v.result == netplay::RoundTripResult::kSerializeTwice) {
        result["loaded_frame"] = v.loaded_frame;
        result["differs_after_load"] = v.differs_after_load;
        if (v.rerun_diverged) result["rerun_frame"] = v.rerun_frame;
        result["regions"] = regions_json(v.regions);
        result["state"] = ranges_json(v.state_diff, 0);
        const bool ok = write_bytes(dir / "state-first.bin", v.state_first) &&
                        write_bytes(dir / "state-other.bin", v.state_other);
        if (ok) files.push_back("state-first.bin"), files.push_back("state-other.bin");
        if (v.rerun_diverged) {
            auto it = std::find_if(first.begin(), first.end(),
                                   [&](const KeptPicture& p) { return p.frame == rerun.frame; });
            std::size_t differing = 0;
            if (it != first.end() && rerun.frame == v.rerun_frame &&
                write_comparison_png(dir / "frames.png", it->image, rerun.image, &differing)) {
                files.push_back("frames.png");
                result["picture_frame"] = rerun.frame;
                result["differing_pixels"] = differing;
            }
        }
    }
    result["files"] = files;
    std::fprintf(out, "result %s\n", result.dump().c_str());
    std::fflush(out);
    return 0;
}

// The hash-log line with the state hashed without the bytes in `mask` (zeroed).
std::string masked_line(std::uint64_t frame, netplay::Emulator& emulator,
                        const std::vector<netplay::ByteRange>& mask) {
    std::string line = hash_log_line(frame, emulator, true);
    std::vector<std::uint8_t> state;
    if (mask.empty() || !emulator.save_state(state)) return line;
    for (const auto& r : mask) {
        if (r.offset >= state.size()) continue;
        const std::size_t end = std::min(state.size(), r.offset + r.length);
        std::fill(state.begin() + static_cast<std::ptrdiff_t>(r.offset),
                  state.begin() + static_cast<std::ptrdiff_t>(end), std::uint8_t{0});
    }
    const std::size_t regions = line.find(' ', line.find(' ') + 1);
    return std::to_string(frame) + ' ' + netplay::hash_to_hex(netplay::hash_bytes(state)) +
           (regions == std::string::npos ? std::string() : line.substr(regions));
}

int worker_twice(WorkerCore& core, const fs::path& dir, std::FILE* out) {
    std::uint64_t frame = 0;
    std::vector<netplay::ByteRange> mask;  // state bytes left out of the state hash
    char line[kMaxLine];
    while (std::fgets(line, sizeof line, stdin)) {
        const std::string command(line, strcspn(line, "\r\n"));
        if (command == "run") {
            core.emulator->run_frame(core.input->input_for(frame), true);
            const std::string line_out = masked_line(frame, *core.emulator, mask);
            std::fprintf(out, "%s\n", line_out.c_str());
            ++frame;
        } else if (command.rfind("mask ", 0) == 0) {
            // "mask OFFSET:LENGTH ...": no answer.
            std::istringstream words(command.substr(5));
            std::string word;
            while (words >> word) {
                netplay::ByteRange r;
                if (std::sscanf(word.c_str(), "%zu:%zu", &r.offset, &r.length) == 2)
                    mask.push_back(r);
            }
        } else if (command == "dump") {
            // Answers "dumped NAME@START..." so the parent can give addresses.
            std::vector<std::uint8_t> state;
            if (core.emulator->save_state(state)) (void)write_bytes(dir / "state.bin", state);
            std::string answer = "dumped";
            for (const auto& region : core.emulator->memory_regions()) {
                (void)write_bytes(dir / ("region-" + safe_name(region.name) + ".bin"),
                                  region.bytes);
                answer += fmt::format(" {}@{:x}", region.name, region.start);
            }
            const Image picture = to_image(core.video.last_frame());
            if (!picture.pixels.empty()) (void)write_png(dir / "picture.png", picture);
            std::fprintf(out, "%s\n", answer.c_str());
        } else if (command == "quit") {
            break;
        } else {
            std::fprintf(stderr, "framelock synctest worker: unknown command '%s'\n",
                         command.c_str());
            return static_cast<int>(ErrorCode::kUsage);
        }
        std::fflush(out);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------
// The parent

std::vector<std::string> worker_command(const SynctestOptions& options, const std::string& mode,
                                        const fs::path& dir) {
    std::vector<std::string> args = options.self_command;
    args.insert(args.end(), {"--worker", mode, "--worker-dir", dir.string()});
    return args;
}

// The last non-empty line a worker wrote to stderr, to explain how it failed.
std::string last_line_of(const fs::path& path) {
    std::ifstream in(path);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return last;
}

std::string crash_message(const ExitStatus& status, const std::string& what,
                          const fs::path& stderr_path) {
    std::string message = "the core " +
                          std::string(status.signal ? "crashed" : "ended its process") + " (" +
                          status.describe() + ") " + what;
    const std::string last = last_line_of(stderr_path);
    if (!last.empty()) message += "; its last message: " + last;
    return message;
}

// Reads one line from a worker; nullopt at end of file.
std::optional<std::string> read_line(std::FILE* in) {
    char buffer[kMaxLine];
    if (!std::fgets(buffer, sizeof buffer, in)) return std::nullopt;
    return std::string(buffer, strcspn(buffer, "\r\n"));
}

bool send_line(ChildProcess& child, const char* line) {
    const std::size_t length = std::strlen(line);
    std::size_t done = 0;
    while (done < length) {
        const ssize_t n = ::write(child.stdin_fd(), line + done, length - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

struct PipedWorker {
    explicit PipedWorker(ChildProcess c) : child(std::move(c)) {}
    PipedWorker(const PipedWorker&) = delete;
    PipedWorker& operator=(const PipedWorker&) = delete;
    ChildProcess child;
    std::FILE* out = nullptr;  // the worker's stdout
    fs::path dir;
    fs::path stderr_path;
    ~PipedWorker() {
        if (out) std::fclose(out);
    }
};

Result<std::unique_ptr<PipedWorker>> start_worker(const SynctestOptions& options,
                                                  const std::string& mode, const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return make_error(ErrorCode::kIo, "cannot create " + dir.string() + ": " + ec.message());
    const fs::path stderr_path = dir / "worker.stderr";
    auto child =
        ChildProcess::spawn_piped(worker_command(options, mode, dir), stderr_path.string());
    if (!child) return child.error();
    auto worker = std::make_unique<PipedWorker>(std::move(child).value());
    worker->dir = dir;
    worker->stderr_path = stderr_path;
    worker->out = ::fdopen(::dup(worker->child.stdout_fd()), "r");
    if (!worker->out) return make_error(ErrorCode::kIo, "cannot read from the synctest worker");
    return worker;
}

ExitStatus finish_worker(PipedWorker& worker) {
    worker.child.close_pipes();
    auto status =
        worker.child.wait_until(std::chrono::steady_clock::now() + std::chrono::seconds(10));
    return status ? *status : worker.child.stop(std::chrono::milliseconds(500));
}

Result<CheckReport> check_roundtrip(const SynctestOptions& options, const fs::path& report_dir) {
    CheckReport out;
    out.name = "roundtrip";
    const fs::path dir = report_dir / "roundtrip";
    auto started = start_worker(options, "roundtrip", dir);
    if (!started) return started.error();
    PipedWorker& worker = *started.value();
    ProgressBar progress("roundtrip", options.frames, options.progress);
    std::uint64_t frame = 0;
    bool rerunning = false;
    std::optional<Json> result;
    while (auto line = read_line(worker.out)) {
        if (line->rfind("f ", 0) == 0) {
            frame = std::strtoull(line->c_str() + 2, nullptr, 10);
            rerunning = false;
            progress.update(frame + 1);
        } else if (line->rfind("r ", 0) == 0) {
            frame = std::strtoull(line->c_str() + 2, nullptr, 10);
            rerunning = true;
        } else if (line->rfind("result ", 0) == 0) {
            result = Json::parse(line->substr(7), nullptr, false);
        }
    }
    progress.done();
    const ExitStatus status = finish_worker(worker);
    if (!result || result->is_discarded()) {
        if (!status.signal && status.code != 0 && frame == 0) {
            // Never got going: a setup error (core or content would not load).
            return make_error(ErrorCode::kCoreLoad, "the round-trip worker failed (" +
                                                        status.describe() +
                                                        "): " + last_line_of(worker.stderr_path));
        }
        out.verdict = "crashed";
        out.frame = frame;
        out.message = crash_message(
            status,
            rerunning ? "while re-running frame " + std::to_string(frame) + " after loading a state"
                      : "while running frame " + std::to_string(frame),
            worker.stderr_path);
        out.details = {{"exit", status.describe()}};
        return out;
    }
    out.passed = (*result)["passed"].get<bool>();
    out.verdict = (*result)["verdict"].get<std::string>();
    if (!out.passed) out.frame = (*result)["frame"].get<std::uint64_t>();
    out.message = (*result)["message"].get<std::string>();
    out.details = std::move(*result);
    out.details.erase("message");
    out.details.erase("passed");
    out.details.erase("verdict");
    return out;
}

// Hash-log lines of both runs differ: which regions (by their hashes).
std::vector<std::string> differing_region_names(const std::string& a, const std::string& b) {
    std::vector<std::string> names;
    const auto ea = parse_hash_log_entry(a), eb = parse_hash_log_entry(b);
    if (!ea || !eb) return names;
    // Not a structured binding: clang before 16 cannot capture one in the lambda.
    for (const auto& region : ea->regions) {
        const std::string& name = region.first;
        auto it = std::find_if(eb->regions.begin(), eb->regions.end(),
                               [&](const auto& r) { return r.first == name; });
        if (it == eb->regions.end() || it->second != region.second) names.push_back(name);
    }
    return names;
}

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Result<CheckReport> check_twice(const SynctestOptions& options, const fs::path& report_dir,
                                const fs::path& hash_log) {
    CheckReport out;
    out.name = "twice";
    const fs::path dir = report_dir / "twice";
    auto a = start_worker(options, "twice", dir / "a");
    if (!a) return a.error();
    auto b = start_worker(options, "twice", dir / "b");
    if (!b) return b.error();
    std::FILE* log = std::fopen(hash_log.c_str(), "w");
    if (!log) return make_error(ErrorCode::kIo, "cannot write " + hash_log.string());
    ProgressBar progress("twice", options.frames, options.progress);
    std::optional<ByteDiff> process_bytes;  // savestate bytes that differ from power-on
    std::uint64_t f = 0;
    for (; f < options.frames; ++f) {
        const bool sent =
            send_line(a.value()->child, "run\n") && send_line(b.value()->child, "run\n");
        auto la = sent ? read_line(a.value()->out) : std::nullopt;
        auto lb = sent ? read_line(b.value()->out) : std::nullopt;
        if (!la || !lb) {
            std::fclose(log);
            progress.done();
            PipedWorker& gone = la ? *b.value() : *a.value();
            const ExitStatus status = finish_worker(gone);
            if (f == 0 && !status.signal && status.code != 0) {
                return make_error(ErrorCode::kCoreLoad, "the run-twice worker failed (" +
                                                            status.describe() +
                                                            "): " + last_line_of(gone.stderr_path));
            }
            out.verdict = "crashed";
            out.frame = f;
            out.message = crash_message(status,
                                        "while running frame " + std::to_string(f) +
                                            (la || lb ? " (in one run)" : " (in both runs)"),
                                        gone.stderr_path);
            return out;
        }
        std::fprintf(log, "%s\n", la->c_str());
        progress.update(f + 1);
        if (*la == *lb) continue;

        // The first divergent frame: both dump their machine as it is now.
        const bool sent_dump =
            send_line(a.value()->child, "dump\n") && send_line(b.value()->child, "dump\n");
        const auto answer = sent_dump ? read_line(a.value()->out) : std::nullopt;
        const bool dumped = answer && read_line(b.value()->out);
        std::map<std::string, std::uint64_t> starts;  // region name -> address
        if (answer) {
            std::istringstream words(*answer);
            std::string word;
            while (words >> word) {
                const auto at = word.rfind('@');
                if (at != std::string::npos)
                    starts[word.substr(0, at)] = std::strtoull(word.c_str() + at + 1, nullptr, 16);
            }
        }
        std::vector<std::string> names = differing_region_names(*la, *lb);
        std::vector<RegionDiff> regions;
        for (const auto& name : names) {
            const std::string file = "region-" + safe_name(name) + ".bin";
            regions.push_back(
                {name, starts[name],
                 netplay::diff_bytes(read_bytes(dir / "a" / file), read_bytes(dir / "b" / file))});
        }
        const auto state_a = read_bytes(dir / "a" / "state.bin");
        const auto state_b = read_bytes(dir / "b" / "state.bin");
        const ByteDiff state = netplay::diff_bytes(state_a, state_b);
        if (f == 0 && names.empty() && !state.empty() && !state.sizes_differ &&
            state.range_count == state.ranges.size()) {
            // From power-on every memory region agrees and a few bytes of the savestate do
            // not: a value the core takes from its process (a clock read at load, leftover
            // memory). Compared from now on without them, so anything else that differs later
            // is still caught; a difference first seen later is a divergence as ever.
            process_bytes = state;
            std::string mask = "mask";
            for (const auto& r : state.ranges) mask += fmt::format(" {}:{}", r.offset, r.length);
            mask += "\n";
            if (send_line(a.value()->child, mask.c_str()) &&
                send_line(b.value()->child, mask.c_str()))
                continue;
        }
        out.verdict = "diverged";
        out.frame = f;
        out.message = "two runs from power-on with the same inputs differ at frame " +
                      std::to_string(f) + ": " +
                      (regions.empty() ? std::string("no memory region differs")
                                       : netplay::describe_regions(regions) + " differ") +
                      (state.empty() ? "; the savestates are equal"
                                     : "; " + std::to_string(state.differing_bytes) +
                                           " bytes of the savestate differ");
        out.details = {{"regions", regions_json(regions)},
                       {"state", ranges_json(state, 0)},
                       {"line_first", *la},
                       {"line_second", *lb},
                       {"dumped", dumped}};
        Json files = {"a/state.bin", "b/state.bin"};
        auto pa = read_png(dir / "a" / "picture.png");
        auto pb = read_png(dir / "b" / "picture.png");
        std::size_t differing = 0;
        if (pa && pb &&
            write_comparison_png(dir / "frames.png", pa.value(), pb.value(), &differing)) {
            files.push_back("frames.png");
            out.details["differing_pixels"] = differing;
        }
        out.details["files"] = files;
        break;
    }
    std::fclose(log);
    progress.done();
    (void)send_line(a.value()->child, "quit\n");
    (void)send_line(b.value()->child, "quit\n");
    finish_worker(*a.value());
    finish_worker(*b.value());
    if (!out.frame) {
        out.passed = true;
        out.verdict = "deterministic";
        out.message = std::to_string(f) +
                      " frames: both runs had the same state hash and memory after every frame";
        out.details = {{"frames", f}};
        if (process_bytes) {
            out.message = fmt::format(
                "{} frames: both runs had the same memory after every frame, and the same state "
                "but for {} byte(s) of the savestate ({} range(s), first at offset {}) that "
                "differ between the two processes from power-on and never affected the game: "
                "a value the core takes from its process (a clock read at load, leftover "
                "memory). Not a desync: netplay starts every player from one state (the first "
                "player's) for this reason",
                f, process_bytes->differing_bytes, process_bytes->range_count,
                process_bytes->ranges.front().offset);
            out.details["process_bytes"] = ranges_json(*process_bytes, 0);
        }
    }
    return out;
}

std::string input_description(const SynctestOptions& options) {
    if (!options.input_script.empty()) return "input script " + options.input_script;
    return "random input (seed " + std::to_string(options.random_seed.value_or(1)) + ")";
}

}  // namespace

Status check_rollback_savestates(const HostConfig& host, std::uint64_t frames,
                                 std::uint32_t distance) {
    HostConfig copy = host;
    copy.private_core_copy = true;
    copy.load_sram = copy.write_sram = false;
    copy.savestate_context = RETRO_SAVESTATE_CONTEXT_ROLLBACK_NETPLAY;
    auto emulator = RetroEmulator::create(copy);
    if (!emulator) return emulator.error();
    HeadlessVideo video;
    HeadlessAudio audio;
    emulator.value()->set_video_sink(&video);
    emulator.value()->set_audio_sink(&audio);
    RandomInput random(1, copy.ports);
    std::vector<netplay::InputFrame> inputs(frames);
    for (std::uint64_t f = 0; f < frames; ++f) inputs[f] = random.input_for(f);
    const auto verdict = netplay::run_round_trip_check(*emulator.value(), inputs, {distance});
    if (verdict.result == netplay::RoundTripResult::kDeterministic) return {};
    return make_error(ErrorCode::kState,
                      "rollback refused: " + emulator.value()->core_info().library_name +
                          "'s savestates are not deterministic with this content (" +
                          netplay::round_trip_result_name(verdict.result) + " at frame " +
                          std::to_string(verdict.frame) + ": " + verdict.message +
                          "). Play in frame lock instead (leave out --mode rollback, or add "
                          "--fallback-framelock to do that automatically); `framelock synctest` "
                          "shows the details");
}

std::optional<HashLogEntry> parse_hash_log_entry(const std::string& line) {
    std::istringstream in(line);
    HashLogEntry entry;
    std::string frame, hash;
    if (!(in >> frame >> hash) || hash.size() != 16) return std::nullopt;
    char* end = nullptr;
    entry.frame = std::strtoull(frame.c_str(), &end, 10);
    if (frame.empty() || *end) return std::nullopt;
    entry.hash = std::strtoull(hash.c_str(), &end, 16);
    if (*end) return std::nullopt;
    std::string field;
    while (in >> field) {
        const auto eq = field.rfind('=');
        if (eq == std::string::npos || field.size() - eq - 1 != 16) return std::nullopt;
        const std::uint64_t value = std::strtoull(field.c_str() + eq + 1, &end, 16);
        if (*end) return std::nullopt;
        entry.regions.emplace_back(field.substr(0, eq), value);
    }
    return entry;
}

int run_synctest(const SynctestOptions& options) {
    ::signal(SIGPIPE, SIG_IGN);  // a worker that died must not take us with it
    const fs::path report_dir = options.report_dir;
    std::error_code ec;
    fs::create_directories(report_dir, ec);
    if (ec) {
        std::fprintf(stderr, "framelock: error: cannot create %s: %s\n", report_dir.c_str(),
                     ec.message().c_str());
        return static_cast<int>(ErrorCode::kIo);
    }
    for (const char* stale : {"summary.txt", "summary.json", "hashes.log", "roundtrip", "twice"})
        fs::remove_all(report_dir / stale, ec);

    // Load the core here once: errors in the setup come out plainly, and the report names
    // the core and content.
    std::string core_name, core_version, content_hash;
    {
        HostConfig host = options.host;
        host.load_sram = host.write_sram = false;
        auto emulator = RetroEmulator::create(host);
        if (!emulator) return fail(emulator.error());
        core_name = emulator.value()->core_info().library_name;
        core_version = emulator.value()->core_info().library_version;
        content_hash = netplay::hash_to_hex(emulator.value()->content_hash());
    }
    const std::string content =
        options.host.content_path.empty() ? "(none)" : options.host.content_path;
    fmt::print("framelock synctest: {} {}, content {} ({}), {} frames of {}\n", core_name,
               core_version, content, content_hash, options.frames, input_description(options));
    std::fflush(stdout);

    std::vector<CheckReport> checks;
    const fs::path hash_log = report_dir / "hashes.log";
    if (options.check_roundtrip) {
        auto r = check_roundtrip(options, report_dir);
        if (!r) return fail(r.error());
        checks.push_back(std::move(r).value());
    }
    if (options.check_twice) {
        auto r = check_twice(options, report_dir, hash_log);
        if (!r) return fail(r.error());
        checks.push_back(std::move(r).value());
    }

    bool all = true;
    std::string text = fmt::format("core     {} {}\ncontent  {} ({})\nframes   {} of {}\n",
                                   core_name, core_version, content, content_hash, options.frames,
                                   input_description(options));
    Json json = {{"core", core_name},
                 {"core_version", core_version},
                 {"content", content},
                 {"content_hash", content_hash},
                 {"frames", options.frames},
                 {"input", input_description(options)},
                 {"check_distance", options.check_distance}};
    Json json_checks = Json::array();
    for (const auto& c : checks) {
        all = all && c.passed;
        text += fmt::format("{:<9} {:<13} {}\n", c.name, c.passed ? "PASS" : "FAIL " + c.verdict,
                            c.message);
        Json one = {{"name", c.name}, {"passed", c.passed}, {"verdict", c.verdict}};
        if (c.frame) one["frame"] = *c.frame;
        one["message"] = c.message;
        one["details"] = c.details;
        json_checks.push_back(std::move(one));
    }
    if (options.check_twice && fs::exists(hash_log)) {
        text += "hashes   " + hash_log.string() +
                " (compare with another machine's: framelock synctest --compare A B)\n";
        json["hash_log"] = "hashes.log";
    }
    text += std::string("verdict  ") +
            (all ? "deterministic: every selected check passed"
                 : "NOT deterministic: see the failed checks above and the files in " +
                       report_dir.string()) +
            "\n";
    json["checks"] = json_checks;
    json["passed"] = all;
    fmt::print("{}", text);
    const std::string json_text = json.dump(2) + "\n";
    Status written = write_file_atomic(report_dir / "summary.txt", text);
    if (written) written = write_file_atomic(report_dir / "summary.json", json_text);
    if (!written) return fail(written.error());
    return all ? 0 : 1;
}

int run_synctest_worker(const SynctestOptions& options, const std::string& mode,
                        const std::string& dir) {
    if (mode != "roundtrip" && mode != "twice")
        return fail(make_error(ErrorCode::kUsage, "unknown synctest worker mode '" + mode + "'"));
    // The answers to the parent get the pipe on stdout to themselves; whatever else writes to
    // stdout (a core: gambatte prints "Plain ROM loaded." and three more lines when it loads)
    // goes to stderr. Those lines used to reach the parent as the answers to its first "run"
    // commands, so "twice" compared every frame's line with a few frames' delay: bytes that
    // differ between the two processes from power-on were then seen frames later, where they
    // are no longer told apart from a divergence (README.md, gambatte).
    const int answers_fd = ::dup(STDOUT_FILENO);
    std::FILE* answers = answers_fd < 0 ? nullptr : ::fdopen(answers_fd, "w");
    if (!answers || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        return fail(make_error(ErrorCode::kIo, std::string("synctest worker: cannot set aside "
                                                           "its answers' stdout: ") +
                                                   std::strerror(errno)));
    auto opened = open_core(options);
    if (!opened) return fail(opened.error());
    WorkerCore& core = *opened.value();
    const int code = mode == "roundtrip" ? worker_roundtrip(options, core, dir, answers)
                                         : worker_twice(core, dir, answers);
    std::fclose(answers);
    return code;
}

int run_synctest_compare(const std::string& a_path, const std::string& b_path) {
    std::vector<HashLogEntry> logs[2];
    const std::string paths[2] = {a_path, b_path};
    for (int i = 0; i < 2; ++i) {
        std::ifstream in(paths[i]);
        if (!in) {
            std::fprintf(stderr, "framelock: error: cannot read hash log '%s'\n", paths[i].c_str());
            return static_cast<int>(ErrorCode::kIo);
        }
        std::string line;
        std::size_t number = 0;
        while (std::getline(in, line)) {
            ++number;
            if (line.empty()) continue;
            auto entry = parse_hash_log_entry(line);
            if (!entry) {
                std::fprintf(stderr,
                             "framelock: error: %s line %zu is not a hash-log line "
                             "(FRAME HASH[ NAME=HASH...]): '%s'\n",
                             paths[i].c_str(), number, line.substr(0, 80).c_str());
                return static_cast<int>(ErrorCode::kUsage);
            }
            logs[i].push_back(std::move(*entry));
        }
    }
    const std::size_t common = std::min(logs[0].size(), logs[1].size());
    for (std::size_t i = 0; i < common; ++i) {
        const HashLogEntry& x = logs[0][i];
        const HashLogEntry& y = logs[1][i];
        if (x.frame != y.frame) {
            fmt::print("line {}: the logs cover different frames ({} and {})\n", i + 1, x.frame,
                       y.frame);
            return 1;
        }
        std::vector<std::string> regions;
        for (const auto& region : x.regions) {
            const std::string& name = region.first;
            auto it = std::find_if(y.regions.begin(), y.regions.end(),
                                   [&](const auto& r) { return r.first == name; });
            if (it != y.regions.end() && it->second != region.second) regions.push_back(name);
        }
        if (x.hash != y.hash || !regions.empty()) {
            std::string names;
            for (const auto& n : regions) names += (names.empty() ? "" : ", ") + n;
            fmt::print("DIVERGED at frame {}: state {} vs {}; regions that differ: {}\n", x.frame,
                       netplay::hash_to_hex(x.hash), netplay::hash_to_hex(y.hash),
                       names.empty() ? "none (or not logged)" : names);
            return 1;
        }
    }
    if (logs[0].size() != logs[1].size()) {
        fmt::print("identical for the {} frames both cover; {} has {} lines, {} has {}\n", common,
                   a_path, logs[0].size(), b_path, logs[1].size());
        return 1;
    }
    fmt::print("identical: {} frames\n", common);
    return 0;
}

}  // namespace framelock::frontend
