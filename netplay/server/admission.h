// Admission: who may join and as what. Every connection is challenged first (a nonce, the
// password salt); its Hello must answer it, prove the password its role needs, and match the
// session's game. A player gets a free slot, the one it asks for, or its own back when it
// proves the slot's rejoin token; a spectator gets a place while there is room. Names are made
// unique. Admission decides and refuses (Reject); the Server takes the member in.
//
// A connection that has not said Hello yet (joining) costs the session a peer slot, so it
// is held to little: a Hello within hello_timeout_us, at most max_joining_per_address of
// them from one address, max_joining in all (a newcomer closes the oldest one of the address
// with the most). The Hello is checked in an order that tells a stranger nothing: the
// version, then the password, and only then whether its game is the session's.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "netplay/crypto/join_proof.h"
#include "netplay/crypto/server_identity.h"
#include "netplay/crypto/session_keys.h"
#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/server/roster.h"
#include "netplay/server/server_config.h"
#include "netplay/server/server_events.h"
#include "netplay/server/server_slot.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class Admission {
  public:
    // Every reference outlives the part (the Server's own). Derives the passwords' keys here,
    // once, so that a join costs the server a hash, not a derivation.
    Admission(Transport& transport, const ServerConfig& config, ServerEvents& events);

    // A new connection: sent its Challenge, which its Hello must answer; or closed at once
    // when its address has max_joining_per_address joining already.
    void challenge(PeerId peer, Micros now);
    // The connection closed before its Hello (or before its Welcome).
    void forget(PeerId peer) {
        m_pending.erase(peer);
        m_seals.erase(peer);
    }
    // Closes the connections that said no Hello within hello_timeout_us (a connection that
    // never says Hello holds a peer for nothing), and reports those closed before their
    // Hello (ServerEvent::kHalfOpen, at most one event every 10 s, naming the addresses).
    void expire(Micros now);
    // When expire() next has a connection to close.
    std::optional<Micros> next_expiry() const;

    // Connections closed before their Hello since the session opened.
    struct HalfOpen {
        std::uint64_t too_many = 0;  // over max_joining_per_address: closed at once
        std::uint64_t evicted = 0;   // closed to make room (max_joining)
        std::uint64_t expired = 0;   // no Hello within hello_timeout_us
    };
    HalfOpen half_open() const { return m_half_open; }
    // The key every Welcome is signed with (ServerConfig::identity, or the session's own).
    const ServerKey& server_key() const { return m_server_identity->public_key(); }
    // Refuses the peer (a Reject saying why) and closes its connection.
    void reject(PeerId peer, RejectReason reason, const std::string& message);

    // What a Hello makes of its connection: refused (it was sent a Reject), a spectator, or
    // the player of `slot`.
    struct Admit {
        enum class As { kRefused, kSpectator, kPlayer };
        As as = As::kRefused;
        int slot = 0;         // kPlayer: 1..players
        bool proven = false;  // kPlayer: its rejoin token proved the slot its own
        std::string name;     // the name it goes by (a rejoining player keeps its own)
        bool first = false;   // the session's first player: its game is the session's now
        std::string game;     // kPlayer before the start: its game, for the joined event
    };
    Admit admit(PeerId peer, const Hello& hello, const Roster& roster, Micros now);

    // A member's Welcome: the session's settings, the server's key exchange key for this
    // connection and, for a player, a new rejoin token (the only one that takes the slot back
    // from now on) sealed to its connection's `box_key`.
    Welcome welcome(const ServerSlot& member, int slot_number, bool late,
                    const BoxPublicKey& box_key, std::uint16_t snapshot_interval, Micros now);

    // A peer's text made safe where the server takes it (netplay/base/safe_text.h): the log,
    // the events and what the other players are sent show escapes, not controls; the name is
    // cut to the wire's limit.
    static void make_text_safe(Hello& hello);

    // The keys that seal everything after `peer`'s Welcome (session_keys.h), agreed when its
    // Hello was admitted and bound to the password its role proved; handed out once.
    std::optional<SealKeys> take_seal_keys(PeerId peer);

  private:
    Admit admit_spectator(PeerId peer, const Hello& hello, const Roster& roster);
    Admit admit_running(PeerId peer, const Hello& hello, int proven, const Roster& roster);
    // The player slot whose rejoin token the Hello proves (0: none).
    int proven_slot(const Hello& hello, const Nonce& nonce, const Roster& roster) const;
    // Whether the Hello proves the password its role needs; rejects the peer if not.
    bool check_password(PeerId peer, const Hello& hello, const Nonce& nonce);
    // `wanted`, or with a suffix when another player or spectator goes by it already.
    std::string unique_name(std::string wanted, const ServerSlot* self, const Roster& roster) const;
    // The display name slot `slot_number` gets for this Hello ("player N" when it asks none).
    std::string player_name(const Hello& hello, int slot_number, const Roster& roster) const;
    // The first slot nobody holds, or 0 after refusing the peer: the session is full, then
    // `advice`.
    int free_slot_or_reject(PeerId peer, const Hello& hello, const std::string& advice,
                            const Roster& roster);
    // For a refusal: the name asked for is a player's here (a name is no key to a slot).
    std::string name_hint(const Hello& hello, const Roster& roster) const;

    // A connection that was sent a Challenge and has not said Hello yet.
    struct Pending {
        Nonce nonce{};
        Micros since = 0;
        std::string source;  // its address without the port ("": unknown, no cap applies)
    };
    enum class Cause { kTooMany, kEvicted, kExpired };
    // Closes a connection that said no Hello (a Reject saying why), counts it for `source`.
    void close_half_open(PeerId peer, const std::string& source, Cause cause, Micros now);
    // Closes the oldest joining connection of the address with the most.
    void make_room(Micros now);
    // The kHalfOpen event, when there is something to say and the last was long enough ago.
    void report_half_open(Micros now);

    Transport& m_transport;
    const ServerConfig& m_config;
    ServerEvents& m_events;
    // The join handshake (join_proof.h): the salt and the keys derived from the passwords,
    // and each connection's Challenge until it says Hello.
    Salt m_salt{};
    std::shared_ptr<const ServerIdentity> m_server_identity;  // signs every Welcome
    std::optional<PasswordKey> m_player_key, m_spectator_key;
    std::map<PeerId, Pending> m_pending;
    // Each admitted connection's seal, from its Hello until its Welcome.
    // Its Welcome is signed over the nonce and both key exchange keys.
    struct Seal {
        KxPublicKey server_key{};
        KxPublicKey client_key{};
        Nonce nonce{};
        SealKeys keys;
    };
    std::map<PeerId, Seal> m_seals;
    HalfOpen m_half_open;
    std::map<std::string, HalfOpen> m_unreported;  // per address, since the last report
    Micros m_next_report = 0;
    // The session's game: the first player's, which every later Hello must match.
    std::optional<SessionIdentity> m_identity;
    std::string m_content_name;
    // Each player slot's rejoin token (a new one with every Welcome); a slot's counts only
    // while the slot is in the session.
    std::array<RejoinToken, kMaxPlayers> m_tokens{};
};

}  // namespace framelock::netplay
