// --loadgen: the load generator, a process of its own. It plays one point's load against a
// peer process (2 ClientAgents per session of `framelock server`, or 2 ProbeAgents per pair
// of the relay), all in one AgentLoop, measures a window and writes the result as one line
// of JSON to `out`: {"ok": true, figures...} or {"ok": false, "error": ...}.
#pragma once

#include <string>

namespace framelock::bench::capacity {

struct LoadgenOptions {
    std::string target = "server";  // server | relay
    std::string ports_file, out;    // the peer's port file; where the result goes
    int peer_pid = 0;               // the peer's process, whose CPU is measured
    double seconds = 3, warmup = 1;
    int delay = 3;  // the server's input delay: frames before it are not measured
    double stall_limit_pct = 0.5;
    int diverge_frame = 0;  // > 0: session 1's first player's emulator diverges there (check)
};

// Runs the point and writes its result. 0 when the point was measured, 1 when it failed (the
// reason is in the result) or the result could not be written (the reason on stderr).
int run_loadgen(const LoadgenOptions& options);

}  // namespace framelock::bench::capacity
