#include "netplay/server.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "netplay/evidence.h"
#include "netplay/state_hash.h"

namespace framelock::netplay {
namespace {

constexpr Micros kLobbyHeartbeatUs = 100'000;
// While running, every confirmed frame goes out at once; without news, an update still goes
// this often (acknowledgements, the schedule, a resend of what may have been lost). Sooner
// would double the downstream datagrams whenever a frame's last input is a little late.
constexpr int kQuietUpdateFrames = 3;
constexpr std::size_t kMaxEvents = 4096;
// Round trips reported this long after a player went away or came back are not network
// measurements (see handle_input).
constexpr Micros kAbsenceSettleUs = 1'000'000;
// A sample taken this late by the client's own process (ClientInput::late_ms) is a hiccup of
// that process (scheduler, disk, a window dragged), not the network: frames it held up do
// not raise the delay. Below it, the lateness is the loop's own timing and counts.
constexpr int kStalledMs = 8;
// How far back the server's own measurements of a link reach when it checks a report, and
// the slack it allows (the client's loop timing, a second copy's spacing).
constexpr Micros kCheckWindowUs = 10'000'000;
constexpr Micros kCheckSlackUs = 3'000;
// How many of a client's newest updates resend_gap() looks through (a frame goes out at once
// and again with each update until the client acknowledges it: a round trip or two in frame
// lock; a frame whose first update lies further back gets no allowance).
constexpr int kResendLookback = 64;
// Confirmed frames whose timing is kept for checking reports.
constexpr std::size_t kInfoFrames = 600;
// A link that lost a datagram (either way) this recently sends everything twice; a lossy
// link (its last loss event came within kLossyGapUs of the loss before it) for longer. The
// copies hide the loss that turned them on, so on a steadily lossy link a short memory falls
// back to single datagrams between losses, and the first loss after each fall-back costs a
// frame (bench_netplay_delay at 1% loss: half a frame to 0.7 more mean delay with 10 s for
// every link, docs/netplay.md); a lost datagram now and then on a clean link keeps the
// short memory, which costs fewer bytes.
constexpr Micros kLossMemoryUs = 10'000'000;
constexpr Micros kLossyMemoryUs = 60'000'000;
constexpr Micros kLossyGapUs = 2 * kLossyMemoryUs;  // a fall-back's first loss still counts
// Datagrams lost within this of each other are one loss event (a burst): longer than the
// interval of the client's statistics, which report its downlink's losses.
constexpr Micros kLossEventUs = 3'000'000;
// The handshake's round trips the first delay needs from every player.
constexpr long kStartRttSamples = 8;
// A mask widened mid-session applies this many frames after the newest confirmed one: time
// for it to reach every player before they run that far.
constexpr std::uint32_t kMaskLeadFrames = 30;
// Mask generations remembered (their first frames): reports older than these are long done.
constexpr std::size_t kMaskHistory = 16;
// Before the start, a player with fewer round-trip samples than that gets a heartbeat this
// often (each answered at once), so the first delay is measured within a round trip or two.
constexpr Micros kLobbyMeasureUs = 10'000;

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

Server::Server(Transport& transport, const Clock& clock, ServerConfig config)
    : m_transport(transport),
      m_clock(clock),
      m_config(normalized(config, m_config_adjusted)),
      m_delay(m_config.delay) {
    // A setting outside its range (session_limits.h) is said, never changed in silence.
    for (std::string& what : m_config_adjusted)
        emit({ServerEvent::Type::kConfigAdjusted, 0, 0, 0, 0, std::move(what)});
    m_config_adjusted.clear();
    // Snapshots fall on keyframes (a joiner needs that keyframe's delay) and on hash frames
    // (a resync compares a hashed state), at least half a second apart.
    const std::uint32_t key = m_config.keyframe_interval;
    const std::uint32_t hash = std::max<std::uint32_t>(m_config.hash_interval, 1);
    std::uint32_t step = std::lcm(key, hash);
    std::uint32_t interval = step;
    const std::uint32_t wanted = std::max<std::uint32_t>(m_config.snapshot_interval, 30);
    while (interval < wanted) interval += step;
    m_snapshot_interval = static_cast<std::uint16_t>(std::min<std::uint32_t>(interval, 60000));
    // Derived once here, so that a join costs the server a hash, not a derivation.
    m_salt = random_array<kSaltBytes>();
    if (!m_config.password.empty())
        m_player_key = derive_password_key(m_config.password, m_salt, m_config.password_kdf);
    if (!m_config.spectator_password.empty())
        m_spectator_key =
            derive_password_key(m_config.spectator_password, m_salt, m_config.password_kdf);
}

int Server::slot_of(PeerId peer) const {
    for (int s = 0; s < m_config.players; ++s) {
        if (m_slots[s].occupied && !m_slots[s].left && m_slots[s].peer == peer) return s + 1;
    }
    return 0;
}

void Server::update() {
    const Micros now = m_clock.now_us();
    while (auto event = m_transport.poll()) {
        switch (event->type) {
            case TransportEvent::Type::kConnected: {
                // Every connection is challenged first: its Hello answers this nonce.
                Challenge challenge;
                challenge.nonce = random_array<kNonceBytes>();
                challenge.salt = m_salt;
                challenge.kdf = m_config.password_kdf;
                challenge.player_password = !m_config.password.empty();
                challenge.spectator_password = !m_config.spectator_password.empty();
                m_pending[event->peer] = Pending{challenge.nonce, now};
                m_transport.send(event->peer, Channel::kControl, encode(challenge));
                break;
            }
            case TransportEvent::Type::kDisconnected:
                m_pending.erase(event->peer);
                handle_disconnect(event->peer, "connection lost");
                break;
            case TransportEvent::Type::kMessage:
                handle_message(event->peer, event->channel, event->data);
                break;
        }
    }
    // A connection that never says Hello holds a peer for nothing.
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (now - it->second.since <= m_config.client_timeout_us) {
            ++it;
            continue;
        }
        m_transport.disconnect(it->first);
        emit({ServerEvent::Type::kRejected, 0, 0, 0, 0,
              "a connection said no Hello within " +
                  std::to_string(m_config.client_timeout_us / 1'000'000) + " s: closed"});
        it = m_pending.erase(it);
    }
    for (int s = 1; s <= m_config.players; ++s) {
        Slot& slot = m_slots[s - 1];
        if (!slot.occupied || slot.left) continue;
        if (!m_started || m_config.reconnect_grace_us <= 0) {
            if (now - slot.last_heard > m_config.client_timeout_us) {
                char why[96];
                std::snprintf(why, sizeof why, "no data for %.1f s", (now - slot.last_heard) / 1e6);
                drop(s, ByeReason::kTimeout, why);
            }
        } else if (slot.away) {
            if (now - slot.away_since > m_config.reconnect_grace_us) {
                char why[96];
                std::snprintf(why, sizeof why, "did not come back within %.0f s",
                              m_config.reconnect_grace_us / 1e6);
                drop(s, ByeReason::kTimeout, why);
            }
        } else if (!slot.awaiting_state && now - slot.last_heard > m_config.link_lost_us) {
            char why[96];
            std::snprintf(why, sizeof why, "no data for %.1f s", (now - slot.last_heard) / 1e6);
            go_away(s, why);
        } else if (slot.awaiting_state && now - slot.last_heard > m_config.client_timeout_us) {
            drop(s, ByeReason::kTimeout, "silent while joining");
        }
    }
    for (std::size_t i = 0; i < m_spectators.size();) {
        if (now - m_spectators[i].last_heard > m_config.client_timeout_us) {
            m_transport.send(m_spectators[i].peer, Channel::kControl,
                             encode(Bye{ByeReason::kTimeout, "no data from you"}));
            m_transport.disconnect(m_spectators[i].peer);
            emit({ServerEvent::Type::kSpectatorLeft, 0, m_confirmed_end, 0, 0,
                  m_spectators[i].name + " (spectator) timed out"});
            m_spectators.erase(m_spectators.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
            ++i;
        }
    }
    if (!m_started) {
        prepare_start_state();
        pump_senders();
        maybe_start();
        for (int s = 0; s < m_config.players; ++s) {
            Slot& slot = m_slots[s];
            if (slot.occupied && now - slot.last_update_sent >= lobby_period(slot))
                send_update(slot);
        }
        for (Slot& spectator : m_spectators) {
            if (now - spectator.last_update_sent >= kLobbyHeartbeatUs) send_update(spectator);
        }
        // Out now, not at the next datagram: the lobby's round trips set the first delay (a
        // heartbeat left waiting in the queue read as 60 ms more of network).
        m_transport.flush();
        return;
    }
    confirm_frames();
    serve_states();
    for (int s = 0; s < m_config.players; ++s) {
        Slot& slot = m_slots[s];
        if (slot.copy_at >= 0 && now >= slot.copy_at && slot.occupied && !slot.left) {
            m_transport.send(slot.peer, Channel::kInput, slot.copy);
            slot.copy_at = -1;
        }
    }
    const Micros quiet_period = kQuietUpdateFrames * m_config.delay.frame_time.us();
    const bool news =
        m_confirmed_end > m_last_sent_end ||
        (m_config.mode == SessionMode::kRollback && m_inputs_seen != m_last_sent_inputs);
    for (int s = 0; s < m_config.players; ++s) {
        Slot& slot = m_slots[s];
        if (!slot.occupied || slot.left) continue;
        if (news || now - slot.last_update_sent >= quiet_period) send_update(slot);
    }
    for (Slot& spectator : m_spectators) {
        if (news || now - spectator.last_update_sent >= quiet_period) send_update(spectator);
    }
    pump_senders();
    trim_history();
    m_last_sent_end = m_confirmed_end;
    m_last_sent_inputs = m_inputs_seen;
    m_transport.flush();
}

Micros Server::next_wakeup() const {
    // Timed work: each player's next update (every frame while running, every 100 ms in
    // the lobby) and timeouts; incoming messages wake the caller through the transport.
    const Micros now = m_clock.now_us();
    Micros wake = now + kLobbyHeartbeatUs;
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_slots[s];
        if (!slot.occupied || slot.left) continue;
        const Micros period =
            m_started ? kQuietUpdateFrames * m_config.delay.frame_time.us() : lobby_period(slot);
        if (slot.copy_at >= 0) wake = std::min(wake, slot.copy_at);
        wake = std::min(wake, slot.last_update_sent + period);
        // The one deadline update() holds this slot to now (a deadline already passed and
        // still included would make the caller spin, e.g. an away player's old silence).
        if (!m_started || m_config.reconnect_grace_us <= 0)
            wake = std::min(wake, slot.last_heard + m_config.client_timeout_us + 1);
        else if (slot.away)
            wake = std::min(wake, slot.away_since + m_config.reconnect_grace_us + 1);
        else if (!slot.awaiting_state)
            wake = std::min(wake, slot.last_heard + m_config.link_lost_us + 1);
        else
            wake = std::min(wake, slot.last_heard + m_config.client_timeout_us + 1);
    }
    for (const Slot& spectator : m_spectators) {
        const Micros period =
            m_started ? kQuietUpdateFrames * m_config.delay.frame_time.us() : kLobbyHeartbeatUs;
        wake = std::min({wake, spectator.last_update_sent + period,
                         spectator.last_heard + m_config.client_timeout_us + 1});
    }
    if (m_upload) wake = std::min(wake, m_upload->asked_at + m_config.state_request_timeout_us + 1);
    // Passed without a drop (the missing player is away, or several are missing): what can
    // change that arrives as a message or is one of the deadlines above.
    if (m_blocked_since >= 0 && m_blocked_since + m_config.client_timeout_us + 1 > now)
        wake = std::min(wake, m_blocked_since + m_config.client_timeout_us + 1);
    if (m_started && m_config.mode == SessionMode::kNoWait && !ended())
        wake = std::min(wake, no_wait_deadline(m_confirmed_end));
    return std::max(wake, now);
}

Micros Server::no_wait_deadline(std::uint32_t g) const {
    // Half the delay before g is due: inputs sampled `delay` frames ahead have half of it
    // to arrive, the confirmation the other half to reach the players.
    const std::int64_t frame_ns = m_start.frame_time_ns;
    const std::int64_t due_ns = static_cast<std::int64_t>(g) * frame_ns;
    const std::int64_t lead_ns =
        static_cast<std::int64_t>(m_config.delay.fixed_delay) * frame_ns / 2;
    return m_start.start_time_us + (due_ns - lead_ns) / 1000;
}

std::optional<ServerEvent> Server::poll_event() {
    if (m_events.empty()) return std::nullopt;
    ServerEvent event = std::move(m_events.front());
    m_events.pop_front();
    return event;
}

Server::Slot* Server::member(PeerId peer, int& slot_number) {
    slot_number = slot_of(peer);
    if (slot_number) return &m_slots[slot_number - 1];
    for (Slot& spectator : m_spectators) {
        if (spectator.peer == peer) return &spectator;
    }
    return nullptr;
}

void Server::handle_message(PeerId peer, Channel channel, std::span<const std::uint8_t> bytes) {
    int s = 0;
    Slot* who = member(peer, s);
    const auto id = peek_id(bytes);
    const auto malformed = [&](const std::string& what) {
        if (who) ++who->malformed;
        if (m_events.size() < kMaxEvents) emit({ServerEvent::Type::kMalformed, s, 0, 0, 0, what});
    };
    if (!id) {
        char text[64];
        std::snprintf(text, sizeof text, "unknown message id 0x%02x (%zu bytes) dropped",
                      bytes.empty() ? 0 : bytes[0], bytes.size());
        malformed(text);
        return;
    }
    if (*id == MsgId::kHello) {
        if (who) return;  // a repeated Hello changes nothing
        auto hello = decode_hello(bytes);
        if (!hello) {
            reject(peer, RejectReason::kBadHello, "malformed Hello (not a framelock client?)");
            return;
        }
        handle_hello(peer, *hello);
        return;
    }
    if (!who) {
        malformed("message from a peer without a slot dropped");
        return;
    }
    Slot& slot = *who;
    // Only well-formed messages count as signs of life: a peer sending garbage times out
    // like a silent one.
    const Micros now = m_clock.now_us();
    switch (*id) {
        case MsgId::kClientInput: {
            if (channel != Channel::kInput) break;
            auto input = decode_client_input(bytes);
            if (!input) return malformed("malformed ClientInput dropped");
            slot.last_heard = now;
            if (slot.spectator && !input->inputs.empty()) {
                // Acknowledgements and clock echoes are welcome; pads are not.
                if (!slot.refused_input && m_events.size() < kMaxEvents) {
                    emit({ServerEvent::Type::kRefused, 0, m_confirmed_end, 0, 0,
                          "spectator '" + slot.name + "' sent input for " +
                              std::to_string(input->inputs.size()) +
                              " frame(s): spectators cannot play; ignored"});
                }
                slot.refused_input = true;
                ++slot.malformed;
                input->inputs.clear();
            }
            handle_input(slot, *input);
            return;
        }
        case MsgId::kHashReport: {
            auto report = decode_hash_report(bytes);
            if (!report) return malformed("malformed HashReport dropped");
            slot.last_heard = now;
            if (s) handle_hash(s, *report);
            return;
        }
        case MsgId::kMovedBytes: {
            auto moved = decode_moved_bytes(bytes);
            if (!moved) return malformed("malformed MovedBytes dropped");
            slot.last_heard = now;
            if (s) handle_moved(s, *moved);
            return;
        }
        case MsgId::kClientStats: {
            auto stats = decode_client_stats(bytes);
            if (!stats) return malformed("malformed ClientStats dropped");
            slot.last_heard = now;
            slot.frames_run = stats->frames_run;
            slot.stall_frames = stats->stall_frames;
            slot.down_loss_permille = stats->down_loss_permille;
            slot.srtt = static_cast<Micros>(stats->srtt_100us) * 100;
            slot.rttvar = static_cast<Micros>(stats->rttvar_100us) * 100;
            if (stats->down_lost > slot.down_lost_seen) note_loss(slot, now);
            slot.down_lost_seen = stats->down_lost;
            note_clock(slot, s, stats->clock_us, now);
            return;
        }
        case MsgId::kStateHeader:
        case MsgId::kStateChunk:
        case MsgId::kStateAck:
            if (channel != Channel::kBulk) break;
            slot.last_heard = now;
            handle_bulk(slot, s, bytes);
            return;
        case MsgId::kResyncReport: {
            auto report = decode_resync_report(bytes);
            if (!report || !s) return malformed("malformed ResyncReport dropped");
            slot.last_heard = now;
            slot.resync_pending = false;
            // Never earlier than a mask its load widened says (handle_moved, just before).
            if (Frame(report->resumed_frame) > Frame(slot.hash_valid_from))
                slot.hash_valid_from = report->resumed_frame;
            emit({ServerEvent::Type::kResynced, s, report->frame, 0, 0,
                  slot.name + " loaded the reference state of frame " +
                      std::to_string(report->frame) + " (first differing hash: frame " +
                      std::to_string(report->desync_frame) + "); differing memory: " +
                      (report->regions.empty() ? "none reported" : report->regions)});
            return;
        }
        case MsgId::kBye: {
            auto bye = decode_bye(bytes);
            const std::string why = bye ? (bye->message.empty() ? "left" : bye->message) : "left";
            if (s) {
                drop(s, ByeReason::kQuit, why);
            } else {
                m_transport.disconnect(peer);
                emit({ServerEvent::Type::kSpectatorLeft, 0, m_confirmed_end, 0, 0,
                      slot.name + " (spectator) left: " + why});
                std::erase_if(m_spectators, [&](const Slot& x) { return x.peer == peer; });
            }
            return;
        }
        default:
            break;
    }
    malformed("unexpected message id dropped");
}

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
    if (proven && !m_slots[proven - 1].away &&
        m_clock.now_us() - m_slots[proven - 1].last_heard < m_config.link_lost_us) {
        // Its token, but the slot's connection still talks: a live slot goes to nobody, the
        // token's holder included (a copy of the token is not the player).
        reject(peer, RejectReason::kSlotTaken,
               "slot " + std::to_string(proven) + " is '" + m_slots[proven - 1].name +
                   "''s, who is still playing on another connection; if that framelock has "
                   "crashed, run this again in a second");
        return;
    }
    if (m_started) {
        hello_running(peer, hello, proven);
        return;
    }
    int s = proven;
    if (s > 0) {
        // Its own slot, from a new process: the old connection is gone (or about to be).
        m_transport.disconnect(m_slots[s - 1].peer);
        if (m_upload && m_upload->slot == s) m_upload.reset();  // asked again
    } else {
        s = hello.requested_slot;
        if (s > 0 && m_slots[s - 1].occupied) {
            reject(peer, RejectReason::kSlotTaken,
                   "slot " + std::to_string(s) + " is taken by '" + m_slots[s - 1].name +
                       "'; pick another or omit --slot (a slot is taken back only with its "
                       "rejoin token, by the framelock it was given to)");
            return;
        }
    }
    if (s == 0) {
        s = free_slot();
        if (s == 0) {
            reject(peer, RejectReason::kFull,
                   "the session is full (" + std::to_string(m_config.players) + "/" +
                       std::to_string(m_config.players) + " players)" + name_hint(hello));
            return;
        }
    }
    if (!m_identity) {
        m_identity = hello.identity;
        m_content_name = hello.content_name;
        m_config.delay.frame_time = FrameTime::from_fps_milli(hello.identity.fps_milli);
        m_delay = DelayController(m_config.delay);
    }
    Slot& slot = m_slots[s - 1];
    std::string name = proven ? slot.name : "";
    slot = Slot{};
    if (name.empty()) name = player_name(hello, s);
    slot.occupied = true;
    slot.peer = peer;
    slot.name = name;
    slot.box_key = hello.box_key;
    slot.clock = ClockCheck(m_config.clock_check);
    slot.last_heard = m_clock.now_us();
    welcome(slot, s, false);
    emit({ServerEvent::Type::kPlayerJoined, s, 0, 0, 0,
          slot.name + (proven ? " rejoined from a new process: " : " joined: ") +
              describe(hello.identity, hello.content_name)});
    offer_start_state(slot);
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
    welcome.snapshot_interval = m_snapshot_interval;
    welcome.name = slot.name;
    if (!slot.spectator) {
        slot.token = random_array<kRejoinTokenBytes>();
        welcome.sealed_token = seal_token(slot.token, slot.box_key);
    }
    m_transport.send(slot.peer, Channel::kControl, encode(welcome));
    // Every mask kept, oldest first: a joiner's first frame may come before the newest.
    if (late) {
        for (const EvidenceMask& mask : m_mask_history)
            m_transport.send(slot.peer, Channel::kControl, encode(mask));
    }
    if (late) m_transport.send(slot.peer, Channel::kControl, encode(m_start));
}

