// The benchmark's driver: the baseline (the load generator through the trivial relay), the
// check that the measurement sees a relay's delay and a diverging emulator, then the sweep
// over N sessions; one process pair per point (a peer, `framelock server` or the relay, and
// the generator against it: this executable again, with --relay or --loadgen). Prints the
// table and writes the JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/sibling_exe.h"
#include "netplay/interfaces/clock.h"
#include "support/temp_dir.h"

namespace framelock::bench::capacity {

struct DriverOptions {
    std::vector<int> sweep{1, 2, 4, 8, 16, 32, 64, 128, 256};
    double seconds = 3, warmup = 1;
    int delay = 3;
    int baseline_sessions = 8;
    double check_delay_ms = 2;
    double stall_limit_pct = 0.5;
    bool relay_per_point = true;
    int retries = 1;
    std::string json_path;
    std::string framelock = sibling_exe("framelock");
};

class Driver {
  public:
    explicit Driver(const DriverOptions& options);

    // The whole benchmark. 0, or 1 when the check failed; throws naming what failed.
    int run();

  private:
    // One point: the peer (a `framelock server` or the relay), then the generator against
    // it. Its result (see loadgen.h). Throws naming what failed; the logs stay in the temp
    // dir until then.
    nlohmann::json run_point(bool server, int sessions, netplay::Micros relay_delay_us = 0,
                             int diverge_frame = 0);

    DriverOptions m_options;
    std::string m_self;
    test::TempDir m_dir;
    int m_runs = 0;  // every run's files get their own names
};

}  // namespace framelock::bench::capacity
