// Who plays: the Hello and its proofs (password, rejoin token), slots and names, spectators,
// late join and rejoin, the start, and a player's going away, coming back and leaving.
#include "netplay/server/server.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "netplay/determinism/evidence.h"
#include "netplay/determinism/state_hash.h"
#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

using namespace server_tuning;

namespace {

std::string describe(const SessionIdentity& id, const std::string& content_name) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "%s %s, content %s (%016" PRIx64 "), options %016" PRIx64 ", %.3f fps",
                  id.core_name.c_str(), id.core_version.c_str(),
                  content_name.empty() ? "-" : content_name.c_str(), id.content_hash,
                  id.options_hash, id.fps_milli / 1000.0);
    return text;
}

}  // namespace

void Server::reject(PeerId peer, RejectReason reason, const std::string& message) {
    m_pending.erase(peer);  // closed here: no disconnect event follows
    m_transport.send(peer, Channel::kControl, encode(Reject{reason, message}));
    m_transport.flush();
    m_transport.disconnect(peer);
    emit({ServerEvent::Type::kRejected, 0, 0, 0, 0, message});
}

void Server::handle_hello(PeerId peer, const Hello& hello) {
    if (hello.version != kProtocolVersion) {
        reject(peer, RejectReason::kVersion,
               "protocol version mismatch: you speak " + std::to_string(hello.version) +
                   ", this server speaks " + std::to_string(kProtocolVersion) +
                   " (update framelock on the older side)");
        return;
    }
    if (m_identity && !(*m_identity == hello.identity)) {
        reject(
            peer, RejectReason::kMismatch,
            "this session does not match your game: " +
                identity_mismatch(*m_identity, m_content_name, hello.identity, hello.content_name));
        return;
    }
    if (hello.identity.fps_milli < 1000 || hello.identity.fps_milli > 1'000'000) {
        reject(peer, RejectReason::kBadHello,
               "frame rate " + std::to_string(hello.identity.fps_milli / 1000.0) +
                   " fps is out of range");
        return;
    }
    // The nonce this connection was challenged with; one Hello answers it, once.
    const auto pending = m_pending.find(peer);
    if (pending == m_pending.end()) {
        reject(peer, RejectReason::kBadHello,
               "Hello before the server's Challenge (not a framelock client?)");
        return;
    }
    const Nonce nonce = pending->second.nonce;
    m_pending.erase(pending);
    if (!check_password(peer, hello, nonce)) return;
    if (hello.role == Role::kSpectator) {
        add_spectator(peer, hello);
        return;
    }
    if (hello.requested_slot > m_config.players) {
        reject(peer, RejectReason::kFull,
               "slot " + std::to_string(hello.requested_slot) +
                   " does not exist: the session has " + std::to_string(m_config.players) +
                   " player slots");
        return;
    }
    const int proven = proven_slot(hello, nonce);
    if (proven && !m_roster.player(proven).away() &&
        m_clock.now_us() - m_roster.player(proven).last_heard < m_config.link_lost_us) {
        // Its token, but the slot's connection still talks: a live slot goes to nobody, the
        // token's holder included (a copy of the token is not the player).
        reject(peer, RejectReason::kSlotTaken,
               "slot " + std::to_string(proven) + " is '" + m_roster.player(proven).name +
                   "''s, who is still playing on another connection; if that framelock has "
                   "crashed, run this again in a second");
        return;
    }
    if (m_roster.started()) {
        hello_running(peer, hello, proven);
        return;
    }
    int s = proven;
    if (s > 0) {
        // Its own slot, from a new process: the old connection is gone (or about to be).
        m_transport.disconnect(m_roster.player(s).peer);
        m_transfers.forget_upload_from(s);  // asked again
    } else {
        s = hello.requested_slot;
        if (s > 0 && m_roster.player(s).taken()) {
            reject(peer, RejectReason::kSlotTaken,
                   "slot " + std::to_string(s) + " is taken by '" + m_roster.player(s).name +
                       "'; pick another or omit --slot (a slot is taken back only with its "
                       "rejoin token, by the framelock it was given to)");
            return;
        }
    }
    if (s == 0 && (s = free_slot_or_reject(peer, hello, "")) == 0) return;
    if (!m_identity) {
        m_identity = hello.identity;
        m_content_name = hello.content_name;
        m_config.delay.frame_time = FrameTime::from_fps_milli(hello.identity.fps_milli);
        m_measure.restart_controller(m_config.delay);
    }
    Slot& slot = m_roster.player(s);
    std::string name = proven ? slot.name : "";
    slot = Slot{};
    if (name.empty()) name = player_name(hello, s);
    m_roster.set_life(slot, SlotLife::kPlaying, m_clock.now_us());
    slot.peer = peer;
    slot.name = name;
    slot.box_key = hello.box_key;
    m_measure.new_link(slot.link);
    slot.last_heard = m_clock.now_us();
    welcome(slot, s, false);
    emit({ServerEvent::Type::kPlayerJoined, s, 0, 0, 0,
          slot.name + (proven ? " rejoined from a new process: " : " joined: ") +
              describe(hello.identity, hello.content_name)});
    m_transfers.offer_start_state(slot, m_roster.started());
}

