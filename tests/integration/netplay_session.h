// The end-to-end netplay tests' session helper: `framelock server`, `join` and the netem
// proxy as real processes on 127.0.0.1, with their logs, hash logs and statistics in one
// temporary directory. Shared by the test files so every e2e test starts processes, waits
// and compares hash logs the same way.
#pragma once

#include <algorithm>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.h"
#include "integration/cores.h"
#include "support/build_paths.h"
#include "support/mode_pin.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace framelock::test {

using framelock::ChildProcess;
using namespace std::chrono_literals;

using Deadline = ChildProcess::Deadline;
using SteadyTime = std::chrono::steady_clock;

inline Deadline after(std::chrono::milliseconds duration) {
    return SteadyTime::now() + duration;
}

// Real time a session of `frames` needs, with room for the start, a dropped player's
// timeout and a loaded machine.
inline std::chrono::milliseconds session_time(int frames) {
    return std::chrono::milliseconds(frames * 1000 / 60) + 60s;
}

// How long `framelock run` takes here for one frame of `core` (start, load the core, run a
// frame, exit), in seconds: this machine's pace now for a new player's process, under its
// load and any sanitizer. A window a new process must make (a grace to come back in, a
// rejoin's time to its first frame) is set from it.
inline double process_start_s(const CoreCase& core) {
    const auto started = SteadyTime::now();
    const ProcessResult run = run_process(run_args(core, {"--video", "none", "--frames", "1"}));
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    return std::chrono::duration<double>(SteadyTime::now() - started).count();
}

// "" when the proxy is not built.
inline std::string netem_exe() {
    return build_paths::netem_exe;
}

inline nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    INFO(path);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

// One session's processes. Each one writes its output to DIR/NAME.log (stderr apart to
// DIR/NAME.err when asked); hash logs and statistics go to DIR/NAME.hashes, DIR/NAME.json.
class Session {
  public:
    explicit Session(const std::string& name) : m_dir(name) {}

    const TempDir& dir() const { return m_dir; }

    // A `server` or `host` without --mode plays the frame lock (support/mode_pin.h).
    ChildProcess& start(const std::string& name, const std::vector<std::string>& given,
                        bool separate_stderr = false) {
        const std::vector<std::string> args = frame_lock_unless_said(given);
        auto child =
            ChildProcess::spawn(args, m_dir.file(name + ".log"),
                                m_dir.file(separate_stderr ? name + ".err" : name + ".log"));
        if (!child) FAIL(child.error().message);
        m_children.push_back(std::make_unique<ChildProcess>(std::move(child).value()));
        m_args[name] = {args, separate_stderr};
        return *m_children.back();
    }

    // NAME's process again with the very same arguments (its hash log and statistics files
    // are rewritten), its output going to LOG_NAME.log (.err).
    ChildProcess& restart(const std::string& name, const std::string& log_name) {
        const auto started = m_args.find(name);
        REQUIRE(started != m_args.end());
        const auto [args, separate_stderr] = started->second;
        return start(log_name, args, separate_stderr);
    }

    void start_server(int players, std::chrono::milliseconds limit,
                      const std::vector<std::string>& extra = {}) {
        const std::string port_file = m_dir.file("server.port");
        std::vector<std::string> args = {build_paths::framelock_exe,
                                         "server",
                                         "--bind",
                                         "127.0.0.1",
                                         "--port",
                                         "0",
                                         "--players",
                                         std::to_string(players),
                                         "--port-file",
                                         port_file,
                                         "--stats-json",
                                         m_dir.file("server.json"),
                                         "--duration",
                                         std::to_string(limit.count() / 1000)};
        args.insert(args.end(), extra.begin(), extra.end());
        m_server = &start("server", args);
        auto port = framelock::wait_for_port_file(port_file, *m_server, ready_deadline());
        if (!port) FAIL(port.error().message << log_of("server"));
        m_address = "127.0.0.1:" + std::to_string(port.value());
        m_server_address = m_address;
    }