void Server::add_spectator(PeerId peer, const Hello& hello) {
    if (static_cast<int>(m_spectators.size()) >= m_config.max_spectators) {
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
    spectator.occupied = true;
    spectator.spectator = true;
    spectator.peer = peer;
    spectator.name =
        unique_name(hello.player_name.empty() ? "spectator" : hello.player_name, nullptr);
    spectator.last_heard = m_clock.now_us();
    spectator.awaiting_state = m_started;
    m_spectators.push_back(spectator);
    welcome(m_spectators.back(), 0, m_started);
    emit({ServerEvent::Type::kSpectatorJoined, 0, m_confirmed_end, 0, 0,
          spectator.name + " watches" + (m_started ? " (joining a running session)" : "")});
    if (!m_started) offer_start_state(m_spectators.back());
}

void Server::note_clock(Slot& slot, int slot_number, Micros client_us, Micros now) {
    // A state on its way to or from the client delays what it sends: the measurement starts
    // again after the transfer.
    if (slot.sender || slot.awaiting_state || (m_upload && m_upload->slot == slot_number))
        slot.clock.restart_window();
    const ClockCheck::Verdict verdict = slot.clock.add(now, client_us);
    if (verdict == ClockCheck::Verdict::kIgnored) return;
    if (verdict != ClockCheck::Verdict::kTaken) {
        // Reported once: a client whose clock is broken would otherwise fill the log.
        if (!slot.clock_refusal_reported) {
            slot.clock_refusal_reported = true;
            emit({ServerEvent::Type::kRefused, slot_number, m_confirmed_end, 0, 0,
                  slot.name +
                      (verdict == ClockCheck::Verdict::kBackwards
                           ? "'s clock went backwards"
                           : "'s clock is " +
                                 std::to_string(std::llabs(client_us - now) / 1'000'000) +
                                 " s away from the server's") +
                      ": the reading is refused (further refusals are only counted)"});
        }
        return;
    }
    const bool off = slot.clock.off_pace();
    if (!off) slot.named_off_pace = false;
    if (!off || slot.named_off_pace || slot_number == 0 || !m_started ||
        m_config.mode != SessionMode::kNoWait)
        return;
    // In no-wait mode the server's clock decides when an input applies: a client running
    // fast samples its pad early, and its inputs beat the others'.
    slot.named_off_pace = true;
    const double error = slot.clock.rate_error().value_or(0);
    char text[200];
    std::snprintf(text, sizeof text,
                  "%s's clock runs %.1f %% %s than the server's (over %.0f s): a speed hack or a "
                  "broken clock",
                  slot.name.c_str(), std::abs(error) * 100, error > 0 ? "faster" : "slower",
                  m_config.clock_check.window_us / 1e6);
    emit({ServerEvent::Type::kOffPace, slot_number, m_confirmed_end, 0, 0, text});
    if (m_config.kick_off_pace)
        drop(slot_number, ByeReason::kRejected,
             std::string(text) + "; removed (--kick-speed-hack)");
}

int Server::proven_slot(const Hello& hello, const Nonce& nonce) const {
    if (!hello.rejoin_proof) return 0;
    for (int s = 1; s <= m_config.players; ++s) {
        const Slot& slot = m_slots[s - 1];
        if (slot.occupied && !slot.left && !slot.spectator &&
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
        for (const Slot& slot : m_slots) {
            if (&slot != self && slot.occupied && !slot.left && slot.name == name) return true;
        }
        for (const Slot& spectator : m_spectators) {
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
        &m_slots[slot_number - 1]);
}

int Server::free_slot() const {
    // Before the start a slot given up is emptied; after it, it stays (left) on the timeline.
    for (int s = 1; s <= m_config.players; ++s) {
        if (!m_slots[s - 1].occupied || m_slots[s - 1].left) return s;
    }
    return 0;
}

std::string Server::name_hint(const Hello& hello) const {
    for (const Slot& slot : m_slots) {
        if (slot.occupied && !slot.left && !hello.player_name.empty() &&
            slot.name == hello.player_name)
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
        const Slot& slot = m_slots[s - 1];
        if (slot.occupied && !slot.left) {
            reject(peer, RejectReason::kSlotTaken,
                   slot.away ? "slot " + std::to_string(s) + " belongs to '" + slot.name +
                                   "', whose connection dropped; only their framelock, with the "
                                   "rejoin token it was given, may take it back (within " +
                                   std::to_string(m_config.reconnect_grace_us / 1'000'000) +
                                   " s). Pick another slot or omit --slot"
                             : "slot " + std::to_string(s) + " is taken by '" + slot.name +
                                   "', who is playing; pick another or omit --slot");
            return;
        }
    }
    if (s == 0) {
        s = free_slot();
        if (s == 0) {
            reject(peer, RejectReason::kFull,
                   "the session is full (" + std::to_string(m_config.players) + "/" +
                       std::to_string(m_config.players) +
                       " players); watch as a spectator (--spectate)" + name_hint(hello));
            return;
        }
    }
    Slot& slot = m_slots[s - 1];
    const bool rejoin = slot.occupied && !slot.left;
    if (rejoin && slot.peer != peer) {
        // The old connection belongs to a process that is gone (or about to be).
        m_transport.disconnect(slot.peer);
        if (m_upload && m_upload->slot == s) m_upload.reset();  // asked again, of another
    }
    // The slot keeps its place on the timeline (inputs_end, pending): it is absent, so it
    // gets neutral input, until the joiner runs and its first input arrives.
    slot.occupied = true;
    slot.left = false;
    slot.away = false;
    slot.joining = true;
    m_absence_changed_at = m_clock.now_us();
    slot.awaiting_state = true;
    slot.peer = peer;
    slot.box_key = hello.box_key;
    if (!rejoin) slot.name = player_name(hello, s);
    const std::string& name = slot.name;
    slot.last_heard = m_clock.now_us();
    slot.last_update_sent = 0;
    slot.next_update_seq = 0;
    slot.update_frames.fill({0, 0});
    slot.update_echoed.fill(false);
    slot.up_lost_seen = slot.down_lost_seen = 0;
    slot.copy_at = -1;
    slot.up_loss = LossCounter{};
    slot.loss_seen_at = slot.loss_gap = -1;
    slot.last_client_seq_at = -1;
    slot.srtt = slot.rttvar = 0;
    slot.held = 0;
    slot.sender.reset();
    slot.hash_from = slot.hash_valid_from = 0;
    slot.any_hash = false;
    slot.clock = ClockCheck(m_config.clock_check);  // a new process, a new clock
    slot.clock_refusal_reported = slot.named_off_pace = false;
    welcome(slot, s, true);
    emit({ServerEvent::Type::kPlayerJoined, s, m_confirmed_end, 0, 0,
          name + (rejoin ? " rejoins" : " joins the running session") + " at frame " +
              std::to_string(m_confirmed_end)});
}

Micros Server::lobby_period(const Slot& slot) const {
    return slot.rtt.samples() < kStartRttSamples ? kLobbyMeasureUs : kLobbyHeartbeatUs;
}

Micros Server::srtt_worst() const {
    Micros worst = 0;
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_slots[s];
        if (slot.occupied && !slot.left && !slot.away) worst = std::max(worst, slot.rtt.srtt());
    }
    return worst;
}

Micros Server::safe_rtt_worst() const {
    // The handshake's few samples (kStartRttSamples): SRTT plus one deviation. RFC 6298 starts
    // the deviation at half the first sample, so after a handful it still covers jitter
    // generously; the usual four deviations would start a 80 ms session three frames above
    // its floor.
    Micros worst = 0;
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_slots[s];
        if (slot.occupied && !slot.left)
            worst = std::max(worst, slot.rtt.srtt() + slot.rtt.rttvar());
    }
    return worst;
}

void Server::maybe_start() {
    const Micros now = m_clock.now_us();
    int joined = 0;
    for (int s = 0; s < m_config.players; ++s) joined += m_slots[s].occupied ? 1 : 0;
    if (joined < m_config.start_players) {
        m_lobby_full_since = -1;
        return;
    }
    if (m_lobby_full_since < 0) m_lobby_full_since = now;
    // The start state's transfer overlaps the round-trip measurements below.
    if (!start_state_everywhere() || !moved_everywhere()) return;
    // Wait (briefly) until every client has measured its round trip: the first delay
    // should already fit the network.
    bool all_measured = true;
    for (int s = 0; s < m_config.players; ++s)
        all_measured &= !m_slots[s].occupied || m_slots[s].rtt.samples() >= kStartRttSamples;
    const Micros worst = safe_rtt_worst();
    if (!all_measured && now - m_lobby_full_since < m_config.max_lobby_rtt_wait_us) return;

    const int delay = m_delay.initial(worst);
    m_start.start_time_us = now + std::max(m_config.start_lead_us, 2 * worst);
    m_start.frame_time_ns = m_config.delay.frame_time.ns();
    m_start.delay = static_cast<std::uint8_t>(delay);
    m_start.players = static_cast<std::uint8_t>(m_config.players);
    // Keyframes inside the first, pre-confirmed frames keep the starting delay; they
    // still get entries, because a client runs a keyframe only once it holds its entry.
    m_schedule.clear();
    for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(std::max(delay, 1));
         k += m_config.keyframe_interval) {
        m_schedule.push_back({k, static_cast<std::uint8_t>(delay)});
    }
    m_keyframes = m_schedule.size();
    m_delay_history = {m_schedule.front()};
    // Frames before the first sampled input are neutral for everyone.
    m_confirmed_base = 0;
    m_confirmed.assign(static_cast<std::size_t>(delay), InputFrame{});
    m_confirmed_end = static_cast<std::uint32_t>(delay);
    // The evidence every player hashes from frame 0 on: sent before Start (same channel).
    if (m_config.common_start && m_start_state_refused) m_mask.kind = EvidenceKind::kMemory;
    for (int s = 0; s < m_config.players; ++s) {
        Slot& slot = m_slots[s];
        if (slot.occupied && slot.start_moved && m_start_state &&
            slot.start_moved->state_size == m_start_state->raw_size)
            widen_mask(m_mask, *slot.start_moved);
        slot.start_moved.reset();
    }
    if (m_mask.kind == EvidenceKind::kMemory || !m_mask.ranges.empty())
        announce_mask(0, m_start_state_refused ? "the core cannot save its state"
                                               : "loading the start state moved these bytes");
    for (int s = 0; s < m_config.players; ++s) {
        m_slots[s].inputs_end = m_confirmed_end;
        m_slots[s].pending.clear();
        m_slots[s].arrivals.clear();
        m_slots[s].report_from = m_confirmed_end;
        if (m_slots[s].occupied)
            m_transport.send(m_slots[s].peer, Channel::kControl, encode(m_start));
    }
    for (const Slot& spectator : m_spectators)
        m_transport.send(spectator.peer, Channel::kControl, encode(m_start));
    m_started = true;
    char why[160];
    std::snprintf(why, sizeof why,
                  "session started: the slowest round trip measured %.1f ms (SRTT + RTTVAR)",
                  worst / 1000.0);
    emit({ServerEvent::Type::kStarted, 0, 0, delay, 0, why});
}

