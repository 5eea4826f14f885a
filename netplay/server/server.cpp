// The Server (server.h): construction, update() and its wake-ups, the routing of each message
// to the part it concerns, and a member's life across the parts (joining, the start, going
// away, coming back, leaving).
#include "netplay/server/server.h"

#include <algorithm>
#include <cstdio>

#include "netplay/base/safe_text.h"
#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

using namespace server_tuning;

Server::Server(Transport& transport, const Clock& clock, ServerConfig config)
    : m_transport(transport),
      m_clock(clock),
      m_config(normalized(config, m_config_adjusted)),
      m_roster(m_config),
      m_admission(m_transport, m_config, m_events),
      m_book(m_config),
      m_measure(m_config, m_events),
      m_votes(m_transport, m_config, m_events),
      m_transfers(m_transport, m_clock, m_config, m_events),
      m_guard(m_config),
      m_chat(m_transport, m_config, m_events) {
    m_votes.keep_votes_every(m_transfers.snapshot_interval());
    // A setting outside its range (session_limits.h) is said, never changed in silence.
    for (std::string& what : m_config_adjusted)
        emit({ServerEvent::Type::kConfigAdjusted, 0, 0, 0, 0, std::move(what)});
    m_config_adjusted.clear();
}

void Server::update() {
    const Micros now = m_clock.now_us();
    while (auto event = m_transport.poll()) {
        switch (event->type) {
            case TransportEvent::Type::kConnected:
                // Every connection is challenged first: its Hello answers this nonce.
                m_admission.challenge(event->peer, now);
                break;
            case TransportEvent::Type::kDisconnected:
                m_admission.forget(event->peer);
                handle_disconnect(event->peer, "connection lost");
                break;
            case TransportEvent::Type::kMessage:
                handle_message(event->peer, event->channel, event->data);
                break;
        }
    }
    m_admission.expire(now);
    for (int s = 1; s <= m_config.players; ++s) {
        if (const auto silence = m_roster.silent(m_roster.player(s), now)) {
            if (silence->go_away)
                go_away(s, silence->why);
            else
                drop(s, ByeReason::kTimeout, silence->why);
        }
    }
    for (const auto& [peer, name] : m_roster.remove_silent_spectators(now)) {
        m_transport.send(peer, Channel::kControl,
                         encode(Bye{ByeReason::kTimeout, "no data from you"}));
        m_transport.disconnect(peer);
        emit({ServerEvent::Type::kSpectatorLeft, 0, m_book.confirmed_end(), 0, 0,
              name + " (spectator) timed out"});
    }
    if (!m_roster.started()) {
        m_transfers.prepare_start_state(m_roster.players());
        m_transfers.pump(m_roster.players(), m_roster.spectators());
        maybe_start();
        for (ServerSlot& slot : m_roster.players()) {
            if (slot.taken() &&
                now - slot.link.last_update_sent() >= m_measure.lobby_period(slot.link))
                send_update(slot);
        }
        for (ServerSlot& spectator : m_roster.spectators()) {
            if (now - spectator.link.last_update_sent() >= kLobbyHeartbeatUs)
                send_update(spectator);
        }
        // Out now, not at the next datagram: the lobby's round trips set the first delay (a
        // heartbeat left waiting in the queue read as 60 ms more of network).
        m_transport.flush();
        return;
    }
    confirm_frames();
    serve_states();
    for (ServerSlot& slot : m_roster.players()) {
        if (!slot.in_session()) continue;
        if (const std::vector<std::uint8_t>* copy = m_measure.due_copy(slot.link, now))
            m_transport.send(slot.peer, Channel::kInput, *copy);
    }
    const Micros quiet_period = kQuietUpdateFrames * m_config.delay.frame_time.us();
    const bool news = m_book.news();
    for (ServerSlot& slot : m_roster.players()) {
        if (!slot.in_session()) continue;
        if (news || now - slot.link.last_update_sent() >= quiet_period) send_update(slot);
    }
    for (ServerSlot& spectator : m_roster.spectators()) {
        if (news || now - spectator.link.last_update_sent() >= quiet_period) send_update(spectator);
    }
    m_transfers.pump(m_roster.players(), m_roster.spectators());
    trim_history();
    m_book.updates_sent();
    m_transport.flush();
}