    // The proxy between every client started from now on and the server: `delay_ms` each
    // way (one-way), +/- `jitter_ms`, and `extra` proxy flags (--blackout, --corrupt, ...).
    void start_proxy(double delay_ms, double jitter_ms, std::chrono::milliseconds limit,
                     const std::vector<std::string>& extra = {}) {
        const std::string port_file = m_dir.file("netem.port");
        std::vector<std::string> args = {netem_exe(),
                                         "--listen",
                                         "127.0.0.1:0",
                                         "--forward",
                                         m_server_address,
                                         "--delay",
                                         std::to_string(delay_ms),
                                         "--jitter",
                                         std::to_string(jitter_ms),
                                         "--duration",
                                         std::to_string(limit.count() / 1000 + 10),
                                         "--port-file",
                                         port_file,
                                         "--stats-file",
                                         m_dir.file("netem.json")};
        args.insert(args.end(), extra.begin(), extra.end());
        ChildProcess& proxy = start("netem", args);
        m_proxy = &proxy;
        auto port = framelock::wait_for_port_file(port_file, proxy, ready_deadline());
        if (!port) FAIL(port.error().message << log_of("netem"));
        m_address = "127.0.0.1:" + std::to_string(port.value());
    }

    // `framelock join` for `core` with a random bot, writing NAME.hashes and NAME.json.
    ChildProcess& start_client(const std::string& name, const CoreCase& core, int slot,
                               std::uint64_t seed, int frames,
                               const std::vector<std::string>& extra = {},
                               bool separate_stderr = false) {
        return start_player(name, {"join", m_address}, core, slot, seed, frames, extra,
                            separate_stderr);
    }

    // A player that runs the session's server in its own process (`framelock host`, slot 1,
    // a session of `players`): later players join its address. Its log holds the server's
    // lines too.
    ChildProcess& start_host(const std::string& name, const CoreCase& core, int players,
                             std::uint64_t seed, int frames,
                             const std::vector<std::string>& extra = {}) {
        const std::string port_file = m_dir.file(name + ".port");
        ChildProcess& host = start_player(name,
                                          {"host", "--port", "0", "--port-file", port_file,
                                           "--players", std::to_string(players), "--no-upnp"},
                                          core, 1, seed, frames, extra, false);
        auto port = framelock::wait_for_port_file(port_file, host, ready_deadline());
        if (!port) FAIL(port.error().message << log_of(name));
        m_address = "127.0.0.1:" + std::to_string(port.value());
        m_server_address = m_address;
        return host;
    }

    // `framelock VERB...` as a player (join or host), its files in the session's directory.
    ChildProcess& start_player(const std::string& name, const std::vector<std::string>& verb,
                               const CoreCase& core, int slot, std::uint64_t seed, int frames,
                               const std::vector<std::string>& extra, bool separate_stderr) {
        const auto given = [&](const char* option) {
            return std::find(extra.begin(), extra.end(), option) != extra.end();
        };
        std::vector<std::string> args = {build_paths::framelock_exe};
        args.insert(args.end(), verb.begin(), verb.end());
        args.insert(args.end(), {"--core", core.core, "--ports", "2", "--random",
                                 std::to_string(seed), "--frames", std::to_string(frames),
                                 "--hash-log", hashes(name), "--stats-json", stats(name)});
        if (slot > 0) {
            args.push_back("--slot");
            args.push_back(std::to_string(slot));
        }
        if (!given("--name")) args.insert(args.end(), {"--name", name});
        // The rejoin token beside the other files: restart() passes it back.
        if (!given("--rejoin-file") && !given("--spectate"))
            args.insert(args.end(), {"--rejoin-file", m_dir.file(name + ".token")});
        // A desync's bundle too, not in the user's data directory.
        if (!given("--desync-bundle"))
            args.insert(args.end(), {"--desync-bundle", m_dir.file(name + ".bundles")});
        if (!core.content.empty()) {
            args.push_back("--content");
            args.push_back(core.content);
        }
        args.insert(args.end(), extra.begin(), extra.end());
        return start(name, args, separate_stderr);
    }

