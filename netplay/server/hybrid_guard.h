// Whether the session may go on predicting (the hybrid), and its one switch to the frame lock.
//
// The hybrid loads states all the time, so it holds while nothing says that the players'
// savestates or cores are not deterministic here. A desync says so anywhere. On a server
// without a core of its own (ServerConfig::hybrid_if_vouched: `framelock server --mode auto`)
// every player vouches for its own savestates after its Welcome (SavestateVouch: its rollback
// check passed or not); the start waits for every seated player's word, at most kVouchWaitUs,
// and a player that fails the check, or says nothing in time, ends the hybrid as a desync
// does. Ending it turns the session's settings into the frame lock's for good and says why;
// the Server then tells the parts (DelayMeasurements::end_hybrid, HashVotes::leave_prediction).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "netplay/interfaces/clock.h"
#include "netplay/server/server_config.h"
#include "netplay/server/server_slot.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class HybridGuard {
  public:
    // How long the start waits for the players' vouches (a check runs a few hundred frames
    // of the core twice: under a second for most cores).
    static constexpr Micros kVouchWaitUs = 10'000'000;

    // The Server's settings, which outlive the part.
    explicit HybridGuard(ServerConfig& config) : m_config(config) {}

    bool hybrid() const { return m_config.mode == SessionMode::kRollback && m_config.delay.hybrid; }

    // Why the hybrid ends now ("frame lock from now on: " and why; its settings are the frame
    // lock's from here), and the slots it names; nullopt when it goes on (or ended before).
    struct Leave {
        std::string reason;
        std::uint8_t differing = 0;
    };
    // Hash votes on `frame` differed in `differing`.
    std::optional<Leave> desync(std::uint32_t frame, std::uint8_t differing);
    // Player `slot` (1..8) vouched: a word its Welcome did not ask for (or a second one)
    // changes nothing and counts as malformed.
    std::optional<Leave> vouch(int slot, ServerSlot& player, const SavestateVouch& vouch);
    // A player's slot has a new connection (a rejoin from a new process): its word is owed
    // again.
    void new_connection(int slot) { m_vouched[static_cast<std::size_t>(slot - 1)].reset(); }
    // Before the start, with a quorum seated since `quorum_since`: whether the start waits for
    // vouches still owed; and once the wait is over, why the hybrid ends (a player silent).
    struct Wait {
        bool waiting = false;
        std::optional<Leave> leave;
    };
    Wait before_start(std::span<const ServerSlot> players, Micros now, Micros quorum_since);

  private:
    std::optional<Leave> leave(std::string reason, std::uint8_t differing);
    bool asks() const { return hybrid() && m_config.hybrid_if_vouched; }

    ServerConfig& m_config;
    std::array<std::optional<bool>, kMaxPlayers> m_vouched{};  // by slot - 1: passed or not
};

}  // namespace framelock::netplay