Micros Server::next_wakeup() const {
    // Timed work: each player's next update (every frame while running, every 100 ms in
    // the lobby) and timeouts; incoming messages wake the caller through the transport.
    const Micros now = m_clock.now_us();
    Micros wake = now + kLobbyHeartbeatUs;
    for (const ServerSlot& slot : m_roster.players()) {
        if (!slot.in_session()) continue;
        const Micros period = m_roster.started()
                                  ? kQuietUpdateFrames * m_config.delay.frame_time.us()
                                  : m_measure.lobby_period(slot.link);
        if (slot.link.copy_at() >= 0) wake = std::min(wake, slot.link.copy_at());
        wake = std::min(wake, slot.link.last_update_sent() + period);
        // The one deadline update() holds this slot to now (a deadline already passed and
        // still included would make the caller spin, e.g. an away player's old silence).
        wake = std::min(wake, m_roster.silence_deadline(slot).at + 1);
    }
    for (const ServerSlot& spectator : m_roster.spectators()) {
        const Micros period = m_roster.started()
                                  ? kQuietUpdateFrames * m_config.delay.frame_time.us()
                                  : kLobbyHeartbeatUs;
        wake = std::min({wake, spectator.link.last_update_sent() + period,
                         spectator.last_heard + m_config.client_timeout_us + 1});
    }
    if (const std::optional<Micros> expiry = m_transfers.upload_expiry())
        wake = std::min(wake, *expiry);
    if (const auto hello = m_admission.next_expiry()) wake = std::min(wake, *hello);
    // Passed without a drop (the missing player is away, or several are missing): what can
    // change that arrives as a message or is one of the deadlines above.
    if (const Micros blocked = m_book.blocked_since();
        blocked >= 0 && blocked + m_config.client_timeout_us + 1 > now)
        wake = std::min(wake, blocked + m_config.client_timeout_us + 1);
    if (m_roster.started() && m_config.mode == SessionMode::kNoWait && !m_roster.ended())
        wake = std::min(
            wake, m_schedule.no_wait_deadline(m_book.confirmed_end(), m_config.delay.fixed_delay));
    return std::max(wake, now);
}

