// A simulated server with 3 slots whose game starts once 2 players joined, on a clean 10 ms
// link (0.5 ms jitter, no loss): the clock, the network and the server that tests against
// strangers (admission_test.cpp, server_robustness_test.cpp) add players and attackers to.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "netplay/client/client_types.h"
#include "netplay/interfaces/clock.h"
#include "netplay/server/server.h"
#include "netplay/sim/sim_network.h"

namespace framelock::netplay {

struct ThreeSlotServer {
    // `seed`: the simulated network's. The server listens at "server".
    explicit ThreeSlotServer(std::uint64_t seed);

    // The game every player of these tests runs.
    static SessionIdentity identity();
    // A player's config: asks for `slot` (0: any) at "server" as `name`, with `content_name`.
    static ClientConfig player(int slot, const std::string& name, const std::string& content_name);

    // One millisecond: the server's update, `each` (the players' ticks and whatever the test
    // does in that millisecond), the server's update again, its events kept in `events`, and
    // the clock 1 ms on.
    void step(const std::function<void()>& each);

    ManualClock clock{1'000'000};
    SimNetwork net;
    std::unique_ptr<Transport> transport;
    Server server;
    std::vector<ServerEvent> events;
};

}  // namespace framelock::netplay
