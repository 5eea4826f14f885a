#include "bench/server_capacity/agent_loop.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "bench/server_capacity/epoll_wait.h"

namespace framelock::bench::capacity {

AgentLoop::AgentLoop(std::vector<std::unique_ptr<Agent>>& agents)
    : m_agents(agents), m_wake(agents.size(), 0) {
    m_epoll = epoll_create1(EPOLL_CLOEXEC);
    if (m_epoll < 0) throw std::runtime_error("epoll_create1 failed");
    for (std::size_t i = 0; i < agents.size(); ++i) {
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.u64 = i;
        if (epoll_ctl(m_epoll, EPOLL_CTL_ADD, agents[i]->fd(), &event) != 0)
            throw std::runtime_error("epoll_ctl failed");
        m_timers.insert({0, i});
    }
}

AgentLoop::~AgentLoop() {
    ::close(m_epoll);
}

void AgentLoop::run_until(Micros end) {
    std::vector<std::size_t> due;
    std::vector<epoll_event> events(m_agents.size());
    for (;;) {
        Micros now = g_clock.now_us();
        if (now >= end) return;
        due.clear();
        for (auto it = m_timers.begin(); it != m_timers.end() && it->first <= now; ++it)
            due.push_back(it->second);
        for (const std::size_t i : due) tick(i);
        now = g_clock.now_us();
        const Micros next = std::min(end, m_timers.empty() ? end : m_timers.begin()->first);
        const int ready = wait_epoll(m_epoll, events, next - now);
        for (int e = 0; e < ready; ++e) tick(static_cast<std::size_t>(events[e].data.u64));
    }
}

void AgentLoop::tick(std::size_t i) {
    m_agents[i]->tick();
    m_timers.erase({m_wake[i], i});
    m_wake[i] = m_agents[i]->next_wakeup();
    m_timers.insert({m_wake[i], i});
}

}  // namespace framelock::bench::capacity
