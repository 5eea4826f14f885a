// Who is in the session (roster.h): the slots, their lives and what follows from them.
#include "netplay/server/roster.h"

#include <algorithm>
#include <cstdio>

#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

using namespace server_tuning;

int Roster::slot_of(PeerId peer) const {
    for (int s = 0; s < m_config.players; ++s) {
        if (m_players[s].in_session() && m_players[s].peer == peer) return s + 1;
    }
    return 0;
}

ServerSlot* Roster::member(PeerId peer, int& number) {
    number = slot_of(peer);
    if (number) return &m_players[number - 1];
    for (ServerSlot& spectator : m_spectators) {
        if (spectator.peer == peer) return &spectator;
    }
    return nullptr;
}

bool Roster::ended() const {
    if (!m_started) return false;
    for (const ServerSlot& slot : players()) {
        if (slot.in_session()) return false;
    }
    return true;
}

void Roster::set_life(ServerSlot& slot, SlotLife life, Micros now) {
    const SlotLife from = slot.m_life;
    if (life == SlotLife::kAway) {
        slot.m_away_from = from;
        slot.m_away_since = now;
    }
    slot.m_life = life;
    // Who plays changed: the round trips reported around it measure the change, not the
    // network (unsettled()). A joiner loading its state changes nothing yet.
    if (m_started && !slot.spectator &&
        !(from == SlotLife::kAwaitingState && life == SlotLife::kJoining))
        m_changed_at = now;
}

void Roster::seat(ServerSlot& slot, PeerId peer, const std::string& name, SlotLife life,
                  Micros now) {
    set_life(slot, life, now);
    slot.peer = peer;
    slot.name = name;
    slot.last_heard = now;
}

ServerSlot& Roster::add_spectator(PeerId peer, const std::string& name, Micros now) {
    ServerSlot& spectator = m_spectators.emplace_back();
    spectator.spectator = true;
    seat(spectator, peer, name, m_started ? SlotLife::kAwaitingState : SlotLife::kWatching, now);
    return spectator;
}

bool Roster::absent(const ServerSlot& slot) const {
    switch (slot.life()) {
        case SlotLife::kPlaying:
        case SlotLife::kWatching:
            return false;
        // Paused for an away player, unless it never played since it (re)joined.
        case SlotLife::kAway:
            return !m_config.pause_on_drop || slot.m_away_from != SlotLife::kPlaying;
        case SlotLife::kEmpty:
        case SlotLife::kAwaitingState:
        case SlotLife::kJoining:
        case SlotLife::kLeft:
            break;
    }
    return true;
}

std::uint8_t Roster::absent_mask() const {
    std::uint8_t bits = 0;
    for (int s = 0; s < m_config.players; ++s) {
        if (absent(m_players[s])) bits |= static_cast<std::uint8_t>(1u << s);
    }
    return bits;
}

std::uint8_t Roster::present() const {
    std::uint8_t bits = 0;
    for (int s = 0; s < m_config.players; ++s) {
        const ServerSlot& other = m_players[s];
        if (other.in_session() && !other.away() && !other.awaiting_state())
            bits |= static_cast<std::uint8_t>(1u << s);
    }
    return bits;
}

bool Roster::unsettled(const ServerSlot& slot, Micros now) const {
    // An input round trip includes the wait for every player's input: while a player is
    // going away (its silence, before the slot turns neutral) or away with the session
    // paused, that wait is the absence, not the network, and must not raise the delay.
    // Nor does what an away player reports as it comes back: after a network outage its
    // first datagram carries the round trip of a frame confirmed before the outage and
    // heard of only after it (its coming back starts the settling time for the others).
    bool absence = m_changed_at >= 0 && now - m_changed_at < kAbsenceSettleUs;
    absence |= slot.away();
    if (m_config.pause_on_drop) {
        for (const ServerSlot& other : players()) absence |= other.away();
    }
    return absence;
}

Roster::SilenceDeadline Roster::silence_deadline(const ServerSlot& slot) const {
    using Then = SilenceDeadline::Then;
    if (!m_started || m_config.reconnect_grace_us <= 0)
        return {slot.last_heard + m_config.client_timeout_us, Then::kDrop};
    switch (slot.life()) {
        case SlotLife::kAway:
            return {slot.m_away_since + m_config.reconnect_grace_us, Then::kGraceOver};
        case SlotLife::kAwaitingState:
            return {slot.last_heard + m_config.client_timeout_us, Then::kDropJoining};
        default:
            return {slot.last_heard + m_config.link_lost_us, Then::kGoAway};
    }
}

std::optional<Roster::Silence> Roster::silent(const ServerSlot& slot, Micros now) const {
    if (!slot.in_session()) return std::nullopt;
    const SilenceDeadline deadline = silence_deadline(slot);
    if (now <= deadline.at) return std::nullopt;
    char why[96];
    switch (deadline.then) {
        case SilenceDeadline::Then::kDrop:
        case SilenceDeadline::Then::kGoAway:
            std::snprintf(why, sizeof why, "no data for %.1f s", (now - slot.last_heard) / 1e6);
            break;
        case SilenceDeadline::Then::kGraceOver:
            std::snprintf(why, sizeof why, "did not come back within %.0f s",
                          m_config.reconnect_grace_us / 1e6);
            break;
        case SilenceDeadline::Then::kDropJoining:
            return Silence{false, "silent while joining"};
    }
    return Silence{deadline.then == SilenceDeadline::Then::kGoAway, why};
}

std::optional<Micros> Roster::quorum_since(Micros now) {
    int joined = 0;
    bool silent = false;
    for (const ServerSlot& slot : players()) {
        joined += slot.taken() ? 1 : 0;
        // A player silent this long (a process that stood still after its Welcome) would be
        // away at frame 0 and the session played on neutral input for it: the start waits
        // until it speaks again, and the wait for round trips starts again from then.
        silent |= slot.taken() && now - slot.last_heard > m_config.link_lost_us;
    }
    if (joined < m_config.start_players || silent) {
        m_quorum_since = -1;
        return std::nullopt;
    }
    if (m_quorum_since < 0) m_quorum_since = now;
    return m_quorum_since;
}

std::optional<std::string> Roster::remove_spectator(PeerId peer) {
    const auto it = std::find_if(m_spectators.begin(), m_spectators.end(),
                                 [&](const ServerSlot& x) { return x.peer == peer; });
    if (it == m_spectators.end()) return std::nullopt;
    std::string name = std::move(it->name);
    m_spectators.erase(it);
    return name;
}

std::vector<std::pair<PeerId, std::string>> Roster::remove_silent_spectators(Micros now) {
    std::vector<std::pair<PeerId, std::string>> gone;
    std::erase_if(m_spectators, [&](ServerSlot& x) {
        if (now - x.last_heard <= m_config.client_timeout_us) return false;
        gone.emplace_back(x.peer, std::move(x.name));
        return true;
    });
    return gone;
}

}  // namespace framelock::netplay