void Server::handle_input(Slot& slot, const ClientInput& input) {
    const Micros now = m_clock.now_us();
    ++slot.datagrams;
    const bool newest = slot.up_loss.record(input.seq);
    if (slot.up_loss.lost() > slot.up_lost_seen) note_loss(slot, now);
    slot.up_lost_seen = slot.up_loss.lost();
    if (newest) {
        slot.last_client_seq = input.seq;
        slot.last_client_seq_at = now;
        note_echo(slot, input);
    }
    if (!m_started) return;
    // An input round trip includes the wait for every player's input: while a player is
    // going away (its silence, before the slot turns neutral) or away with the session
    // paused, that wait is the absence, not the network, and must not raise the delay.
    // Nor does what an away player reports as it comes back: after a network outage its
    // first datagram carries the round trip of a frame confirmed before the outage and
    // heard of only after it (activate() below starts the settling time for the others).
    bool absence = m_absence_changed_at >= 0 && now - m_absence_changed_at < kAbsenceSettleUs;
    absence |= slot.away;
    if (m_config.pause_on_drop) {
        for (int s = 0; s < m_config.players; ++s) absence |= m_slots[s].away;
    }
    const Frame acked = expand_frame(input.confirmed_ack, Frame(m_confirmed_end));
    const std::uint32_t ack_end = acked.value() + 1;
    if (newest && !slot.spectator) {
        int number = 0;
        member(slot.peer, number);
        if (input.latency_100us && !absence && number)
            note_round_trip_report(slot, number, input, ack_end);
        if (Frame(ack_end) <= Frame(m_confirmed_end) && Frame(ack_end) > Frame(slot.report_from))
            slot.report_from = ack_end;
    }
    if (Frame(ack_end) <= Frame(m_confirmed_end) && Frame(ack_end) > Frame(slot.client_ack_end)) {
        slot.client_ack_end = ack_end;
    }
    const std::uint32_t first = expand_frame(input.first_frame, Frame(slot.inputs_end)).value();
    if ((slot.joining || slot.away) && !slot.spectator && !slot.awaiting_state &&
        !input.inputs.empty()) {
        int number = 0;
        member(slot.peer, number);
        // activate() fills the gap up to `first` with neutral input: never further than an
        // input may run ahead, or the frames between would all be confirmed at once.
        if (Frame(first) - Frame(m_confirmed_end) >
            static_cast<std::int32_t>(m_config.max_frames_ahead)) {
            ++slot.malformed;
            emit({ServerEvent::Type::kMalformed, number, first, 0, 0,
                  "input too far ahead of the session dropped"});
            return;
        }
        activate(slot, number, first);
    }
    for (std::size_t i = 0; i < input.inputs.size(); ++i) {
        const Frame frame = Frame(first) + static_cast<std::int32_t>(i);
        if (m_config.mode == SessionMode::kNoWait && frame < Frame(slot.inputs_end)) {
            // Late (its frame went out without it): the newest such pad applies from the
            // next frame confirmed without this player's input.
            if (!slot.any_input || frame > Frame(slot.newest_input)) {
                slot.held = input.inputs[i];
                slot.newest_input = frame.value();
                slot.any_input = true;
            }
            continue;
        }
        if (frame < Frame(slot.inputs_end)) continue;  // already held
        if (frame > Frame(slot.inputs_end)) break;     // a gap: the next datagram repeats it
        if (frame - Frame(m_confirmed_end) > static_cast<std::int32_t>(m_config.max_frames_ahead)) {
            ++slot.malformed;
            emit({ServerEvent::Type::kMalformed, slot_of(slot.peer), frame.value(), 0, 0,
                  "input too far ahead of the session dropped"});
            break;
        }
        slot.pending.push_back(input.inputs[i]);
        const bool stalled = input.late_ms >= kStalledMs;
        slot.arrivals.push_back({frame.value(), now, stalled});
        if (!stalled) {
            // How long after its scheduled sampling this input arrived: the client's uplink
            // (plus its clock's offset error, which its downlink reports carry the other way).
            const Micros up = now - sample_time(frame.value());
            while (!slot.up_min.empty() && slot.up_min.back().second >= up) slot.up_min.pop_back();
            slot.up_min.emplace_back(now, up);
            while (slot.up_min.front().first < now - kCheckWindowUs) slot.up_min.pop_front();
        }
        ++slot.inputs_end;
        ++m_inputs_seen;
        slot.newest_input = frame.value();
        slot.any_input = true;
    }
}

