#include "frontend/app/synctest_twice.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "frontend/app/synctest_hash_log.h"
#include "frontend/terminal/progress.h"
#include "netplay/determinism/state_hash.h"
#include "netplay/determinism/synctest.h"

namespace framelock::frontend::synctest {

namespace fs = std::filesystem;
using netplay::ByteDiff;
using netplay::RegionDiff;

namespace {

// Ranges per "mask" line to the workers: " OFFSET:LENGTH" takes at most 41 characters, so a
// line stays well inside kMaxLine.
constexpr std::size_t kMaskRangesPerLine = 64;

// Sleeps, when the wall clock's second is past its first kEarlyInSecond, to the start of the
// next one: two cores loaded right after then read the same second.
constexpr std::chrono::milliseconds kEarlyInSecond{300};
void sleep_into_early_second() {
    using namespace std::chrono;
    const auto now = system_clock::now();
    const auto into = duration_cast<milliseconds>(now.time_since_epoch()) % seconds(1);
    if (into > kEarlyInSecond) std::this_thread::sleep_for(seconds(1) - into + milliseconds(5));
}

// A memory region's name as a file name: letters and digits, the rest '_'.
std::string safe_name(const std::string& name) {
    std::string out;
    for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out.empty() ? "unnamed" : out;
}

// A whole file's bytes; empty when it cannot be read.
std::vector<std::uint8_t> read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
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

}  // namespace

int run_twice_worker(WorkerCore& core, const fs::path& dir, std::FILE* out) {
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

Result<CheckReport> check_twice(const SynctestOptions& options, const fs::path& report_dir,
                                const fs::path& hash_log) {
    CheckReport out;
    out.name = "twice";
    const fs::path dir = report_dir / "twice";
    // Both runs power on in the same second of the wall clock: a core that takes the
    // clock's second at power-on (bsnes-mercury's accuracy and balanced profiles fill memory
    // at random from time(); mednafen_wswan sets its real-time clock) would otherwise differ
    // whenever the two loads straddle a second, one run in a hundred. What a process holds
    // at power-on is what a session's common start state covers; the check is after what
    // differs while the two run.
    sleep_into_early_second();
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
        // A core that exposes memory goes on being compared region by region, so its state
        // may differ anywhere the game does not see (bsnes-mercury seeds the sound chip's RAM
        // from the wall clock's second at power-on: tens of thousands of bytes in hundreds of
        // ranges, in two runs that start in different seconds); one that exposes none, only
        // in a few ranges.
        const bool regions_compared = !starts.empty();
        if (f == 0 && names.empty() && !state.empty() && !state.sizes_differ &&
            (state.range_count == state.ranges.size() || regions_compared)) {
            // From power-on every memory region agrees and bytes of the savestate do not: a
            // value the core takes from its process (a clock read at load, leftover memory).
            // Compared from now on without them, so anything else that differs later is still
            // caught; a difference first seen later is a divergence as ever.
            process_bytes = state;
            const ByteDiff all = netplay::diff_bytes(state_a, state_b, state.range_count);
            bool sent_mask = true;
            for (std::size_t i = 0; i < all.ranges.size() && sent_mask; i += kMaskRangesPerLine) {
                std::string mask = "mask";
                for (std::size_t j = i; j < std::min(all.ranges.size(), i + kMaskRangesPerLine);
                     ++j)
                    mask += fmt::format(" {}:{}", all.ranges[j].offset, all.ranges[j].length);
                mask += "\n";
                sent_mask = send_line(a.value()->child, mask.c_str()) &&
                            send_line(b.value()->child, mask.c_str());
            }
            if (sent_mask) continue;
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

}  // namespace framelock::frontend::synctest
