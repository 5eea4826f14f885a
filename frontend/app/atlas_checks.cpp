#include "frontend/app/atlas_checks.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/child_process.h"
#include "frontend/app/demo.h"  // compare_hash_logs
#include "frontend/files/read_back.h"

namespace framelock::frontend {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The last line of a log that says what went wrong (a logged error, or the error a command
// ended with), else its last line: a core may log on after the error.
std::string last_words(const fs::path& log) {
    const auto lines = read_lines(log);
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
        if (it->find("[error]") != std::string::npos || it->rfind("framelock: error: ", 0) == 0)
            return *it;
    }
    return lines.empty() ? std::string("(no output)") : lines.back();
}

// The core, content, pads and options of `core`, as every verb takes them.
std::vector<std::string> core_args(const AtlasSettings& s, const AtlasCore& core) {
    std::vector<std::string> args{"--core", core.core, "--ports", std::to_string(core.ports),
                                  "--no-sram"};
    if (!core.content.empty()) {
        args.push_back("--content");
        args.push_back((fs::path(s.roms_dir) / core.content).string());
    }
    for (const auto& option : core.options) {
        args.push_back("--option");
        args.push_back(option);
    }
    return args;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// Runs a child to its end within `limit`; its stdout and stderr in `log`.
std::optional<ExitStatus> run_child(const std::vector<std::string>& args, const fs::path& log,
                                    std::chrono::milliseconds limit, std::string* error) {
    auto child = ChildProcess::spawn(args, log.string(), log.string());
    if (!child) {
        *error = child.error().message;
        return std::nullopt;
    }
    auto status = child.value().wait_until(Clock::now() + limit);
    if (!status) {
        child.value().stop(1s);
        *error = fmt::format("did not end within {} s", limit.count() / 1000);
    }
    return status;
}

AtlasCheck failed(std::string name, std::string summary, std::string message) {
    AtlasCheck check;
    check.name = std::move(name);
    check.passed = false;
    check.summary = std::move(summary);
    check.message = std::move(message);
    return check;
}

std::chrono::milliseconds frames_limit(std::uint64_t frames, double per_frame_ms, int base_s) {
    return std::chrono::milliseconds(static_cast<long>(frames * per_frame_ms) + base_s * 1000L);
}

AtlasCheck inputs_check(const AtlasSettings& s, const AtlasCore& core, const fs::path& dir) {
    const std::string frames = std::to_string(std::min<std::uint64_t>(s.check_frames, 600));
    std::string error;
    std::vector<std::vector<std::string>> logs;
    for (const bool random : {false, true}) {
        const fs::path hashes = dir / (random ? "random.hashes" : "idle.hashes");
        auto args = concat({s.self, "run", "--video", "none", "--audio", "none", "--frames", frames,
                            "--hash-log", hashes.string(), "-q"},
                           core_args(s, core));
        if (random) args.insert(args.end(), {"--random", "1"});
        auto status = run_child(args, dir / (random ? "random.log" : "idle.log"),
                                frames_limit(s.check_frames, 20, 30), &error);
        if (!status || !status->success())
            return failed(
                "inputs", "could not run",
                error.empty() ? last_words(dir / (random ? "random.log" : "idle.log")) : error);
        logs.push_back(read_lines(hashes));
    }
    const HashLogComparison c = compare_hash_logs(logs[0], logs[1]);
    AtlasCheck check;
    check.name = "inputs";
    check.passed = c.first_difference.has_value();
    if (c.first_difference) {
        check.summary = fmt::format("from frame {}", *c.first_difference);
        check.message =
            fmt::format("random pads change the state from frame {} on", *c.first_difference);
    } else {
        check.summary = "no effect";
        check.message = fmt::format(
            "{} frames with random pads ended in the same states as with none: the content "
            "does not read these pads",
            frames);
    }
    return check;
}

// The first differing region a synctest check names in its details.
std::string first_region(const nlohmann::json& details) {
    if (details.contains("regions") && details["regions"].is_array() && !details["regions"].empty())
        return details["regions"][0].value("name", "");
    if (details.contains("state")) return "savestate";
    return {};
}

std::vector<AtlasCheck> synctest_check(const AtlasSettings& s, const AtlasCore& core,
                                       const fs::path& dir, const std::string& mode,
                                       std::uint32_t distance, AtlasCoreIdentity* identity) {
    const std::string name = mode == "twice" ? "twice" : fmt::format("roundtrip {}", distance);
    std::string error;
    const fs::path report = dir / "report";
    auto args = concat({s.self, "synctest", "--mode", mode, "--distance", std::to_string(distance),
                        "--frames", std::to_string(s.check_frames), "--random", "1", "--report",
                        report.string(), "--no-progress", "-q"},
                       core_args(s, core));
    auto status =
        run_child(args, dir / "synctest.log", frames_limit(s.check_frames, 60, 60), &error);
    const auto read = read_json(report / "summary.json");
    const nlohmann::json summary = read.ok() ? read.value() : nlohmann::json();
    if (!status || !summary.contains("checks") || !summary["checks"].is_array() ||
        summary["checks"].empty())
        return {failed(name, "could not run",
                       error.empty() ? last_words(dir / "synctest.log") : error)};
    if (identity) {
        identity->name = summary.value("core", "");
        identity->version = summary.value("core_version", "");
        while (!identity->version.empty() && identity->version.back() == ' ')
            identity->version.pop_back();
    }
    const nlohmann::json& result = summary["checks"][0];
    const nlohmann::json details = result.value("details", nlohmann::json::object());
    AtlasCheck check;
    check.name = name;
    check.passed = result.value("passed", false);
    check.message = result.value("message", "");
    if (result.contains("frame") && result["frame"].is_number_unsigned())
        check.frame = result["frame"].get<std::uint64_t>();
    check.region = first_region(details);
    // Two runs whose states differ from power-on pass synctest (values of the process, the
    // memory says the game never saw them), but a core that shows no memory cannot vouch
    // for that: desmume keeps addresses of its process's heap in its state, and sessions of
    // its two players then differ at a frame that varies from run to run.
    const auto hash_line = read_lines(report / "hashes.log");
    const bool shows_memory =
        !hash_line.empty() && hash_line.front().find('=') != std::string::npos;
    if (mode == "twice" && *check.passed && details.contains("process_bytes") && !shows_memory) {
        const auto bytes = details["process_bytes"].value("differing_bytes", std::uint64_t{0});
        check.passed = false;
        check.frame = 0;
        check.region = "savestate";
        check.message = fmt::format(
            "the two runs' savestates differ in {} bytes from power-on, and the core shows no "
            "memory to tell whether the game reads them: {}",
            bytes, check.message);
    }
    if (*check.passed) {
        check.summary = "ok";
    } else if (mode == "twice" && check.frame == std::optional<std::uint64_t>(0)) {
        // The two differ before running anything of the game: values of their processes.
        check.summary =
            "power-on differs" + (check.region.empty() ? "" : " (" + check.region + ")");
    } else {
        check.summary = fmt::format("{} at frame {}{}", result.value("verdict", "failed"),
                                    check.frame.value_or(0),
                                    check.region.empty() ? "" : " (" + check.region + ")");
    }
    std::vector<AtlasCheck> checks{check};
    if (mode == "roundtrip" && distance == 1) {
        AtlasCheck size;
        size.name = "state size";
        const auto lo = details.value("state_size_min", std::uint64_t{0});
        const auto hi = details.value("state_size_max", std::uint64_t{0});
        const auto changes = details.value("state_size_changes", std::uint64_t{0});
        const auto frames = details.value("frames", s.check_frames);
        size.passed = changes == 0 && lo > 0;
        size.summary = lo == hi ? fmt::format("{} B", lo) : fmt::format("{}-{} B", lo, hi);
        size.message =
            fmt::format("{} to {} bytes, {} changes over {} frames", lo, hi, changes, frames);
        checks.push_back(size);
        AtlasCheck load;
        load.name = "load bytes";
        const bool after_load = details.value("differs_after_load", false);
        if (after_load && details.contains("state")) {
            const auto bytes = details["state"].value("differing_bytes", std::uint64_t{0});
            load.summary = fmt::format("{} B", bytes);
            load.message = fmt::format(
                "loading a state and saving it again changes {} bytes that the game did not "
                "write: {}",
                bytes, check.message);
        } else {
            load.summary = "none";
            load.message = "a state saved right after loading it equals the loaded one";
        }
        checks.push_back(load);
    }
    return checks;
}

// A player process that ended badly: refused (rollback on savestates that fail its check),
// or failed, in its log's words.
AtlasCheck player_failed(const std::string& name, const fs::path& dir, const std::string& id,
                         const std::string& how) {
    const std::string words = last_words(dir / (id + ".log"));
    const bool refused = words.find("refused") != std::string::npos;
    return failed(name, refused ? "refused" : "failed",
                  how.empty() ? id + ": " + words : fmt::format("{} ({}): {}", id, how, words));
}

AtlasCheck session_check(const AtlasSettings& s, const AtlasCore& core, const fs::path& dir,
                         const std::string& mode) {
    const std::string name = mode + " session";
    const std::string frames = std::to_string(s.session_frames);
    const fs::path port_file = dir / "host.port";
    std::error_code ec;
    fs::remove(port_file, ec);
    const auto player = [&](int n) {
        const std::string id = n == 1 ? "host" : "join";
        return std::vector<std::string>{"--video", "none", "--audio", "none", "--random",
                                        std::to_string(10 + n), "--frames", frames, "--hash-log",
                                        (dir / (id + ".hashes")).string(), "--stats-json",
                                        (dir / (id + ".json")).string(), "--name",
                                        "atlas " + std::to_string(n), "--rejoin-file", "-",
                                        // A desync's bundles stay with the check's files.
                                        "--desync-bundle", (dir / (id + ".bundles")).string()};
    };
    auto host_args = concat(
        concat({s.self, "host", "--players", "2", "--port", "0", "--port-file", port_file.string(),
                "--no-upnp", "--mode", mode, "--server-stats-json", (dir / "server.json").string()},
               player(1)),
        core_args(s, core));
    auto host =
        ChildProcess::spawn(host_args, (dir / "host.log").string(), (dir / "host.log").string());
    if (!host) return failed(name, "could not run", host.error().message);
    auto port = wait_for_port_file(port_file.string(), host.value(), Clock::now() + 120s);
    if (!port) return player_failed(name, dir, "host", "");
    // The second player starts seconds after the first, as people do.
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long>(s.start_gap_s * 1e3)));
    auto join = ChildProcess::spawn(
        concat(concat({s.self, "join", fmt::format("127.0.0.1:{}", port.value())}, player(2)),
               core_args(s, core)),
        (dir / "join.log").string(), (dir / "join.log").string());
    if (!join) return failed(name, "could not run", join.error().message);
    const auto deadline = Clock::now() + frames_limit(s.session_frames, 50, 120);
    for (ChildProcess* child : {&host.value(), &join.value()}) {
        if (!child->wait_until(deadline)) {
            child->stop(1s);
            return failed(
                name, "did not end",
                fmt::format("{} did not end in time", child == &host.value() ? "host" : "join"));
        }
    }
    for (const char* id : {"host", "join"}) {
        ChildProcess& child = std::string(id) == "host" ? host.value() : join.value();
        if (!child.status()->success())
            return player_failed(name, dir, id, child.status()->describe());
    }
    const HashLogComparison c =
        compare_hash_logs(read_lines(dir / "host.hashes"), read_lines(dir / "join.hashes"));
    std::uint64_t desyncs = 0;
    if (auto server = read_json(dir / "server.json"); server.ok()) {
        for (const auto& session : server.value()["sessions"])
            desyncs += session.value("desyncs", 0);
    }
    for (const char* id : {"host", "join"}) {
        if (auto stats = read_json(dir / (std::string(id) + ".json")); stats.ok())
            desyncs += stats.value().value("desyncs", 0);
    }
    AtlasCheck check;
    check.name = name;
    check.passed = c.identical && desyncs == 0 && c.compared + 10 >= s.session_frames;
    if (*check.passed) {
        check.summary = "identical";
        check.message =
            fmt::format("{} frames identical on both players, no desync reported", c.compared);
    } else if (!c.identical) {
        check.frame = c.first_difference;
        check.summary = fmt::format("differs at frame {}", c.first_difference.value_or(0));
        check.message = fmt::format("the players' states differ from frame {} ({} frames compared)",
                                    c.first_difference.value_or(0), c.compared);
    } else {
        check.summary = desyncs ? fmt::format("{} false alarms", desyncs) : "too few frames";
        check.message =
            fmt::format("{} frames identical, {} desyncs reported", c.compared, desyncs);
    }
    return check;
}

}  // namespace