bool Server::ended() const {
    if (!m_started) return false;
    for (int s = 0; s < m_config.players; ++s) {
        if (m_slots[s].occupied && !m_slots[s].left) return false;
    }
    return true;
}

bool Server::absent(const Slot& slot) const {
    if (!slot.occupied || slot.left || slot.joining) return true;
    return slot.away && !m_config.pause_on_drop;
}

bool Server::active(const Slot& slot) const {
    return slot.occupied && !slot.left && !slot.away && !slot.joining && !slot.awaiting_state &&
           !slot.spectator;
}

void Server::confirm_frames() {
    const Micros now = m_clock.now_us();
    // With nobody left playing there is nothing to confirm (and no end to neutral frames).
    if (ended()) return;
    // Likewise with every player absent at once (all away, or away and joining): nobody's
    // input bounds the loop below, which would confirm neutral frames until memory runs
    // out. Confirmation resumes when a player is back (activate() fills its gap).
    bool anyone_playing = false;
    for (int s = 0; s < m_config.players; ++s) anyone_playing |= !absent(m_slots[s]);
    if (!anyone_playing) return;
    for (;;) {
        const std::uint32_t g = m_confirmed_end;
        // Absent slots (never joined, gone, away, joining) get neutral input without
        // anyone waiting for them.
        for (int s = 0; s < m_config.players; ++s) {
            Slot& slot = m_slots[s];
            if (absent(slot) && Frame(slot.inputs_end) <= Frame(g)) {
                slot.pending.push_back(0);
                slot.inputs_end = g + 1;
            }
        }
        int missing = 0, missing_count = 0;
        for (int s = 0; s < m_config.players; ++s) {
            const Slot& slot = m_slots[s];
            if (Frame(slot.inputs_end) <= Frame(g)) {
                missing = s + 1;
                ++missing_count;
            }
        }
        if (missing && m_config.mode == SessionMode::kNoWait) {
            // Nobody waits for anybody: at the deadline the missing players' held pads go in,
            // and what they send for this frame later counts as late.
            if (now < no_wait_deadline(g)) return;
            for (int s = 0; s < m_config.players; ++s) {
                Slot& slot = m_slots[s];
                if (Frame(slot.inputs_end) <= Frame(g)) {
                    slot.pending.push_back(slot.away ? InputWord{0} : slot.held);
                    slot.inputs_end = g + 1;
                }
            }
            missing = 0;
        }
        if (missing) {
            // One player alone holding everyone back for the timeout is dropped, even if it
            // still talks: the others play on. (An away player, with pause_on_drop, has its
            // grace period instead.)
            if (m_blocked_since < 0) m_blocked_since = now;
            if (missing_count == 1 && !m_slots[missing - 1].away &&
                now - m_blocked_since > m_config.client_timeout_us) {
                char why[96];
                std::snprintf(why, sizeof why, "no input for frame %u for %.1f s", g,
                              (now - m_blocked_since) / 1e6);
                m_blocked_since = -1;
                drop(missing, ByeReason::kTimeout, why);  // confirms what it can
            }
            return;
        }
        m_blocked_since = -1;
        // The delay that holds from a keyframe is fixed before the keyframe is confirmed:
        // a client may run frame g only with its confirmation, which carries the decision.
        if (g % m_config.keyframe_interval == 0 && !m_schedule.empty() &&
            m_schedule.back().frame != g) {
            const int current = m_schedule.back().delay;
            m_delay.observe_srtt(srtt_worst());
            if (const int floor = estimate_path_floor(); floor > 0) m_path_floor = floor;
            const int delay = m_delay.decide(now, current, m_delay.target(now));
            m_schedule.push_back({g, static_cast<std::uint8_t>(delay)});
            ++m_keyframes;
            if (delay != current) {
                m_delay_history.push_back(m_schedule.back());
                emit({ServerEvent::Type::kDelayChanged, 0, g, delay, 0, {}});
            }
        }
        InputFrame frame;
        Confirmation info{now - sample_time(g), false};
        for (int s = 0; s < m_config.players; ++s) {
            Slot& slot = m_slots[s];
            frame.pads[s] = slot.pending.front();
            if (!slot.away) slot.held = frame.pads[s];
            slot.pending.pop_front();
            while (!slot.arrivals.empty() && Frame(slot.arrivals.front().frame) <= Frame(g)) {
                info.stalled |= slot.arrivals.front().frame == g && slot.arrivals.front().stalled;
                slot.arrivals.pop_front();
            }
        }
        m_confirmed.push_back(frame);
        if (m_info.empty()) m_info_base = g;
        m_info.push_back(info);
        if (m_info.size() > kInfoFrames) {
            m_info.pop_front();
            ++m_info_base;
        }
        ++m_confirmed_end;
    }
}

