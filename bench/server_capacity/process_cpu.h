// What the benchmark reads of a process from /proc: its CPU time, exact and in clock ticks,
// and the machine's load average.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "netplay/interfaces/clock.h"

namespace framelock::bench::capacity {

// Time a process spent on a CPU (user + system, every thread) and waiting on a run queue
// for one, in nanoseconds: the sums of its threads' /proc/<pid>/task/<tid>/schedstat. The
// run time is the same quantity as utime + stime in /proc/<pid>/stat, but exact instead of
// counted in 10 ms clock ticks, which matters for a server that uses 1% of a core. The wait
// says how long it was runnable but had no core: the machine's other load, not its own.
struct CpuTime {
    std::uint64_t run_ns = 0, wait_ns = 0;
};

// Throws when /proc has no schedstat for `pid`.
CpuTime cpu_time(pid_t pid);

// utime + stime from /proc/<pid>/stat (fields 14 and 15), in clock ticks: the coarse
// cross-check of cpu_time(). Throws when the file cannot be read.
std::uint64_t cpu_ticks(pid_t pid);

// `ns` of CPU over a window of `window_us`, in percent of one core.
double cpu_percent(std::uint64_t ns, netplay::Micros window_us);

// /proc/loadavg's 1, 5 and 15 minute averages: "0.52 0.40 0.31".
std::string load_average();

}  // namespace framelock::bench::capacity
