// Server capacity: one real `framelock server` process driving N two-player sessions at
// 60 fps over ENet on 127.0.0.1, loaded by a generator in a process of its own (this binary
// re-executed with --loadgen). The generator runs 2N real netplay::Clients, each over its own
// EnetTransport with a HashingEmulator and a bot pad, all in one thread: one epoll over
// every client socket and a timer queue on the steady clock.
//
// Per N it prints whether every client kept 60 fps without stalls, the server's CPU (its
// utime+stime from /proc over the window) in total and per session, the generator's own CPU,
// and the forwarding latency the server adds: for each frame f of a session, the time from
// when the later of the two players flushed its input for f to the socket until the other
// player polled the server's update confirming f. Both ends are in the generator, on one
// clock, so the difference needs no clock sync.
//
// The baseline, measured in the same run by the same generator and loop: 2 probes per pair
// send frame-numbered datagrams on the same schedule through a trivial ENet relay process
// (this binary with --relay: forwards each datagram to the pair's other peer). A second relay
// run that holds every datagram a fixed time (--check-delay-ms) proves the measurement: its
// p50 must rise by that time, else the bench fails. So does a desync (the two emulators' hash
// logs of a session differ, or the server reports one), a process that fails, or a session
// that never starts.
//
//   bench_server_capacity [--sweep 1,2,4,...,256] [--seconds 3] [--warmup 1] [--delay 3]
//                         [--json FILE]
//
// The benchmark in bench/server_capacity/: the driver (driver.h), the load generator
// (loadgen.h: agents in one loop, client_agent.h and probe_agent.h) and the relay (relay.h).
// This file is the command line, with the two child roles (--loadgen, --relay) hidden.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "bench/server_capacity/driver.h"
#include "bench/server_capacity/loadgen.h"
#include "bench/server_capacity/relay.h"

namespace capacity = framelock::bench::capacity;

int main(int argc, char** argv) {
    CLI::App app{
        "Server capacity: one framelock server process, N two-player sessions at 60 fps "
        "from a load generator process; CPU and forwarding latency per N"};
    capacity::DriverOptions options;
    capacity::LoadgenOptions loadgen;
    capacity::RelayOptions relay;
    bool loadgen_mode = false, relay_mode = false;
    app.add_option("--sweep", options.sweep, "session counts to measure, in order (1-256)")
        ->delimiter(',')
        ->check(CLI::Range(1, 256));
    app.add_option("--seconds", options.seconds, "measured seconds per point")
        ->check(CLI::Range(0.5, 600.0))
        ->capture_default_str();
    app.add_option("--warmup", options.warmup, "seconds of play before each window")
        ->check(CLI::Range(0.0, 60.0))
        ->capture_default_str();
    app.add_option("--delay", options.delay, "the server's fixed input delay in frames")
        ->check(CLI::Range(1, 30))
        ->capture_default_str();
    app.add_option("--baseline-sessions", options.baseline_sessions,
                   "pairs through the relay for the baseline")
        ->check(CLI::Range(1, 256))
        ->capture_default_str();
    app.add_option("--check-delay-ms", options.check_delay_ms,
                   "the validation relay's hold time (0: skip this check and the desync check)")
        ->check(CLI::Range(0.0, 100.0))
        ->capture_default_str();
    app.add_option("--stall-limit-pct", options.stall_limit_pct,
                   "a client stalling more than this % of the window's frames is not sustained")
        ->check(CLI::Range(0.0, 100.0))
        ->capture_default_str();
    app.add_option("--retries", options.retries,
                   "measure a point that misses (p99 > 2 ms or not sustained) again this many "
                   "times and keep the best run")
        ->check(CLI::Range(0, 5))
        ->capture_default_str();
    app.add_flag("!--no-relay-per-point", options.relay_per_point,
                 "skip the relay run at each N (its p99 tells the generator's and the machine's "
                 "share from the server's)");
    app.add_option("--json", options.json_path, "write the results here");
    app.add_option("--framelock", options.framelock, "the framelock binary")->capture_default_str();
    // The two child roles (internal).
    app.add_flag("--loadgen", loadgen_mode)->group("");
    app.add_option("--target", loadgen.target)->group("");
    app.add_option("--ports-file", loadgen.ports_file)->group("");
    app.add_option("--peer-pid", loadgen.peer_pid)->group("");
    app.add_option("--out", loadgen.out)->group("");
    app.add_option("--diverge-frame", loadgen.diverge_frame)->group("");
    app.add_flag("--relay", relay_mode)->group("");
    app.add_option("--sessions", relay.sessions)->group("");
    app.add_option("--port-file", relay.port_file)->group("");
    app.add_option("--relay-delay-us", relay.delay_us)->group("");
    CLI11_PARSE(app, argc, argv);

    try {
        if (loadgen_mode) {
            loadgen.seconds = options.seconds;
            loadgen.warmup = options.warmup;
            loadgen.delay = options.delay;
            loadgen.stall_limit_pct = options.stall_limit_pct;
            return capacity::run_loadgen(loadgen);
        }
        if (relay_mode) return capacity::run_relay(relay);
        return capacity::Driver(options).run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_server_capacity: %s\n", e.what());
        return 1;
    }
}