void Server::activate(Slot& slot, int slot_number, std::uint32_t first_frame) {
    // Its own inputs start at first_frame: frames before it (not yet confirmed) stay
    // neutral, and what it sent for frames already confirmed is dropped.
    while (Frame(slot.inputs_end) < Frame(first_frame)) {
        slot.pending.push_back(0);
        ++slot.inputs_end;
    }
    const bool was_away = slot.away;
    slot.joining = false;
    slot.away = false;
    m_absence_changed_at = m_clock.now_us();
    emit({ServerEvent::Type::kPlayerBack, slot_number, slot.inputs_end, 0, 0,
          slot.name + (was_away ? " is back" : " plays") + " from frame " +
              std::to_string(slot.inputs_end)});
}

void Server::go_away(int slot_number, const std::string& why) {
    Slot& slot = m_slots[slot_number - 1];
    if (!slot.occupied || slot.left || slot.away) return;
    slot.away = true;
    slot.away_since = m_clock.now_us();
    m_absence_changed_at = slot.away_since;
    slot.held = 0;
    slot.sender.reset();
    const std::string grace = std::to_string(m_config.reconnect_grace_us / 1'000'000);
    emit({ServerEvent::Type::kPlayerAway, slot_number, slot.inputs_end, 0, 0,
          slot.name + " is away (" + why + "); " +
              (m_config.pause_on_drop ? "the session waits" : "neutral input meanwhile") +
              ", rejoin possible for " + grace + " s"});
    const PlayerLeft left{static_cast<std::uint8_t>(slot_number), slot.inputs_end,
                          slot.name + ": " + why + " (may rejoin for " + grace + " s)"};
    for (int s = 0; s < m_config.players; ++s) {
        if (s != slot_number - 1 && active(m_slots[s]))
            m_transport.send(m_slots[s].peer, Channel::kControl, encode(left));
    }
    if (m_upload && m_upload->slot == slot_number) m_upload.reset();
    confirm_frames();
}

void Server::send_update(Slot& slot) {
    const Micros now = m_clock.now_us();
    ServerUpdate update;
    update.seq = slot.next_update_seq++;
    update.server_time = static_cast<std::uint32_t>(now);
    update.echo_seq = slot.last_client_seq;
    update.echo_hold_10us = slot.last_client_seq_at < 0
                                ? kEchoHoldUnknown
                                : static_cast<std::uint16_t>(std::clamp<Micros>(
                                      (now - slot.last_client_seq_at) / 10, 0, kEchoHoldUnknown));
    update.input_ack = static_cast<std::uint16_t>(slot.inputs_end - 1);
    update.players = static_cast<std::uint8_t>(m_config.players);
    update.copies = redundant(slot) ? 2 : 1;
    update.path_floor = static_cast<std::uint8_t>(path_floor());
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& other = m_slots[s];
        if (other.occupied && !other.left && !other.away && !other.awaiting_state)
            update.present |= static_cast<std::uint8_t>(1u << s);
    }
    std::pair<std::uint32_t, std::uint32_t> carried{0, 0};  // confirmed frames [first, end)
    if (m_started && !slot.awaiting_state) {
        // Frames and decisions the client may not hold yet, oldest first.
        const std::uint32_t from = std::max(slot.client_ack_end, m_confirmed_base);
        for (const auto& entry : m_schedule) {
            if (Frame(entry.frame) >= Frame(from) && update.schedule.size() < kMaxScheduleEntries) {
                update.schedule.push_back(entry);
            }
        }
        update.first_frame = static_cast<std::uint16_t>(from);
        for (std::uint32_t f = from;
             Frame(f) < Frame(m_confirmed_end) && update.frames.size() < kMaxFramesPerMessage;
             ++f) {
            update.frames.push_back(m_confirmed[f - m_confirmed_base]);
        }
        carried = {from, from + static_cast<std::uint32_t>(update.frames.size())};
        if (m_config.mode == SessionMode::kRollback &&
            Frame(from) + static_cast<std::int32_t>(update.frames.size()) ==
                Frame(m_confirmed_end)) {
            // Everyone's inputs beyond confirmation, so predictions are corrected early.
            update.tails.resize(static_cast<std::size_t>(m_config.players));
            for (int s = 0; s < m_config.players; ++s) {
                const Slot& other = m_slots[s];
                if (absent(other)) continue;
                const std::size_t n = std::min(other.pending.size(), kMaxFramesPerMessage);
                update.tails[s].assign(other.pending.begin(),
                                       other.pending.begin() + static_cast<std::ptrdiff_t>(n));
            }
        }
    }
    std::vector<std::uint8_t> bytes = encode(update);
    m_transport.send(slot.peer, Channel::kInput, bytes);
    slot.update_sent_at[update.seq] = now;
    slot.update_frames[update.seq] = carried;
    slot.update_echoed[update.seq] = false;
    slot.last_update_sent = now;
    // On a lossy link the same datagram goes again a moment later, unless a newer one
    // replaces it first: a lost update then costs a couple of milliseconds, not a frame.
    if (update.copies > 1) {
        slot.copy = std::move(bytes);
        slot.copy_at = now + kCopySpacingUs;
    } else {
        slot.copy_at = -1;
    }
}

int Server::estimate_path_floor() const {
    const Micros now = m_clock.now_us();
    Micros worst = 0;
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_slots[s];
        if (!active(slot)) continue;
        // The window's maximum is its front, once the expired ones are skipped.
        for (const auto& [at, rtt] : slot.rtt_max) {
            if (at >= now - kCheckWindowUs) {
                worst = std::max(worst, rtt);
                break;
            }
        }
    }
    if (worst <= 0 || !frame_time().known()) return 0;
    return static_cast<int>(std::clamp<std::int64_t>(frame_time().frames_covering(worst), 1, 255));
}

void Server::note_loss(Slot& slot, Micros now) {
    if (slot.loss_seen_at >= 0 && now - slot.loss_seen_at >= kLossEventUs)
        slot.loss_gap = now - slot.loss_seen_at;  // a new event
    slot.loss_seen_at = now;
}

bool Server::redundant(const Slot& slot) const {
    const bool lossy = slot.loss_gap >= 0 && slot.loss_gap < kLossyGapUs;
    const Micros memory = lossy ? kLossyMemoryUs : kLossMemoryUs;
    return slot.loss_seen_at >= 0 && m_clock.now_us() - slot.loss_seen_at < memory;
}

Micros Server::sample_time(std::uint32_t frame) const {
    // The input for `frame` was sampled at the first frame s whose sample reaches it:
    // s + delay(s) >= frame (a rising delay gives one sample to several frames, a falling
    // one skips some). Only the newest decisions can hold it (delays are at most 60 frames).
    std::uint32_t s = frame;
    for (std::size_t i = m_schedule.size(); i-- > 0;) {
        const ScheduleEntry& entry = m_schedule[i];
        const std::uint32_t end = i + 1 < m_schedule.size() ? m_schedule[i + 1].frame : frame + 1;
        const Frame candidate = std::max(Frame(entry.frame), Frame(frame) - entry.delay);
        if (candidate < Frame(end)) s = candidate.value();
        if (Frame(end) + 64 < Frame(frame)) break;
    }
    return m_start.start_time_us + frame_time().span_us(s);
}

