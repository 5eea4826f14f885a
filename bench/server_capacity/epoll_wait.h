// Sleeping on many sockets at once with a microsecond timeout, for the load generator's loop
// and the relay's.
#pragma once

#include <sys/epoll.h>

#include <vector>

#include "netplay/interfaces/clock.h"

namespace framelock::bench::capacity {

// epoll_pwait2 with a microsecond timeout (a negative one counts as 0); whole milliseconds
// (rounded up) on kernels before 5.11. Fills `events` from the front; the number of ready
// events, or -1.
int wait_epoll(int epoll, std::vector<epoll_event>& events, netplay::Micros wait_us);

}  // namespace framelock::bench::capacity