void Server::handle_message(PeerId peer, Channel channel, std::span<const std::uint8_t> bytes) {
    int s = 0;
    ServerSlot* who = m_roster.member(peer, s);
    const auto id = peek_id(bytes);
    const auto malformed = [&](const std::string& what) {
        if (who) ++who->malformed;
        if (m_events.room()) emit({ServerEvent::Type::kMalformed, s, 0, 0, 0, what});
    };
    if (!id) return malformed(describe_unknown(bytes) + " dropped");
    if (*id == MsgId::kHello) {
        if (who) return;  // a repeated Hello changes nothing
        auto hello = decode_hello(bytes);
        if (!hello) {
            m_admission.reject(peer, RejectReason::kBadHello,
                               "malformed Hello (not a framelock client?)");
            return;
        }
        Admission::make_text_safe(*hello);
        handle_hello(peer, *hello);
        return;
    }
    if (!who) {
        malformed("message from a peer without a slot dropped");
        return;
    }
    ServerSlot& slot = *who;
    // Only well-formed messages count as signs of life: a peer sending garbage times out
    // like a silent one.
    const Micros now = m_clock.now_us();
    const auto heard = [&](auto decoded, const char* name) {
        if (decoded)
            slot.last_heard = now;
        else
            malformed(std::string("malformed ") + name + " dropped");
        return decoded;
    };
    switch (*id) {
        case MsgId::kClientInput: {
            if (channel != Channel::kInput) break;
            auto input = heard(decode_client_input(bytes), "ClientInput");
            if (!input) return;
            if (slot.spectator && !input->inputs.empty()) {
                // Acknowledgements and clock echoes are welcome; pads are not.
                if (!slot.refused_input && m_events.room()) {
                    emit({ServerEvent::Type::kRefused, 0, m_book.confirmed_end(), 0, 0,
                          "spectator '" + slot.name + "' sent input for " +
                              std::to_string(input->inputs.size()) +
                              " frame(s): spectators cannot play; ignored"});
                }
                slot.refused_input = true;
                ++slot.malformed;
                input->inputs.clear();
            }
            handle_input(slot, s, *input);
            return;
        }
        case MsgId::kHashReport:
            if (auto report = heard(decode_hash_report(bytes), "HashReport"); report && s) {
                if (m_votes.file(slot, s, *report, m_roster.started(), m_book.confirmed_end()))
                    check_hashes();
            }
            return;
        case MsgId::kMovedBytes:
            if (auto moved = heard(decode_moved_bytes(bytes), "MovedBytes"); moved && s) {
                if (!m_votes.handle_moved(slot, *moved, m_roster.started(), m_book.confirmed_end(),
                                          m_roster.players(), m_roster.spectators()))
                    ++slot.malformed;
            }
            return;
        case MsgId::kClientStats: {
            auto stats = heard(decode_client_stats(bytes), "ClientStats");
            if (!stats) return;
            const bool transfer_on_link =
                m_transfers.busy(slot.transfer, s) || slot.awaiting_state();
            if (const std::optional<std::string> kick =
                    m_measure.note_stats(slot.link, s, slot.name, *stats, now, transfer_on_link,
                                         m_roster.started(), m_book.confirmed_end()))
                drop(s, ByeReason::kRejected, *kick);
            return;
        }
        case MsgId::kStateHeader:
        case MsgId::kStateChunk:
        case MsgId::kStateAck:
            if (channel != Channel::kBulk) break;
            slot.last_heard = now;
            if (const StateTransfers::Bulk bulk = m_transfers.handle_bulk(
                    slot, s, bytes, m_roster.started(), m_book.confirmed_end(), m_schedule,
                    m_roster.players(), m_roster.spectators());
                bulk == StateTransfers::Bulk::kMalformed)
                ++slot.malformed;
            else if (bulk == StateTransfers::Bulk::kCached)
                serve_states();
            return;
        case MsgId::kSavestateVouch:
            if (auto vouch = heard(decode_savestate_vouch(bytes), "SavestateVouch"); vouch && s)
                leave_hybrid(m_guard.vouch(s, slot, *vouch));
            return;
        case MsgId::kFrameLockFrom: {
            auto from = heard(decode_frame_lock_from(bytes), "FrameLockFrom");
            if (from && (!s || !m_votes.frame_lock_from(slot.votes, from->frame))) ++slot.malformed;
            return;
        }
        case MsgId::kResyncReport: {
            auto report = decode_resync_report(bytes);
            if (!report || !s) return malformed("malformed ResyncReport dropped");
            report->regions = safe_text(report->regions);
            slot.last_heard = now;
            m_transfers.resynced(slot.transfer);
            m_votes.resynced(slot, s, *report);
            return;
        }
        case MsgId::kChatSay:
            if (auto say = heard(decode_chat_say(bytes), "ChatSay"))
                m_chat.say(slot, s, *say, now, m_book.confirmed_end(), m_roster.players(),
                           m_roster.spectators());
            return;
        case MsgId::kBye: {
            auto bye = decode_bye(bytes);
            // Relayed to every player: safe text, and short.
            const std::string why =
                bye && !bye->message.empty() ? safe_text(bye->message, kMaxReasonBytes) : "left";
            if (s) {
                drop(s, ByeReason::kQuit, why);
            } else {
                m_transport.disconnect(peer);
                emit({ServerEvent::Type::kSpectatorLeft, 0, m_book.confirmed_end(), 0, 0,
                      *m_roster.remove_spectator(peer) + " (spectator) left: " + why});
            }
            return;
        }
        default:
            break;
    }
    malformed("unexpected message id dropped");
}

void Server::handle_hello(PeerId peer, const Hello& hello) {
    const Micros now = m_clock.now_us();
    const Admission::Admit admit = m_admission.admit(peer, hello, m_roster, now);
    if (admit.as == Admission::Admit::As::kRefused) return;
    if (admit.as == Admission::Admit::As::kSpectator) return add_spectator(peer, admit.name);
    if (m_roster.started()) return join_running(peer, hello, admit);
    ServerSlot& slot = m_roster.player(admit.slot);
    if (admit.proven) {
        // Its own slot, from a new process: the old connection is gone (or about to be).
        m_transport.disconnect(slot.peer);
        m_transfers.forget_upload_from(admit.slot);  // asked again
    }
    if (admit.first) {
        m_config.delay.frame_time = FrameTime::from_fps_milli(hello.identity.fps_milli);
        m_measure.restart_controller(m_config.delay);
    }
    slot = ServerSlot{};
    m_guard.new_connection(admit.slot);
    m_roster.seat(slot, peer, admit.name, SlotLife::kPlaying, now);
    m_measure.new_link(slot.link);
    welcome(slot, admit.slot, false, hello.box_key);
    emit(
        {ServerEvent::Type::kPlayerJoined, admit.slot, 0, 0, 0,
         slot.name + (admit.proven ? " rejoined from a new process: " : " joined: ") + admit.game});
    m_transfers.offer_start_state(slot, m_roster.started());
}