void Server::note_echo(Slot& slot, const ClientInput& input) {
    if (input.echo_hold_10us == kEchoHoldUnknown) return;
    slot.update_echoed[input.echo_seq] = true;
    // A state on its way fills the link: echoes queued behind it measure the transfer, not
    // the path the first delay must cover.
    if (!m_started && (slot.sender || (m_upload && &m_slots[m_upload->slot - 1] == &slot))) return;
    const Micros sent = slot.update_sent_at[input.echo_seq];
    const Micros now = m_clock.now_us();
    const Micros rtt = now - sent - static_cast<Micros>(input.echo_hold_10us) * 10;
    if (sent <= 0 || rtt < 0 || rtt > 10'000'000) return;
    slot.rtt.add_sample(rtt);
    while (!slot.rtt_max.empty() && slot.rtt_max.back().second <= rtt) slot.rtt_max.pop_back();
    slot.rtt_max.emplace_back(now, rtt);
    while (slot.rtt_max.front().first < now - kCheckWindowUs) slot.rtt_max.pop_front();
}

Micros Server::resend_gap(const Slot& slot, std::uint32_t frame) {
    // The updates carrying a frame are consecutive (each carries everything the client has
    // not acknowledged): walking back from the newest, the last two seen are the first two.
    // The client echoes the newest update it holds with each datagram, so an honest client
    // that got the first one almost always echoed it; one that hides its echoes gains at
    // most an update's interval.
    int first = -1, second = -1;  // how far back
    bool past_first = false;
    for (int back = 1; back <= kResendLookback && !past_first; ++back) {
        const auto seq = static_cast<std::uint8_t>(slot.next_update_seq - back);
        const auto& [begin, end] = slot.update_frames[seq];
        const bool carried = Frame(begin) <= Frame(frame) && Frame(frame) < Frame(end);
        if (carried) {
            second = first;
            first = back;
        } else {
            past_first = first >= 0;
        }
    }
    if (!past_first || second < 0) return 0;  // no second update, or the first out of reach
    const auto first_seq = static_cast<std::uint8_t>(slot.next_update_seq - first);
    const auto second_seq = static_cast<std::uint8_t>(slot.next_update_seq - second);
    if (slot.update_echoed[first_seq]) return 0;
    return slot.update_sent_at[second_seq] - slot.update_sent_at[first_seq];
}

void Server::note_round_trip_report(Slot& slot, int slot_number, const ClientInput& input,
                                    std::uint32_t ack_end) {
    // The report covers the frames this client received since its previous datagram. The
    // server checks it against what it measured itself: how late after their sampling those
    // frames were confirmed, plus the client's downlink, which cannot exceed the client's
    // round trip less its fastest uplink (offset errors of the client's clock cancel).
    const Micros now = m_clock.now_us();
    const Micros reported = static_cast<Micros>(input.latency_100us) * 100;
    while (!slot.rtt_max.empty() && slot.rtt_max.front().first < now - kCheckWindowUs)
        slot.rtt_max.pop_front();
    while (!slot.up_min.empty() && slot.up_min.front().first < now - kCheckWindowUs)
        slot.up_min.pop_front();
    if (slot.rtt_max.empty() || slot.up_min.empty()) return;  // nothing to check it against
    const std::uint32_t from = slot.report_from;
    if (!(Frame(from) < Frame(ack_end)) || Frame(from) < Frame(m_info_base) ||
        Frame(ack_end) > Frame(m_info_base) + static_cast<std::int32_t>(m_info.size()))
        return;
    // A frame whose first update was lost (both copies) reached the client with the next
    // update that carried it: that wait is the network's too (a stall the delay must see),
    // and the server knows its length.
    Micros confirmed_late = 0;
    for (std::uint32_t f = from; Frame(f) < Frame(ack_end); ++f) {
        const Confirmation& info = m_info[f - m_info_base];
        if (info.stalled) {
            ++slot.reports_hiccup;
            return;
        }
        confirmed_late = std::max(confirmed_late, info.lateness + resend_gap(slot, f));
    }
    const Micros bound =
        confirmed_late + slot.rtt_max.front().second - slot.up_min.front().second + kCheckSlackUs;
    if (reported > bound) {
        ++slot.reports_inflated;
        return;
    }
    ++slot.reports_used;
    m_delay.add_round_trip(now, slot_number, reported);
}

void Server::handle_hash(int slot_number, const HashReport& report) {
    if (!m_started || Frame(report.frame) >= Frame(m_confirmed_end) + 1)
        return;  // not a frame anyone ran
    Slot& slot = m_slots[slot_number - 1];
    if (!slot.any_hash || Frame(report.frame) > Frame(slot.last_hash_frame)) {
        slot.last_hash_frame = report.frame;
        slot.any_hash = true;
    }
    // A report under another mask than the one in force at its frame compares nothing (a
    // player hashed before the new mask reached it).
    if (report.generation != mask_generation_at(report.frame)) {
        ++slot.reports_other_mask;
        return;
    }
    // Reports of the state a resync replaces (sent before it was loaded) compare nothing.
    if (slot.resync_pending || Frame(report.frame) < Frame(slot.hash_valid_from) ||
        Frame(report.frame) < Frame(slot.hash_from))
        return;
    m_hashes[report.frame][slot_number - 1] = report.hash;
    check_hashes();
}

void Server::check_hashes() {
    while (!m_hashes.empty()) {
        auto it = m_hashes.begin();
        const std::uint32_t frame = it->first;
        const auto& hashes = it->second;
        bool complete = true;
        for (int s = 0; s < m_config.players; ++s) {
            const Slot& slot = m_slots[s];
            const bool expected = active(slot) && !slot.resync_pending &&
                                  Frame(frame) >= Frame(slot.hash_from) &&
                                  Frame(frame) >= Frame(slot.hash_valid_from);
            if (expected && hashes[s] == 0) complete = false;
        }
        // Wait for missing reports, but not forever: a report two intervals and two seconds
        // late is skipped (with a hash every frame, a far player's reports come frames later).
        const auto two_seconds = static_cast<std::uint32_t>(
            frame_time().known() ? frame_time().frames_in(2'000'000) : 120);
        if (!complete && (m_hashes.size() < 3 || Frame(m_confirmed_end) - Frame(frame) <
                                                     static_cast<std::int32_t>(two_seconds)))
            return;
        // The reference: the majority, or on a tie the host (the lowest slot reporting).
        std::map<std::uint64_t, int> votes;
        int host = 0;
        for (int s = 0; s < m_config.players; ++s) {
            if (!hashes[s]) continue;
            ++votes[hashes[s]];
            if (!host) host = s + 1;
        }
        std::uint64_t reference = host ? hashes[host - 1] : 0;
        int best = host ? votes[reference] : 0;
        for (const auto& [hash, count] : votes) {
            if (count > best) {
                best = count;
                reference = hash;
            }
        }
        std::uint8_t differing = 0;
        int reference_slot = 0;
        for (int s = 0; s < m_config.players; ++s) {
            if (!hashes[s]) continue;
            if (hashes[s] != reference) {
                differing |= static_cast<std::uint8_t>(1u << s);
            } else if (!reference_slot) {
                reference_slot = s + 1;
            }
        }
        if (differing && !m_in_desync) {
            Desync desync;
            desync.frame = frame;
            desync.differing_slots = differing;
            desync.hashes.assign(hashes.begin(), hashes.begin() + m_config.players);
            for (int s = 0; s < m_config.players; ++s) {
                if (m_slots[s].occupied && !m_slots[s].left) {
                    m_transport.send(m_slots[s].peer, Channel::kControl, encode(desync));
                }
            }
            std::string who;
            for (int s = 0; s < m_config.players; ++s) {
                if (differing & (1u << s)) who += (who.empty() ? "" : ", ") + std::to_string(s + 1);
            }
            emit({ServerEvent::Type::kDesync, 0, frame, 0, differing,
                  "desync at frame " + std::to_string(frame) + ": slot(s) " + who +
                      " differ from " + (best > 1 ? "the majority" : "the host") +
                      " (reference: slot " + std::to_string(reference_slot) + ")"});
        }
        if (differing && !m_repair && m_config.repair_desyncs &&
            m_config.mode != SessionMode::kRollback && reference_slot) {
            start_repair(frame, differing, reference_slot);
        }
        m_in_desync = differing != 0;
        if (complete && !differing) ++m_hash_frames_matched;
        m_hashes.erase(it);
    }
}

void Server::start_repair(std::uint32_t desync_frame, std::uint8_t slots, int reference) {
    // The first snapshot at or after the divergence: the divergent players still hold
    // their own state of that frame, to name the memory that differs.
    const std::uint32_t si = m_snapshot_interval;
    const std::uint32_t snap = (desync_frame + si - 1) / si * si;
    Repair repair;
    repair.desync_frame = desync_frame;
    repair.state_frame = snap + 1;  // the state after `snap`: the next frame to run
    repair.slots = slots;
    repair.reference = reference;
    m_repair = repair;
    request_state(repair.state_frame, reference);
}

