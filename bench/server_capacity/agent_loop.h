// The load generator's loop: ticks an agent when its socket is readable or its next_wakeup
// has come, sleeping in between on one epoll with a microsecond timeout. One thread.
#pragma once

#include <cstddef>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "bench/server_capacity/agent.h"

namespace framelock::bench::capacity {

class AgentLoop {
  public:
    // `agents` must outlive the loop and keep its size. Throws when epoll fails.
    explicit AgentLoop(std::vector<std::unique_ptr<Agent>>& agents);
    ~AgentLoop();
    AgentLoop(const AgentLoop&) = delete;
    AgentLoop& operator=(const AgentLoop&) = delete;

    // Ticks agents until `end` (steady clock). Every agent is ticked at the first call.
    void run_until(Micros end);

  private:
    void tick(std::size_t i);

    std::vector<std::unique_ptr<Agent>>& m_agents;
    std::vector<Micros> m_wake;
    std::set<std::pair<Micros, std::size_t>> m_timers;
    int m_epoll = -1;
};

}  // namespace framelock::bench::capacity