    // The server process, once start_server() has run.
    ChildProcess& server() {
        REQUIRE(m_server != nullptr);
        return *m_server;
    }

    // The proxy process, once start_proxy() has run.
    ChildProcess& proxy() {
        REQUIRE(m_proxy != nullptr);
        return *m_proxy;
    }

    std::string hashes(const std::string& name) const { return m_dir.file(name + ".hashes"); }
    std::string stats(const std::string& name) const { return m_dir.file(name + ".json"); }
    std::string log_of(const std::string& name) const {
        return "\n--- " + name + ".log ---\n" + read_text(m_dir.file(name + ".log"));
    }

    // Waits for `child` to end by `deadline` and requires a clean exit, showing its log (and
    // the server's, whose side of a client's failure is there).
    void require_success(ChildProcess& child, const std::string& name, Deadline deadline) {
        const auto status = child.wait_until(deadline);
        const bool with_server = m_server != nullptr && &child != m_server;
        INFO(name << (status ? " " + status->describe() : " timed out") << log_of(name)
                  << (with_server ? log_of("server") : std::string()));
        REQUIRE(status);
        REQUIRE(status->success());
    }

    // The server ends by itself once every player left.
    void require_server_success(Deadline deadline) {
        require_success(*m_server, "server", deadline);
    }

    // NAME.log's length now: for wait_for_log to look only at what is written from here on.
    std::size_t log_size(const std::string& name) const {
        return read_text(m_dir.file(name + ".log")).size();
    }

    // Waits until `text` appears in NAME.log (the process logs unbuffered to stderr), at or
    // after byte `from` (log_size() before the event awaited: a line a busy machine's session
    // already logged earlier, a player away for a moment and back, is not the answer).
    void wait_for_log(const std::string& name, const std::string& text, ChildProcess& child,
                      Deadline deadline, std::size_t from = 0) {
        while (read_text(m_dir.file(name + ".log")).find(text, from) == std::string::npos) {
            INFO("waiting for '" << text << "'" << log_of(name));
            REQUIRE(child.running());
            REQUIRE(SteadyTime::now() < deadline);
            std::this_thread::sleep_for(20ms);
        }
    }

  private:
    TempDir m_dir;
    std::vector<std::unique_ptr<ChildProcess>> m_children;  // killed when the test ends
    std::map<std::string, std::pair<std::vector<std::string>, bool>> m_args;  // for restart()
    ChildProcess* m_server = nullptr;
    ChildProcess* m_proxy = nullptr;
    std::string m_server_address, m_address;
};

inline void require_identical_logs(const Session& session, const std::string& a,
                                   const std::string& b, std::size_t frames) {
    const auto log_a = read_lines(session.hashes(a));
    const auto log_b = read_lines(session.hashes(b));
    REQUIRE(log_a.size() == frames);
    REQUIRE(log_b.size() == frames);
    for (std::size_t i = 0; i < frames; ++i) {
        INFO("frame " << i);
        REQUIRE(log_a[i] == log_b[i]);
    }
}

inline CoreCase two_player_arcade() {
    CoreCase c = core_case("arcade");
    c.extra = {"--option", "farcade_players=2"};
    c.ports = 2;
    return c;
}

// The frame number a hash-log line starts with.
inline std::uint32_t frame_of(const std::string& line) {
    return static_cast<std::uint32_t>(std::stoul(line.substr(0, line.find(' '))));
}

// Waits until NAME's hash log has `lines` lines (the runner flushes it every step).
inline void wait_for_lines(const Session& session, const std::string& name, std::size_t lines,
                           ChildProcess& child, Deadline deadline) {
    while (read_lines(session.hashes(name)).size() < lines) {
        INFO("waiting for " << lines << " lines of " << name << session.log_of(name));
        REQUIRE(child.running());
        REQUIRE(SteadyTime::now() < deadline);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

}  // namespace framelock::test