void Server::join_running(PeerId peer, const Hello& hello, const Admission::Admit& admit) {
    const Micros now = m_clock.now_us();
    const int s = admit.slot;
    ServerSlot& slot = m_roster.player(s);
    const bool rejoin = slot.in_session();
    if (rejoin && slot.peer != peer) {
        // The old connection belongs to a process that is gone (or about to be).
        m_transport.disconnect(slot.peer);
        m_transfers.forget_upload_from(s);  // asked again, of another
    }
    // The slot keeps its place on the timeline (the inputs held): it is absent, so it gets
    // neutral input, until the joiner runs and its first input arrives.
    m_roster.seat(slot, peer, admit.name, SlotLife::kAwaitingState, now);
    m_measure.new_connection(slot.link);
    m_book.forget_held(slot.inputs);
    m_transfers.stop_sending(slot.transfer);
    m_votes.new_connection(slot.votes);
    m_guard.new_connection(s);
    welcome(slot, s, true, hello.box_key);
    emit({ServerEvent::Type::kPlayerJoined, s, m_book.confirmed_end(), 0, 0,
          slot.name + (rejoin ? " rejoins" : " joins the running session") + " at frame " +
              std::to_string(m_book.confirmed_end())});
}

void Server::add_spectator(PeerId peer, const std::string& name) {
    const bool started = m_roster.started();
    ServerSlot& member = m_roster.add_spectator(peer, name, m_clock.now_us());
    welcome(member, 0, started, {});
    emit({ServerEvent::Type::kSpectatorJoined, 0, m_book.confirmed_end(), 0, 0,
          member.name + " watches" + (started ? " (joining a running session)" : "")});
    if (!started) m_transfers.offer_start_state(member, started);
}

void Server::welcome(const ServerSlot& member, int slot_number, bool late,
                     const BoxPublicKey& box_key) {
    m_transport.send(
        member.peer, Channel::kControl,
        encode(m_admission.welcome(member, slot_number, late, box_key,
                                   m_transfers.snapshot_interval(), m_clock.now_us())));
    if (const auto keys = m_admission.take_seal_keys(member.peer))
        m_transport.seal(member.peer, *keys);
    if (!late) return;
    // Every mask kept, oldest first (a joiner's first frame may come before the newest), then
    // the session's start.
    for (const EvidenceMask& mask : m_votes.masks())
        m_transport.send(member.peer, Channel::kControl, encode(mask));
    m_transport.send(member.peer, Channel::kControl, encode(m_schedule.start()));
}

void Server::maybe_start() {
    const Micros now = m_clock.now_us();
    const std::optional<Micros> quorum_since = m_roster.quorum_since(now);
    if (!quorum_since) return;
    // The start state's transfer overlaps the round-trip measurements below.
    if (!m_transfers.start_state_everywhere(m_roster.players(), m_roster.spectators()) ||
        !m_votes.moved_everywhere(m_roster.players(), m_transfers.start_state_refused()))
        return;
    const HybridGuard::Wait vouches = m_guard.before_start(m_roster.players(), now, *quorum_since);
    leave_hybrid(vouches.leave);
    if (vouches.waiting) return;
    // Wait (briefly) until every client has measured its round trip: the first delay
    // should already fit the network.
    const bool all_measured = m_measure.measured(m_roster.players());
    const Micros worst = m_measure.safe_rtt_worst(m_roster.players());
    if (!all_measured && now - *quorum_since < m_config.max_lobby_rtt_wait_us) return;

    const int delay = m_measure.initial_delay(worst, m_roster.players(), m_config.delay.frame_time);
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
    for (const ServerSlot& slot : m_roster.players()) {
        if (slot.taken()) m_transport.send(slot.peer, Channel::kControl, encode(start));
    }
    for (const ServerSlot& spectator : m_roster.spectators())
        m_transport.send(spectator.peer, Channel::kControl, encode(start));
    m_roster.start();
    char why[160];
    std::snprintf(why, sizeof why,
                  "session started: the slowest round trip measured %.1f ms (SRTT + RTTVAR)",
                  worst / 1000.0);
    emit({ServerEvent::Type::kStarted, 0, 0, delay, 0, why});
}