void Server::welcome(Slot& slot, int slot_number, bool late) {
    Welcome welcome;
    welcome.slot = static_cast<std::uint8_t>(slot_number);
    welcome.players = static_cast<std::uint8_t>(m_config.players);
    welcome.hash_interval = m_config.hash_interval;
    welcome.keyframe_interval = m_config.keyframe_interval;
    welcome.send_interval = m_config.send_interval;
    welcome.server_time_us = m_clock.now_us();
    welcome.mode = m_config.mode;
    welcome.prediction_window =
        m_config.mode == SessionMode::kRollback ? m_config.prediction_window : 0;
    welcome.role = slot.spectator ? Role::kSpectator : Role::kPlayer;
    welcome.late = late;
    welcome.snapshot_interval = m_transfers.snapshot_interval();
    welcome.name = slot.name;
    if (!slot.spectator) {
        slot.token = random_array<kRejoinTokenBytes>();
        welcome.sealed_token = seal_token(slot.token, slot.box_key);
    }
    m_transport.send(slot.peer, Channel::kControl, encode(welcome));
    // Every mask kept, oldest first: a joiner's first frame may come before the newest.
    if (late) {
        for (const EvidenceMask& mask : m_votes.masks())
            m_transport.send(slot.peer, Channel::kControl, encode(mask));
    }
    if (late) m_transport.send(slot.peer, Channel::kControl, encode(m_schedule.start()));
}

void Server::add_spectator(PeerId peer, const Hello& hello) {
    if (static_cast<int>(m_roster.spectators().size()) >= m_config.max_spectators) {
        reject(peer, RejectReason::kFull,
               "this session takes no more spectators (" + std::to_string(m_config.max_spectators) +
                   " watching)");
        return;
    }
    if (!m_identity) {
        reject(peer, RejectReason::kBadHello,
               "nobody plays in this session yet: spectators join once a player has");
        return;
    }
    Slot spectator;
    spectator.spectator = true;
    spectator.peer = peer;
    spectator.name =
        unique_name(hello.player_name.empty() ? "spectator" : hello.player_name, nullptr);
    spectator.last_heard = m_clock.now_us();
    m_roster.set_life(spectator,
                      m_roster.started() ? SlotLife::kAwaitingState : SlotLife::kWatching,
                      m_clock.now_us());
    m_roster.spectators().push_back(spectator);
    welcome(m_roster.spectators().back(), 0, m_roster.started());
    emit(
        {ServerEvent::Type::kSpectatorJoined, 0, m_book.confirmed_end(), 0, 0,
         spectator.name + " watches" + (m_roster.started() ? " (joining a running session)" : "")});
    if (!m_roster.started())
        m_transfers.offer_start_state(m_roster.spectators().back(), m_roster.started());
}

int Server::proven_slot(const Hello& hello, const Nonce& nonce) const {
    if (!hello.rejoin_proof) return 0;
    for (int s = 1; s <= m_config.players; ++s) {
        const Slot& slot = m_roster.player(s);
        if (slot.in_session() && !slot.spectator &&
            same_proof(rejoin_proof(slot.token, nonce), *hello.rejoin_proof))
            return s;
    }
    return 0;
}