void Server::handle_disconnect(PeerId peer, const std::string& reason) {
    if (const int s = slot_of(peer)) {
        if (m_started && m_config.reconnect_grace_us > 0 && !m_slots[s - 1].awaiting_state) {
            go_away(s, reason);
        } else {
            drop(s, ByeReason::kQuit, reason);
        }
        return;
    }
    for (std::size_t i = 0; i < m_spectators.size(); ++i) {
        if (m_spectators[i].peer != peer) continue;
        emit({ServerEvent::Type::kSpectatorLeft, 0, m_confirmed_end, 0, 0,
              m_spectators[i].name + " (spectator): " + reason});
        m_spectators.erase(m_spectators.begin() + static_cast<std::ptrdiff_t>(i));
        return;
    }
}

void Server::drop(int slot_number, ByeReason reason, const std::string& message) {
    Slot& slot = m_slots[slot_number - 1];
    if (!slot.occupied || slot.left) return;
    if (reason != ByeReason::kQuit)
        m_transport.send(slot.peer, Channel::kControl, encode(Bye{reason, message}));
    m_transport.flush();
    m_transport.disconnect(slot.peer);
    emit({ServerEvent::Type::kPlayerLeft, slot_number, slot.inputs_end, 0, 0,
          slot.name + " left: " + message});
    if (!m_started) {
        slot = Slot{};
        if (m_upload && m_upload->slot == slot_number) m_upload.reset();  // asked again
        return;
    }
    slot.left = true;
    m_absence_changed_at = m_clock.now_us();
    slot.away = slot.joining = slot.awaiting_state = false;
    slot.sender.reset();
    if (m_upload && m_upload->slot == slot_number) m_upload.reset();
    slot.left_from = slot.inputs_end;
    const PlayerLeft left{static_cast<std::uint8_t>(slot_number), slot.left_from,
                          slot.name + ": " + message};
    for (int s = 0; s < m_config.players; ++s) {
        if (m_slots[s].occupied && !m_slots[s].left)
            m_transport.send(m_slots[s].peer, Channel::kControl, encode(left));
    }
    // The last player present quit: players still away have nobody to come back to.
    bool present = false;
    for (int s = 0; s < m_config.players; ++s)
        present |= m_slots[s].occupied && !m_slots[s].left && !m_slots[s].away;
    if (!present && reason == ByeReason::kQuit) {
        for (int s = 1; s <= m_config.players; ++s) {
            if (m_slots[s - 1].occupied && !m_slots[s - 1].left)
                drop(s, ByeReason::kServerShutdown, "every other player left");
        }
    }
    confirm_frames();  // the others may have been waiting only for this player
}

std::uint8_t Server::delay_in_force(std::uint32_t frame) const {
    std::uint8_t delay = m_schedule.empty() ? 0 : m_schedule.front().delay;
    for (const auto& entry : m_schedule) {
        if (Frame(entry.frame) > Frame(frame)) break;
        delay = entry.delay;
    }
    return delay;
}

void Server::request_state(std::uint32_t frame, int prefer_slot) {
    // Ask one playing slot: the preferred one, else the lowest (the host) that did not just
    // fail, else any.
    int reference = prefer_slot && active(m_slots[prefer_slot - 1]) ? prefer_slot : 0;
    for (int pass = 0; pass < 2 && !reference; ++pass) {
        for (int s = 1; s <= m_config.players && !reference; ++s) {
            if (active(m_slots[s - 1]) && (pass == 1 || s != m_bad_reference)) reference = s;
        }
    }
    if (!reference) return;  // nobody to ask: asked again on the next update
    Upload upload;
    upload.slot = reference;
    upload.id = m_next_transfer_id++;
    upload.frame = frame;
    upload.asked_at = m_clock.now_us();
    m_upload = upload;
    m_upload_rx.reset();
    m_transport.send(m_slots[reference - 1].peer, Channel::kControl,
                     encode(StateRequest{upload.id, frame}));
}

void Server::handle_bulk(Slot& slot, int slot_number, std::span<const std::uint8_t> bytes) {
    const auto refuse = [&](const std::string& why) {
        emit({ServerEvent::Type::kRefused, slot_number, m_upload ? m_upload->frame : 0, 0, 0,
              "state upload from " + slot.name + " refused: " + why});
        m_upload.reset();
        m_upload_rx.reset();
        m_bad_reference = slot_number;
    };
    switch (*peek_id(bytes)) {
        case MsgId::kStateAck: {
            auto ack = decode_state_ack(bytes);
            if (!ack) return refuse("malformed StateAck");
            if (slot.sender) slot.sender->on_ack(*ack);
            return;
        }
        case MsgId::kStateHeader: {
            auto header = decode_state_header(bytes);
            const bool expected = m_upload && slot_number == m_upload->slot && header &&
                                  header->transfer_id == m_upload->id &&
                                  header->purpose == StatePurpose::kUpload;
            if (!expected) {
                ++slot.malformed;
                emit({ServerEvent::Type::kRefused, slot_number, 0, 0, 0,
                      "unrequested state from " + slot.name + " dropped"});
                return;
            }
            if (!header->available && !m_started) {
                // The core cannot save its state: no common start.
                m_upload.reset();
                m_start_state_refused = true;
                emit({ServerEvent::Type::kRefused, slot_number, 0, 0, 0,
                      "no common start state: " + slot.name +
                          "'s core cannot save its state, so every player starts from its "
                          "own power-on state (a core that keeps a clock or leftover memory "
                          "in its state may then report desyncs that are not)"});
                return;
            }
            if (!header->available) {
                // It no longer holds that frame: ask for the next snapshot instead.
                m_upload.reset();
                const std::uint32_t si = m_snapshot_interval;
                request_state((m_confirmed_end + si - 1) / si * si + 1, slot_number);
                return;
            }
            if (auto ok = m_upload_rx.begin(*header); !ok) return refuse(ok.error().message);
            m_upload->frame = header->frame;
            return;
        }
        case MsgId::kStateChunk: {
            auto chunk = decode_state_chunk(bytes);
            if (!m_upload || slot_number != m_upload->slot || !m_upload_rx.active()) {
                ++slot.malformed;
                return;
            }
            if (!chunk) return refuse("malformed StateChunk");
            auto ack = m_upload_rx.add(*chunk);
            if (!ack) return refuse(ack.error().message);
            m_upload->asked_at = m_clock.now_us();  // the timeout is for a stalled upload
            m_transport.send(slot.peer, Channel::kBulk, encode(ack.value()));
            if (!m_upload_rx.complete()) return;
            // Checked here, once, before anyone else receives it: bounded inflate + CRC.
            auto raw = m_upload_rx.finish();
            if (!raw) return refuse(raw.error().message);
            PackedState packed = m_upload_rx.packed();
            m_upload.reset();
            m_upload_rx.reset();
            m_bad_reference = 0;
            if (!m_started) {
                // The start state: to every other member (its source loaded it already).
                emit({ServerEvent::Type::kStateSent, slot_number, 0, 0, 0,
                      "start state from " + slot.name + " (" + std::to_string(packed.raw_size) +
                          " bytes, " + std::to_string(packed.compressed->size()) +
                          " compressed) to every player"});
                m_start_state = std::move(packed);
                slot.start_loaded = true;  // it loaded the bytes it sent
                for (int s = 0; s < m_config.players; ++s) offer_start_state(m_slots[s]);
                for (Slot& spectator : m_spectators) offer_start_state(spectator);
                return;
            }
            packed.delay = delay_in_force(packed.frame);
            m_cached = std::move(packed);
            serve_states();
            return;
        }
        default:
            return;
    }
}

bool Server::expire_upload(const char* what) {
    if (!m_upload || m_clock.now_us() - m_upload->asked_at <= m_config.state_request_timeout_us)
        return false;
    emit({ServerEvent::Type::kRefused, m_upload->slot, m_upload->frame, 0, 0,
          std::string("no ") + what + " from " + m_slots[m_upload->slot - 1].name + " within " +
              std::to_string(m_config.state_request_timeout_us / 1000) + " ms; asking again"});
    m_bad_reference = m_upload->slot;
    m_upload.reset();
    m_upload_rx.reset();
    return true;
}

