#include "frontend/app/synctest_roundtrip.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "frontend/terminal/progress.h"
#include "netplay/determinism/state_hash.h"
#include "netplay/determinism/synctest.h"

namespace framelock::frontend::synctest {

namespace fs = std::filesystem;

namespace {

// A picture kept after the core's buffer is gone.
struct KeptPicture {
    std::uint64_t frame = 0;
    Image image;
};

}  // namespace

int run_roundtrip_worker(const SynctestOptions& options, WorkerCore& core, const fs::path& dir,
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

}  // namespace framelock::frontend::synctest
