#include "unit/three_slot_server.h"

namespace framelock::netplay {

namespace {

ServerConfig three_slots() {
    ServerConfig config;
    config.players = 3;
    config.start_players = 2;
    return config;
}

// The link is set before the server's endpoint is made, as the tests did by hand.
std::unique_ptr<Transport> server_endpoint(SimNetwork& net) {
    net.set_default_link({10'000, 500, 0.0, 0.0, 0});
    return net.create_endpoint("server");
}

}  // namespace

ThreeSlotServer::ThreeSlotServer(std::uint64_t seed)
    : net{seed, clock}, transport{server_endpoint(net)}, server{*transport, clock, three_slots()} {}

SessionIdentity ThreeSlotServer::identity() {
    return {"framelock-arcade", "1.0", 0xaaaa, 0xbbbb, 60000};
}

ClientConfig ThreeSlotServer::player(int slot, const std::string& name,
                                     const std::string& content_name) {
    ClientConfig c;
    c.server_address = "server";
    c.requested_slot = static_cast<std::uint8_t>(slot);
    c.player_name = name;
    c.content_name = content_name;
    c.identity = identity();
    return c;
}

void ThreeSlotServer::step(const std::function<void()>& each) {
    server.update();
    each();
    server.update();
    while (auto e = server.poll_event()) events.push_back(*e);
    clock.advance(1000);
}

}  // namespace framelock::netplay
