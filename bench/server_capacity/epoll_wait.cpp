#include "bench/server_capacity/epoll_wait.h"

#include <time.h>

#include <algorithm>
#include <cerrno>

namespace framelock::bench::capacity {

int wait_epoll(int epoll, std::vector<epoll_event>& events, netplay::Micros wait_us) {
    using netplay::Micros;
    const Micros wait = std::max<Micros>(wait_us, 0);
    const timespec timeout{static_cast<time_t>(wait / 1'000'000),
                           static_cast<long>(wait % 1'000'000 * 1000)};
    const int ready =
        epoll_pwait2(epoll, events.data(), static_cast<int>(events.size()), &timeout, nullptr);
    if (ready >= 0 || errno != ENOSYS) return ready;
    return epoll_wait(epoll, events.data(), static_cast<int>(events.size()),
                      static_cast<int>(std::min<Micros>((wait + 999) / 1000, 1'000'000)));
}

}  // namespace framelock::bench::capacity
