// The processes of one measured session of real players: a `framelock server` or `host`, the
// impairment proxy, `framelock join` bots. Their logs, port files and statistics live in one
// temporary directory; every process still running is killed when this goes (any early
// return). The benchmarks that play real sessions (bench_bandwidth, bench_hybrid_sessions)
// start them through this, so each says only what it measures.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/child_process.h"
#include "support/temp_dir.h"

namespace framelock::bench {

// The last 2,000 bytes of the file at `path` (a log, for a failure's message).
std::string tail_of(const std::string& path);

class SessionProcesses {
  public:
    using Clock = std::chrono::steady_clock;

    // `tag` starts every message printed; `name` names the temporary directory; `game`: the
    // player's core flags (--core, --content, --option, --ports).
    SessionProcesses(std::string tag, const std::string& name, std::vector<std::string> game);

    std::string file(const std::string& name) const { return m_dir.file(name); }

    // Starts `args` with NAME.log for both of its outputs: the process, or nothing after
    // saying why.
    ChildProcess* spawn(const std::string& name, const std::vector<std::string>& args);

    // "127.0.0.1:PORT" once `child` wrote NAME.port, or nothing after saying why.
    std::optional<std::string> address_of(const std::string& name, ChildProcess& child);

    // `framelock server` for `players` in `mode` (and `extra` flags) with its statistics in
    // server.json, ending by itself after `seconds`: its address.
    std::optional<std::string> server(int players, const std::string& mode, int seconds,
                                      const std::vector<std::string>& extra = {});
    ChildProcess* server_process() const { return m_server; }

    // The impairment proxy in front of `address` with `impairment` (--delay, --jitter,
    // --loss ...), ending by itself after `seconds`, its statistics in netem.json: its
    // address.
    std::optional<std::string> proxy(const std::string& address,
                                     const std::vector<std::string>& impairment, int seconds);
    ChildProcess* proxy_process() const { return m_proxy; }

    // The game's arguments for a player or spectator named `name`: no window, no sound,
    // statistics in NAME.json.
    std::vector<std::string> game_args(const std::string& name) const;

    // `framelock join ADDRESS` as `name` with `extra` flags.
    ChildProcess* join(const std::string& address, const std::string& name,
                       const std::vector<std::string>& extra);

    // Waits for `child` until `deadline`: true on a clean exit, else false after saying why.
    bool finished(ChildProcess& child, const std::string& name, Clock::time_point deadline);

  private:
    std::string m_tag;
    std::vector<std::string> m_game;
    test::TempDir m_dir;
    std::vector<ChildProcess> m_children;
    ChildProcess* m_server = nullptr;
    ChildProcess* m_proxy = nullptr;
};

}  // namespace framelock::bench
