// Real cores as the simulated network's emulators (netplay/sim/sim_session.h): one private copy of
// the case's core per player, so players share no globals, and no save RAM.
#pragma once

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <string>

#include "frontend/host/retro_emulator.h"
#include "integration/cores.h"
#include "netplay/interfaces/emulator.h"

namespace framelock::test {

// The host settings of one simulated player on `c`; the arcade core gets `players` players.
inline frontend::HostConfig sim_host(const CoreCase& c, int players) {
    frontend::HostConfig host;
    host.core_path = c.core;
    host.content_path = c.content;
    host.ports = c.ports;
    host.load_sram = host.write_sram = false;
    host.private_core_copy = true;
    if (std::strcmp(c.name, "arcade") == 0)
        host.option_overrides.emplace("farcade_players", std::to_string(players));
    return host;
}

inline std::unique_ptr<netplay::Emulator> sim_emulator(const frontend::HostConfig& host) {
    auto emulator = frontend::RetroEmulator::create(host);
    REQUIRE(emulator);
    return std::move(emulator).value();
}

}  // namespace framelock::test