void Server::activate(ServerSlot& slot, int slot_number, std::uint32_t first_frame) {
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
    ServerSlot& slot = m_roster.player(slot_number);
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
    for (const ServerSlot& other : m_roster.players()) {
        if (&other != &slot && other.active())
            m_transport.send(other.peer, Channel::kControl, encode(left));
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
    if (const std::optional<std::string> name = m_roster.remove_spectator(peer))
        emit({ServerEvent::Type::kSpectatorLeft, 0, m_book.confirmed_end(), 0, 0,
              *name + " (spectator): " + reason});
}

void Server::drop(int slot_number, ByeReason reason, const std::string& message) {
    ServerSlot& slot = m_roster.player(slot_number);
    if (!slot.in_session()) return;
    if (reason != ByeReason::kQuit)
        m_transport.send(slot.peer, Channel::kControl, encode(Bye{reason, message}));
    m_transport.flush();
    m_transport.disconnect(slot.peer);
    emit({ServerEvent::Type::kPlayerLeft, slot_number, slot.inputs.inputs_end(), 0, 0,
          slot.name + " left: " + message});
    if (!m_roster.started()) {
        slot = ServerSlot{};
        m_transfers.forget_upload_from(slot_number);  // asked again
        return;
    }
    m_roster.set_life(slot, SlotLife::kLeft, m_clock.now_us());
    m_transfers.stop_sending(slot.transfer);
    m_transfers.forget_upload_from(slot_number);
    m_book.leave(slot.inputs);
    const PlayerLeft left{static_cast<std::uint8_t>(slot_number), slot.inputs.left_from(),
                          slot.name + ": " + message};
    bool present = false;
    for (const ServerSlot& other : m_roster.players()) {
        if (other.in_session()) m_transport.send(other.peer, Channel::kControl, encode(left));
        present |= other.in_session() && !other.away();
    }
    // The last player present quit: players still away have nobody to come back to.
    if (!present && reason == ByeReason::kQuit) {
        for (int s = 1; s <= m_config.players; ++s) {
            if (m_roster.player(s).in_session())
                drop(s, ByeReason::kServerShutdown, "every other player left");
        }
    }
    confirm_frames();  // the others may have been waiting only for this player
}

std::vector<SlotStats> Server::slot_stats() const {
    return slot_stats_of(m_roster.players(), m_measure, m_transport, m_clock.now_us());
}

void Server::check_hashes() {
    while (const std::optional<HashVotes::Verdict> verdict =
               m_votes.settle(m_roster.players(), m_book.confirmed_end(), frame_time())) {
        if (verdict->differing) leave_hybrid(m_guard.desync(verdict->frame, verdict->differing));
        if (verdict->repair && !m_transfers.repairing())
            m_transfers.start_repair(verdict->frame, verdict->differing, verdict->holders,
                                     m_roster.players());
    }
}

void Server::leave_hybrid(const std::optional<HybridGuard::Leave>& leave) {
    if (!leave) return;
    m_measure.end_hybrid();
    m_votes.leave_prediction(leave->reason, leave->differing, m_book.confirmed_end(),
                             m_roster.players(), m_roster.spectators());
}

void Server::serve_states() {
    const Micros now = m_clock.now_us();
    for (const StateTransfers::Served& served :
         m_transfers.serve(m_roster.players(), m_roster.spectators(), m_book.confirmed_base(),
                           m_book.confirmed_end(), m_votes)) {
        ServerSlot& member = *served.member;
        if (served.purpose == StatePurpose::kJoin) {
            m_roster.set_life(member, member.spectator ? SlotLife::kWatching : SlotLife::kJoining,
                              now);
            m_book.restart_at(member.inputs, served.frame);
            m_votes.count_from(member.votes, served.frame);
        }
        m_votes.owe_moved(member.votes, served.frame, served.size);
    }
}

void Server::handle_input(ServerSlot& slot, int slot_number, const ClientInput& input) {
    const Micros now = m_clock.now_us();
    const bool started = m_roster.started();
    const std::uint32_t ack_end = m_book.ack_end(input);
    const bool newest = m_measure.note_datagram(
        slot.link, slot_number, slot.name, input, started ? std::optional(ack_end) : std::nullopt,
        now, !started && m_transfers.busy(slot.transfer, slot_number));
    if (!started) return;
    if (newest && !slot.spectator) {
        if (input.latency_100us && slot_number && !m_roster.unsettled(slot, now))
            m_measure.note_report(slot.link, slot_number, slot.name, input, ack_end,
                                  m_book.confirmations(), now);
        m_measure.note_acked(slot.link, ack_end, m_book.confirmed_end());
    }
    m_book.note_ack(slot.inputs, ack_end);
    const std::uint32_t first = m_book.first_frame(slot.inputs, input);
    if (const std::optional<std::string> kick =
            m_measure.note_pace(slot.link, slot_number, slot.name, input, first, m_schedule, now,
                                m_book.confirmed_end()))
        return drop(slot_number, ByeReason::kRejected, *kick);
    const auto too_far = [&](std::uint32_t frame) {
        ++slot.malformed;
        emit({ServerEvent::Type::kMalformed, slot_number, frame, 0, 0,
              "input too far ahead of the session dropped"});
    };
    if ((slot.life() == SlotLife::kJoining || slot.away()) && !slot.spectator &&
        !input.inputs.empty()) {
        // activate() fills the gap up to `first` with neutral input: never further than an
        // input may run ahead, or the frames between would all be confirmed at once.
        if (m_book.too_far(first)) return too_far(first);
        activate(slot, slot_number, first);
    }
    const bool stalled = m_measure.hiccup(slot.link, slot_number, slot.name, input, first,
                                          slot.inputs.inputs_end(), m_schedule, now);
    const InputBook::Filed filed = m_book.file(slot.inputs, input, first, now, stalled);
    if (!stalled) m_measure.note_uplink(slot.link, filed.from, filed.end, m_schedule, now);
    if (filed.too_far) too_far(*filed.too_far);
}

void Server::confirm_frames() {
    // With nobody left playing there is nothing to confirm (and no end to neutral frames).
    if (m_roster.ended()) return;
    const Micros now = m_clock.now_us();
    const std::uint8_t absent = m_roster.absent_mask();
    for (;;) {
        const InputBook::Step step = m_book.confirm(m_roster.players(), absent, m_schedule, now);
        if (step.kind == InputBook::Step::Kind::kKeyframe) {
            decide_delay(step.frame, now);
            continue;
        }
        if (step.kind == InputBook::Step::Kind::kStuck)
            drop(step.slot, ByeReason::kTimeout, step.why);  // confirms what it can
        return;
    }
}

void Server::decide_delay(std::uint32_t keyframe, Micros now) {
    const int delay = m_measure.decide(now, m_schedule.current_delay(), m_roster.players(),
                                       m_schedule.frame_time());
    if (m_schedule.decide(keyframe, delay))
        emit({ServerEvent::Type::kDelayChanged, 0, keyframe, delay, 0, {}});
}

void Server::send_update(ServerSlot& slot) {
    const Micros now = m_clock.now_us();
    ServerUpdate update;
    m_measure.stamp(slot.link, update, now);
    update.players = static_cast<std::uint8_t>(m_config.players);
    update.present = m_roster.present();
    const std::pair<std::uint32_t, std::uint32_t> carried = m_book.write(
        update, slot, m_roster.players(), m_roster.absent_mask(), m_schedule, m_roster.started());
    std::vector<std::uint8_t> bytes = encode(update);
    m_transport.send(slot.peer, Channel::kInput, bytes);
    m_measure.sent(slot.link, update, carried, std::move(bytes), now);
}

void Server::trim_history() {
    m_book.trim(m_roster.players(), m_roster.spectators(),
                m_transfers.state_to_keep(m_book.confirmed_end()));
    m_schedule.trim(m_book.confirmed_base());
}

}  // namespace framelock::netplay