bool is_session_task(AtlasTask task) {
    return task == AtlasTask::kFrameLock || task == AtlasTask::kRollback;
}

std::string task_name(AtlasTask task) {
    switch (task) {
        case AtlasTask::kInputs:
            return "inputs";
        case AtlasTask::kTwice:
            return "twice";
        case AtlasTask::kRoundtrip1:
            return "roundtrip-1";
        case AtlasTask::kRoundtrip4:
            return "roundtrip-4";
        case AtlasTask::kRoundtrip12:
            return "roundtrip-12";
        case AtlasTask::kFrameLock:
            return "framelock-session";
        case AtlasTask::kRollback:
            return "rollback-session";
    }
    return "?";
}

std::vector<AtlasCheck> run_atlas_task(const AtlasSettings& settings, const AtlasCore& core,
                                       AtlasTask task, AtlasCoreIdentity* identity) {
    const fs::path dir = fs::path(settings.work_dir) / core.name / task_name(task);
    std::error_code ec;
    fs::remove_all(dir, ec);  // nothing of an earlier run may be read as this one's
    fs::create_directories(dir, ec);
    if (ec) return {failed(task_name(task), "could not run", "cannot create " + dir.string())};
    switch (task) {
        case AtlasTask::kInputs:
            return {inputs_check(settings, core, dir)};
        case AtlasTask::kTwice:
            return synctest_check(settings, core, dir, "twice", 1, identity);
        case AtlasTask::kRoundtrip1:
            return synctest_check(settings, core, dir, "roundtrip", 1, nullptr);
        case AtlasTask::kRoundtrip4:
            return synctest_check(settings, core, dir, "roundtrip", 4, nullptr);
        case AtlasTask::kRoundtrip12:
            return synctest_check(settings, core, dir, "roundtrip", 12, nullptr);
        case AtlasTask::kFrameLock:
            return {session_check(settings, core, dir, "framelock")};
        case AtlasTask::kRollback:
            return {session_check(settings, core, dir, "rollback")};
    }
    return {};
}

}  // namespace framelock::frontend