bool Server::check_password(PeerId peer, const Hello& hello, const Nonce& nonce) {
    const bool spectator = hello.role == Role::kSpectator;
    const std::string& password = spectator ? m_config.spectator_password : m_config.password;
    if (password.empty()) return true;
    const std::optional<PasswordKey>& key = spectator ? m_spectator_key : m_player_key;
    const std::string needs =
        spectator ? "this session's spectators need a password" : "this session needs a password";
    if (!key) {
        reject(peer, RejectReason::kPassword,
               needs +
                   ", and this server could not derive its key (out of memory, or a key "
                   "cost out of bounds): nobody can join until it is restarted");
        return false;
    }
    if (!hello.password_proof) {
        reject(peer, RejectReason::kPassword, needs + " (--password)");
        return false;
    }
    if (!same_proof(password_proof(*key, nonce, hello.role), *hello.password_proof)) {
        reject(peer, RejectReason::kPassword,
               spectator ? "wrong spectator password" : "wrong password");
        return false;
    }
    return true;
}

std::string Server::unique_name(std::string wanted, const Slot* self) const {
    const auto taken = [&](const std::string& name) {
        for (const Slot& slot : m_roster.players()) {
            if (&slot != self && slot.in_session() && slot.name == name) return true;
        }
        for (const Slot& spectator : m_roster.spectators()) {
            if (&spectator != self && spectator.name == name) return true;
        }
        return false;
    };
    if (!taken(wanted)) return wanted;
    // Room for the suffix within the wire's limit, cut before a multi-byte character.
    std::size_t end = std::min(wanted.size(), kMaxNameBytes - 5);
    while (end > 0 && end < wanted.size() &&
           (static_cast<unsigned char>(wanted[end]) & 0xC0) == 0x80)
        --end;
    wanted.resize(end);
    for (int n = 2;; ++n) {
        std::string name = wanted + " (" + std::to_string(n) + ")";
        if (!taken(name)) return name;
    }
}

std::string Server::player_name(const Hello& hello, int slot_number) const {
    return unique_name(
        hello.player_name.empty() ? "player " + std::to_string(slot_number) : hello.player_name,
        &m_roster.player(slot_number));
}

int Server::free_slot() const {
    // Before the start a slot given up is emptied; after it, it stays (left) on the timeline.
    for (int s = 1; s <= m_config.players; ++s) {
        if (!m_roster.player(s).in_session()) return s;
    }
    return 0;
}

int Server::free_slot_or_reject(PeerId peer, const Hello& hello, const std::string& advice) {
    const int s = free_slot();
    if (s == 0) {
        reject(peer, RejectReason::kFull,
               "the session is full (" + std::to_string(m_config.players) + "/" +
                   std::to_string(m_config.players) + " players)" + advice + name_hint(hello));
    }
    return s;
}

std::string Server::name_hint(const Hello& hello) const {
    for (const Slot& slot : m_roster.players()) {
        if (slot.in_session() && !hello.player_name.empty() && slot.name == hello.player_name)
            return "; '" + hello.player_name +
                   "' plays here already, and a name is no key to a slot: after a crash, "
                   "start framelock join again the same way and it takes its slot back with "
                   "the rejoin token it kept";
    }
    return "";
}

