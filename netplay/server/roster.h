// Who is in the session and where each is in its life: the player slots and the spectators
// (their records, server_slot.h), the one place a slot's life changes, and what follows from
// the lives (who is absent, who is present, when a silent member is dealt with). Admission
// decides who gets a slot; the Server applies it here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/server/server_config.h"
#include "netplay/server/server_slot.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class Roster {
  public:
    // `config` outlives the roster (the Server's own).
    explicit Roster(const ServerConfig& config) : m_config(config) {}

    // The player slots, 1..players (the span's index is the number less one).
    std::span<ServerSlot> players() { return {m_players.data(), player_count()}; }
    std::span<const ServerSlot> players() const { return {m_players.data(), player_count()}; }
    ServerSlot& player(int number) { return m_players[number - 1]; }
    const ServerSlot& player(int number) const { return m_players[number - 1]; }
    std::vector<ServerSlot>& spectators() { return m_spectators; }
    const std::vector<ServerSlot>& spectators() const { return m_spectators; }

    // The player slot a connection holds in the session (0: none).
    int slot_of(PeerId peer) const;
    // The member a connection is: a player (`number` 1..players) or a spectator (`number` 0);
    // nullptr when it is neither.
    ServerSlot* member(PeerId peer, int& number);

    // The session runs from here on: a slot given up stays on the timeline (kLeft), and who
    // plays changing is noted (changed_recently()).
    void start() { m_started = true; }
    bool started() const { return m_started; }
    // Started, and every player has left since: the session is over.
    bool ended() const;

    // The one place a slot's life changes (server_slot.h has the states and their order).
    void set_life(ServerSlot& slot, SlotLife life, Micros now);
    // A member takes `slot` (its own again, or a new one) on connection `peer`, as `name`,
    // heard from at `now`, in `life`.
    void seat(ServerSlot& slot, PeerId peer, const std::string& name, SlotLife life, Micros now);
    // A new spectator, watching (or, in a running session, waiting for its state).
    ServerSlot& add_spectator(PeerId peer, const std::string& name, Micros now);
    // Gets neutral input without being waited for (with pause_on_drop, an away player that
    // played is waited for).
    bool absent(const ServerSlot& slot) const;
    // Bit s-1: player slot s is absent().
    std::uint8_t absent_mask() const;
    // Bit s-1: player slot s is in the session, neither away nor waiting for its state.
    std::uint8_t present() const;
    // Whether a round trip a player reports now measures a change of who plays rather than the
    // network: someone went away or came back within kAbsenceSettleUs, the player itself is
    // away, or the session waits for an away player (pause_on_drop).
    bool unsettled(const ServerSlot& slot, Micros now) const;

    // When a member that stays silent is dealt with, and how (Server::update() acts on it,
    // next_wakeup() wakes for it).
    struct SilenceDeadline {
        enum class Then { kDrop, kGoAway, kGraceOver, kDropJoining };
        Micros at = 0;
        Then then = Then::kDrop;
    };
    SilenceDeadline silence_deadline(const ServerSlot& slot) const;
    // A player in the session past its silence deadline at `now`: whether it goes away (or is
    // dropped), and why.
    struct Silence {
        bool go_away = false;
        std::string why;
    };
    std::optional<Silence> silent(const ServerSlot& slot, Micros now) const;

    // Before the start: since when at least start_players have joined and every player has
    // been heard within link_lost_us (nullopt: fewer now, or one is silent).
    std::optional<Micros> quorum_since(Micros now);
    // Removes the spectator on this connection: its name (nullopt: none is).
    std::optional<std::string> remove_spectator(PeerId peer);
    // Removes the spectators silent for longer than the client timeout: each one's connection
    // and name (the server says goodbye to them).
    std::vector<std::pair<PeerId, std::string>> remove_silent_spectators(Micros now);

  private:
    std::size_t player_count() const { return static_cast<std::size_t>(m_config.players); }

    const ServerConfig& m_config;
    std::array<ServerSlot, kMaxPlayers> m_players{};
    std::vector<ServerSlot> m_spectators;
    bool m_started = false;
    Micros m_changed_at = -1;    // a player last went away or came back
    Micros m_quorum_since = -1;  // before the start: enough players joined since then
};

}  // namespace framelock::netplay