void Server::serve_states() {
    expire_upload("state");
    const std::uint32_t si = m_snapshot_interval;
    // A cached state serves joiners while the inputs since its frame are still held and it
    // is recent (a joiner fast-forwards from it).
    const bool cache_usable =
        m_cached && Frame(m_cached->frame) >= Frame(m_confirmed_base) &&
        Frame(m_confirmed_end) - Frame(m_cached->frame) <= static_cast<std::int32_t>(4 * si + 1);
    bool need_join_state = false;
    const auto serve = [&](Slot& member, int number) {
        if (!member.awaiting_state) return;
        if (!cache_usable) {
            need_join_state = true;
            return;
        }
        member.awaiting_state = false;
        member.client_ack_end = m_cached->frame;
        member.hash_from = m_cached->frame;
        member.moved_due.emplace(m_cached->frame, m_cached->raw_size);
        member.sender.emplace(m_next_transfer_id++, StatePurpose::kJoin, *m_cached);
        emit({ServerEvent::Type::kStateSent, number, m_cached->frame, 0, 0,
              "state of frame " + std::to_string(m_cached->frame) + " (" +
                  std::to_string(m_cached->raw_size) + " bytes, " +
                  std::to_string(m_cached->compressed->size()) + " compressed) to " + member.name});
    };
    for (int s = 1; s <= m_config.players; ++s) serve(m_slots[s - 1], s);
    for (Slot& spectator : m_spectators) serve(spectator, 0);
    if (m_repair && !m_repair->sent && m_cached &&
        Frame(m_cached->frame) >= Frame(m_repair->state_frame)) {
        for (int s = 1; s <= m_config.players; ++s) {
            Slot& slot = m_slots[s - 1];
            if (!(m_repair->slots & (1u << (s - 1))) || !active(slot)) continue;
            slot.moved_due.emplace(m_cached->frame, m_cached->raw_size);
            slot.sender.emplace(m_next_transfer_id++, StatePurpose::kResync, *m_cached);
            // Its hashes compare again once it reports having loaded the state.
            slot.resync_pending = true;
            emit({ServerEvent::Type::kStateSent, s, m_cached->frame, 0, 0,
                  "reference state of frame " + std::to_string(m_cached->frame) + " from slot " +
                      std::to_string(m_repair->reference) + " to " + slot.name +
                      " (desync at frame " + std::to_string(m_repair->desync_frame) + ")"});
        }
        m_repair->sent = true;
    }
    if (m_repair && m_repair->sent) {
        // Done when every target has loaded it (or is gone).
        bool pending = false;
        for (int s = 1; s <= m_config.players; ++s) {
            Slot& slot = m_slots[s - 1];
            if (!active(slot)) slot.resync_pending = false;
            pending |= slot.resync_pending;
        }
        if (!pending) m_repair.reset();
    }
    if (m_upload) return;
    if (m_repair && !m_repair->sent) {
        request_state(m_repair->state_frame, m_repair->reference);
    } else if (need_join_state) {
        // The newest snapshot the host has surely taken: the one at or before its newest
        // hash report; without one yet, the next snapshot ahead.
        int reference = 0;
        for (int s = 1; s <= m_config.players && !reference; ++s) {
            if (active(m_slots[s - 1]) && s != m_bad_reference) reference = s;
        }
        std::uint32_t frame = (m_confirmed_end + si - 1) / si * si + 1;
        if (reference && m_slots[reference - 1].any_hash) {
            const std::uint32_t h = m_slots[reference - 1].last_hash_frame;
            frame = h - h % si + 1;
        }
        request_state(frame, reference);
    }
}

void Server::handle_moved(int slot_number, const MovedBytes& moved) {
    Slot& slot = m_slots[slot_number - 1];
    if (!m_started) {
        // A report of the start state's load each, the latest counting (the host's may come
        // before its upload is complete, and another player's state may replace a refused
        // upload); checked against the start state and taken in at the start.
        if (moved.frame != 0) {
            ++slot.malformed;
            return;
        }
        slot.moved_reported = true;
        slot.start_moved = moved;
        return;
    }
    // Later only for the state this player was sent (join, resync), once, at its size.
    if (!slot.moved_due || slot.moved_due->first != moved.frame ||
        slot.moved_due->second != moved.state_size) {
        ++slot.malformed;
        return;
    }
    slot.moved_due.reset();
    if (!widen_mask(m_mask, moved)) return;
    // Frames the others may run before the new mask reaches them are compared under the old
    // one; this player's reports from then on only count under the new one.
    const std::uint32_t from = m_confirmed_end + kMaskLeadFrames;
    if (Frame(slot.hash_valid_from) < Frame(from)) slot.hash_valid_from = from;
    announce_mask(from, slot.name + "'s load of the state of frame " + std::to_string(moved.frame) +
                            " moved these bytes");
}

void Server::announce_mask(std::uint32_t from_frame, const std::string& why) {
    ++m_mask.generation;
    m_mask.from_frame = from_frame;
    m_mask_history.push_back(m_mask);
    while (m_mask_history.size() > kMaskHistory) {
        m_mask_trimmed = m_mask_history.front().generation;
        m_mask_history.pop_front();
    }
    const auto message = encode(m_mask);
    for (int s = 0; s < m_config.players; ++s) {
        if (m_slots[s].occupied && !m_slots[s].left)
            m_transport.send(m_slots[s].peer, Channel::kControl, message);
    }
    // Spectators report nothing, but their hash logs compare with the players'.
    for (const Slot& spectator : m_spectators)
        m_transport.send(spectator.peer, Channel::kControl, message);
    emit({ServerEvent::Type::kEvidence, 0, from_frame, 0, 0,
          m_mask.kind == EvidenceKind::kMemory
              ? "desyncs are found by comparing the memory the core exposes from frame " +
                    std::to_string(from_frame) + " on (" + why + ")"
              : "desyncs are found by comparing the state without " +
                    describe_ranges(m_mask.ranges) + " from frame " + std::to_string(from_frame) +
                    " on: " + why +
                    " (a value the core takes when a state is loaded, not game "
                    "state)"});
}

std::uint16_t Server::mask_generation_at(std::uint32_t frame) const {
    // Before the oldest generation kept: the one trimmed last (0: none was).
    std::uint16_t generation = m_mask_trimmed;
    for (const EvidenceMask& mask : m_mask_history) {
        if (Frame(frame) >= Frame(mask.from_frame)) generation = mask.generation;
    }
    return generation;
}

bool Server::moved_everywhere() const {
    // Only loads of the common start state are probed before the start.
    if (!m_config.common_start || m_start_state_refused) return true;
    for (int s = 0; s < m_config.players; ++s) {
        if (m_slots[s].occupied && !m_slots[s].moved_reported) return false;
    }
    return true;
}

void Server::prepare_start_state() {
    if (!m_config.common_start || m_start_state || m_start_state_refused) return;
    if (m_upload && !expire_upload("start state")) return;
    request_state(0, 0);  // the first player in (the host), at once
}

void Server::offer_start_state(Slot& member) {
    if (m_started || !m_start_state || !member.occupied || member.left || member.start_loaded ||
        member.sender)
        return;
    member.sender.emplace(m_next_transfer_id++, StatePurpose::kStart, *m_start_state);
}

bool Server::start_state_everywhere() const {
    if (!m_config.common_start || m_start_state_refused) return true;
    if (!m_start_state) return false;
    for (int s = 0; s < m_config.players; ++s) {
        if (m_slots[s].occupied && !m_slots[s].start_loaded) return false;
    }
    for (const Slot& spectator : m_spectators) {
        if (!spectator.start_loaded) return false;
    }
    return true;
}

void Server::pump_senders() {
    const auto pump = [&](Slot& member) {
        if (!member.sender) return;
        for (const auto& message : member.sender->take_messages())
            m_transport.send(member.peer, Channel::kBulk, message);
        if (!member.sender->done()) return;
        // A client loads a state the moment its last chunk arrives, before it acknowledges.
        if (member.sender->purpose() == StatePurpose::kStart) member.start_loaded = true;
        member.sender.reset();
    };
    for (int s = 0; s < m_config.players; ++s) pump(m_slots[s]);
    for (Slot& spectator : m_spectators) pump(spectator);
}

void Server::trim_history() {
    // Confirmed inputs are kept while a member may still need them (it has not acknowledged
    // them), and for history_frames in any case (joiners and resyncs start in the past).
    std::uint32_t keep_from = m_confirmed_end - std::min(m_confirmed_end, m_config.history_frames);
    const auto hold = [&](const Slot& member) {
        if (member.occupied && !member.left && !member.awaiting_state &&
            Frame(member.client_ack_end) < Frame(keep_from) &&
            Frame(m_confirmed_end) - Frame(member.client_ack_end) <
                static_cast<std::int32_t>(4 * m_config.history_frames))
            keep_from = member.client_ack_end;
    };
    for (int s = 0; s < m_config.players; ++s) hold(m_slots[s]);
    for (const Slot& spectator : m_spectators) hold(spectator);
    if (m_cached && Frame(m_cached->frame) < Frame(keep_from) &&
        Frame(m_confirmed_end) - Frame(m_cached->frame) <
            static_cast<std::int32_t>(4 * m_snapshot_interval + 1))
        keep_from = m_cached->frame;
    while (Frame(m_confirmed_base) < Frame(keep_from) && !m_confirmed.empty()) {
        m_confirmed.pop_front();
        ++m_confirmed_base;
    }
    // Updates send decisions from the oldest frame kept on, and states carry the delay in
    // force at a kept frame: the entry in force at m_confirmed_base is the oldest needed.
    while (m_schedule.size() > 1 && Frame(m_schedule[1].frame) <= Frame(m_confirmed_base))
        m_schedule.pop_front();
}

std::vector<SlotStats> Server::slot_stats() const {
    std::vector<SlotStats> out;
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_slots[s];
        if (!slot.occupied) continue;
        SlotStats st;
        st.slot = s + 1;
        st.name = slot.name;
        st.connected = !slot.left;
        st.srtt = slot.srtt;
        st.rttvar = slot.rttvar;
        st.safe_rtt = slot.srtt + 4 * slot.rttvar;
        st.frames_run = slot.frames_run;
        st.stall_frames = slot.stall_frames;
        st.datagrams_received = slot.datagrams;
        st.datagrams_lost_up = slot.up_loss.lost();
        st.malformed = slot.malformed;
        st.traffic = m_transport.stats(slot.peer);
        st.server_srtt = slot.rtt.srtt();
        st.server_rttvar = slot.rtt.rttvar();
        st.reports_used = slot.reports_used;
        st.reports_inflated = slot.reports_inflated;
        st.reports_hiccup = slot.reports_hiccup;
        st.redundant = redundant(slot);
        st.clock_rate_error = slot.clock.rate_error();
        st.clock_refused = slot.clock.refused();
        st.off_pace = slot.clock.off_pace();
        out.push_back(st);
    }
    return out;
}

const InputFrame* Server::confirmed_input(std::uint32_t frame) const {
    if (Frame(frame) < Frame(m_confirmed_base) || Frame(frame) >= Frame(m_confirmed_end))
        return nullptr;
    return &m_confirmed[frame - m_confirmed_base];
}

}  // namespace framelock::netplay