void Server::hello_running(PeerId peer, const Hello& hello, int proven) {
    if (m_config.mode == SessionMode::kRollback) {
        reject(peer, RejectReason::kNotSupported,
               "joining a running rollback session as a player is not supported; watch it as a "
               "spectator (--spectate)");
        return;
    }
    int s = proven;  // its own slot, proven by its token: a rejoin
    if (s == 0 && hello.requested_slot > 0) {
        s = hello.requested_slot;  // checked against the slot count by handle_hello
        const Slot& slot = m_roster.player(s);
        if (slot.in_session()) {
            reject(peer, RejectReason::kSlotTaken,
                   slot.away() ? "slot " + std::to_string(s) + " belongs to '" + slot.name +
                                     "', whose connection dropped; only their framelock, with the "
                                     "rejoin token it was given, may take it back (within " +
                                     std::to_string(m_config.reconnect_grace_us / 1'000'000) +
                                     " s). Pick another slot or omit --slot"
                               : "slot " + std::to_string(s) + " is taken by '" + slot.name +
                                     "', who is playing; pick another or omit --slot");
            return;
        }
    }
    if (s == 0 &&
        (s = free_slot_or_reject(peer, hello, "; watch as a spectator (--spectate)")) == 0)
        return;
    Slot& slot = m_roster.player(s);
    const bool rejoin = slot.in_session();
    if (rejoin && slot.peer != peer) {
        // The old connection belongs to a process that is gone (or about to be).
        m_transport.disconnect(slot.peer);
        m_transfers.forget_upload_from(s);  // asked again, of another
    }
    // The slot keeps its place on the timeline (inputs_end, pending): it is absent, so it
    // gets neutral input, until the joiner runs and its first input arrives.
    m_roster.set_life(slot, SlotLife::kAwaitingState, m_clock.now_us());
    slot.peer = peer;
    slot.box_key = hello.box_key;
    if (!rejoin) slot.name = player_name(hello, s);
    const std::string& name = slot.name;
    slot.last_heard = m_clock.now_us();
    m_measure.new_connection(slot.link);
    m_book.forget_held(slot.inputs);
    m_transfers.stop_sending(slot.transfer);
    m_votes.new_connection(slot.votes);
    welcome(slot, s, true);
    emit({ServerEvent::Type::kPlayerJoined, s, m_book.confirmed_end(), 0, 0,
          name + (rejoin ? " rejoins" : " joins the running session") + " at frame " +
              std::to_string(m_book.confirmed_end())});
}

void Server::maybe_start() {
    const Micros now = m_clock.now_us();
    int joined = 0;
    for (int s = 0; s < m_config.players; ++s) joined += m_roster.player(s + 1).taken() ? 1 : 0;
    if (joined < m_config.start_players) {
        m_lobby_full_since = -1;
        return;
    }
    if (m_lobby_full_since < 0) m_lobby_full_since = now;
    // The start state's transfer overlaps the round-trip measurements below.
    if (!m_transfers.start_state_everywhere(m_roster.players(), m_roster.spectators()) ||
        !m_votes.moved_everywhere(m_roster.players(), m_transfers.start_state_refused()))
        return;
    // Wait (briefly) until every client has measured its round trip: the first delay
    // should already fit the network.
    const bool all_measured = m_measure.measured(m_roster.players());
    const Micros worst = m_measure.safe_rtt_worst(m_roster.players());
    if (!all_measured && now - m_lobby_full_since < m_config.max_lobby_rtt_wait_us) return;

    const int delay = m_measure.initial_delay(worst);
    Start start;
    start.start_time_us = now + std::max(m_config.start_lead_us, 2 * worst);
    start.frame_time_ns = m_config.delay.frame_time.ns();
    start.delay = static_cast<std::uint8_t>(delay);
    start.players = static_cast<std::uint8_t>(m_config.players);
    m_schedule.begin(start, m_config.keyframe_interval);
    m_book.start(delay, m_roster.players());
    // The evidence every player hashes from frame 0 on: sent before Start (same channel).
    m_votes.start(m_roster.players(), m_roster.spectators(), m_transfers.start_state_size(),
                  m_transfers.start_state_refused());
    m_measure.start(m_roster.players(), m_book.confirmed_end());
    for (int s = 0; s < m_config.players; ++s) {
        if (m_roster.player(s + 1).taken())
            m_transport.send(m_roster.player(s + 1).peer, Channel::kControl,
                             encode(m_schedule.start()));
    }
    for (const Slot& spectator : m_roster.spectators())
        m_transport.send(spectator.peer, Channel::kControl, encode(m_schedule.start()));
    m_roster.start();
    char why[160];
    std::snprintf(why, sizeof why,
                  "session started: the slowest round trip measured %.1f ms (SRTT + RTTVAR)",
                  worst / 1000.0);
    emit({ServerEvent::Type::kStarted, 0, 0, delay, 0, why});
}

void Server::activate(Slot& slot, int slot_number, std::uint32_t first_frame) {
    // Its own inputs start at first_frame: frames before it (not yet confirmed) stay
    // neutral, and what it sent for frames already confirmed is dropped.
    m_book.fill_to(slot.inputs, first_frame);
    const bool was_away = slot.away();
    m_roster.set_life(slot, SlotLife::kPlaying, m_clock.now_us());
    emit({ServerEvent::Type::kPlayerBack, slot_number, slot.inputs.inputs_end(), 0, 0,
          slot.name + (was_away ? " is back" : " plays") + " from frame " +
              std::to_string(slot.inputs.inputs_end())});
}

