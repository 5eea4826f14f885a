#include "frontend/session/server_thread.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "common/log.h"

namespace framelock::frontend {
namespace {

using netplay::Micros;

// Without an eventfd to wake it, the thread sleeps this long at most, and so stops within it.
constexpr Micros kPollUs = 10'000;

}  // namespace

ServerThread::ServerThread(ServerRunner& runner, const netplay::Clock& clock)
    : m_runner(runner), m_clock(clock) {
    m_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (m_wake_fd >= 0) {
        if (Status watched = m_runner.watch_also(m_wake_fd); !watched) {
            ::close(m_wake_fd);
            m_wake_fd = -1;
        }
    }
    if (m_wake_fd < 0)
        log_warn("the server's thread polls every {} ms (no eventfd to wake it)", kPollUs / 1000);
    m_thread = std::thread([this] { run(); });
}

ServerThread::~ServerThread() {
    m_stop = true;
    if (m_wake_fd >= 0) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t written = ::write(m_wake_fd, &one, sizeof one);
    }
    m_thread.join();
    // The runner's epoll forgets a closed descriptor by itself.
    if (m_wake_fd >= 0) ::close(m_wake_fd);
}

bool ServerThread::wait_finished(Micros max_wait) {
    std::unique_lock lock(m_mutex);
    return m_finished_changed.wait_for(lock,
                                       std::chrono::microseconds(std::max<Micros>(max_wait, 0)),
                                       [this] { return m_finished; });
}

void ServerThread::run() {
    while (!m_stop) {
        m_runner.update();
        if (m_runner.finished()) {
            {
                std::lock_guard lock(m_mutex);
                m_finished = true;
            }
            m_finished_changed.notify_all();
            return;
        }
        // A server's timers are a polling tick, not deadlines: it sleeps on its sockets for at
        // least ENet's 1 ms granularity (a datagram wakes it at once), as a server alone does.
        Micros wait = std::max<Micros>(m_runner.next_wakeup() - m_clock.now_us(), 1000);
        if (m_wake_fd < 0) wait = std::min(wait, kPollUs);
        m_runner.wait(wait);
    }
}

}  // namespace framelock::frontend