void Server::go_away(int slot_number, const std::string& why) {
    Slot& slot = m_roster.player(slot_number);
    if (!slot.in_session() || slot.away()) return;
    m_roster.set_life(slot, SlotLife::kAway, m_clock.now_us());
    m_book.forget_held(slot.inputs);
    m_transfers.stop_sending(slot.transfer);
    const std::string grace = std::to_string(m_config.reconnect_grace_us / 1'000'000);
    emit({ServerEvent::Type::kPlayerAway, slot_number, slot.inputs.inputs_end(), 0, 0,
          slot.name + " is away (" + why + "); " +
              (m_config.pause_on_drop ? "the session waits" : "neutral input meanwhile") +
              ", rejoin possible for " + grace + " s"});
    const PlayerLeft left{static_cast<std::uint8_t>(slot_number), slot.inputs.inputs_end(),
                          slot.name + ": " + why + " (may rejoin for " + grace + " s)"};
    for (int s = 0; s < m_config.players; ++s) {
        if (s != slot_number - 1 && m_roster.player(s + 1).active())
            m_transport.send(m_roster.player(s + 1).peer, Channel::kControl, encode(left));
    }
    m_transfers.forget_upload_from(slot_number);
    confirm_frames();
}

void Server::handle_disconnect(PeerId peer, const std::string& reason) {
    if (const int s = m_roster.slot_of(peer)) {
        if (m_roster.started() && m_config.reconnect_grace_us > 0 &&
            !m_roster.player(s).awaiting_state()) {
            go_away(s, reason);
        } else {
            drop(s, ByeReason::kQuit, reason);
        }
        return;
    }
    for (std::size_t i = 0; i < m_roster.spectators().size(); ++i) {
        if (m_roster.spectators()[i].peer != peer) continue;
        emit({ServerEvent::Type::kSpectatorLeft, 0, m_book.confirmed_end(), 0, 0,
              m_roster.spectators()[i].name + " (spectator): " + reason});
        m_roster.spectators().erase(m_roster.spectators().begin() + static_cast<std::ptrdiff_t>(i));
        return;
    }
}

void Server::drop(int slot_number, ByeReason reason, const std::string& message) {
    Slot& slot = m_roster.player(slot_number);
    if (!slot.in_session()) return;
    if (reason != ByeReason::kQuit)
        m_transport.send(slot.peer, Channel::kControl, encode(Bye{reason, message}));
    m_transport.flush();
    m_transport.disconnect(slot.peer);
    emit({ServerEvent::Type::kPlayerLeft, slot_number, slot.inputs.inputs_end(), 0, 0,
          slot.name + " left: " + message});
    if (!m_roster.started()) {
        slot = Slot{};
        m_transfers.forget_upload_from(slot_number);  // asked again
        return;
    }
    m_roster.set_life(slot, SlotLife::kLeft, m_clock.now_us());
    m_transfers.stop_sending(slot.transfer);
    m_transfers.forget_upload_from(slot_number);
    m_book.leave(slot.inputs);
    const PlayerLeft left{static_cast<std::uint8_t>(slot_number), slot.inputs.left_from(),
                          slot.name + ": " + message};
    for (int s = 0; s < m_config.players; ++s) {
        if (m_roster.player(s + 1).in_session())
            m_transport.send(m_roster.player(s + 1).peer, Channel::kControl, encode(left));
    }
    // The last player present quit: players still away have nobody to come back to.
    bool present = false;
    for (int s = 0; s < m_config.players; ++s)
        present |= m_roster.player(s + 1).in_session() && !m_roster.player(s + 1).away();
    if (!present && reason == ByeReason::kQuit) {
        for (int s = 1; s <= m_config.players; ++s) {
            if (m_roster.player(s).in_session())
                drop(s, ByeReason::kServerShutdown, "every other player left");
        }
    }
    confirm_frames();  // the others may have been waiting only for this player
}

}  // namespace framelock::netplay
