// The frame-lock server's loop (server.h): construction, update() and its wake-ups, the
// dispatch of each message to its concern, a slot's life (set_life, the silence deadlines),
// and the statistics. The concerns are files of their own: admission (admission.cpp),
// confirmation (input_book.cpp), the delay's measurements (delay_measurements.cpp), hash votes and
// repair (hash_votes.cpp), state transfers (state_transfers.cpp).
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

Server::Server(Transport& transport, const Clock& clock, ServerConfig config)
    : m_transport(transport),
      m_clock(clock),
      m_config(normalized(config, m_config_adjusted)),
      m_measure(m_config, m_events),
      m_roster(m_config),
      m_votes(m_transport, m_config, m_events),
      m_transfers(m_transport, m_clock, m_config, m_events),
      m_book(m_config) {
    // A setting outside its range (session_limits.h) is said, never changed in silence.
    for (std::string& what : m_config_adjusted)
        emit({ServerEvent::Type::kConfigAdjusted, 0, 0, 0, 0, std::move(what)});
    m_config_adjusted.clear();
    // Derived once here, so that a join costs the server a hash, not a derivation.
    m_salt = random_array<kSaltBytes>();
    if (!m_config.password.empty())
        m_player_key = derive_password_key(m_config.password, m_salt, m_config.password_kdf);
    if (!m_config.spectator_password.empty())
        m_spectator_key =
            derive_password_key(m_config.spectator_password, m_salt, m_config.password_kdf);
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
        Slot& slot = m_roster.player(s);
        if (!slot.in_session()) continue;
        const Roster::SilenceDeadline deadline = m_roster.silence_deadline(slot);
        if (now <= deadline.at) continue;
        char why[96];
        switch (deadline.then) {
            case Roster::SilenceDeadline::Then::kDrop:
                std::snprintf(why, sizeof why, "no data for %.1f s", (now - slot.last_heard) / 1e6);
                drop(s, ByeReason::kTimeout, why);
                break;
            case Roster::SilenceDeadline::Then::kGoAway:
                std::snprintf(why, sizeof why, "no data for %.1f s", (now - slot.last_heard) / 1e6);
                go_away(s, why);
                break;
            case Roster::SilenceDeadline::Then::kGraceOver:
                std::snprintf(why, sizeof why, "did not come back within %.0f s",
                              m_config.reconnect_grace_us / 1e6);
                drop(s, ByeReason::kTimeout, why);
                break;
            case Roster::SilenceDeadline::Then::kDropJoining:
                drop(s, ByeReason::kTimeout, "silent while joining");
                break;
        }
    }
    for (std::size_t i = 0; i < m_roster.spectators().size();) {
        if (now - m_roster.spectators()[i].last_heard > m_config.client_timeout_us) {
            m_transport.send(m_roster.spectators()[i].peer, Channel::kControl,
                             encode(Bye{ByeReason::kTimeout, "no data from you"}));
            m_transport.disconnect(m_roster.spectators()[i].peer);
            emit({ServerEvent::Type::kSpectatorLeft, 0, m_book.confirmed_end(), 0, 0,
                  m_roster.spectators()[i].name + " (spectator) timed out"});
            m_roster.spectators().erase(m_roster.spectators().begin() +
                                        static_cast<std::ptrdiff_t>(i));
        } else {
            ++i;
        }
    }
    if (!m_roster.started()) {
        m_transfers.prepare_start_state(m_roster.players());
        m_transfers.pump(m_roster.players(), m_roster.spectators());
        maybe_start();
        for (int s = 0; s < m_config.players; ++s) {
            Slot& slot = m_roster.player(s + 1);
            if (slot.taken() &&
                now - slot.link.last_update_sent() >= m_measure.lobby_period(slot.link))
                send_update(slot);
        }
        for (Slot& spectator : m_roster.spectators()) {
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
    for (int s = 0; s < m_config.players; ++s) {
        Slot& slot = m_roster.player(s + 1);
        if (!slot.in_session()) continue;
        if (const std::vector<std::uint8_t>* copy = m_measure.due_copy(slot.link, now))
            m_transport.send(slot.peer, Channel::kInput, *copy);
    }
    const Micros quiet_period = kQuietUpdateFrames * m_config.delay.frame_time.us();
    const bool news = m_book.news();
    for (int s = 0; s < m_config.players; ++s) {
        Slot& slot = m_roster.player(s + 1);
        if (!slot.in_session()) continue;
        if (news || now - slot.link.last_update_sent() >= quiet_period) send_update(slot);
    }
    for (Slot& spectator : m_roster.spectators()) {
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
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_roster.player(s + 1);
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
    for (const Slot& spectator : m_roster.spectators()) {
        const Micros period = m_roster.started()
                                  ? kQuietUpdateFrames * m_config.delay.frame_time.us()
                                  : kLobbyHeartbeatUs;
        wake = std::min({wake, spectator.link.last_update_sent() + period,
                         spectator.last_heard + m_config.client_timeout_us + 1});
    }
    if (const std::optional<Micros> expiry = m_transfers.upload_expiry())
        wake = std::min(wake, *expiry);
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

std::optional<ServerEvent> Server::poll_event() {
    return m_events.poll();
}

void Server::handle_message(PeerId peer, Channel channel, std::span<const std::uint8_t> bytes) {
    int s = 0;
    Slot* who = m_roster.member(peer, s);
    const auto id = peek_id(bytes);
    const auto malformed = [&](const std::string& what) {
        if (who) ++who->malformed;
        if (m_events.room()) emit({ServerEvent::Type::kMalformed, s, 0, 0, 0, what});
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
            switch (m_transfers.handle_bulk(slot, s, bytes, m_roster.started(),
                                            m_book.confirmed_end(), m_schedule, m_roster.players(),
                                            m_roster.spectators())) {
                case StateTransfers::Bulk::kTaken:
                    break;
                case StateTransfers::Bulk::kMalformed:
                    ++slot.malformed;
                    break;
                case StateTransfers::Bulk::kCached:
                    serve_states();
                    break;
            }
            return;
        case MsgId::kResyncReport: {
            auto report = decode_resync_report(bytes);
            if (!report || !s) return malformed("malformed ResyncReport dropped");
            slot.last_heard = now;
            m_transfers.resynced(slot.transfer);
            m_votes.resumed(slot.votes, report->resumed_frame);
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
                emit({ServerEvent::Type::kSpectatorLeft, 0, m_book.confirmed_end(), 0, 0,
                      slot.name + " (spectator) left: " + why});
                std::erase_if(m_roster.spectators(), [&](const Slot& x) { return x.peer == peer; });
            }
            return;
        }
        default:
            break;
    }
    malformed("unexpected message id dropped");
}

std::vector<SlotStats> Server::slot_stats() const {
    std::vector<SlotStats> out;
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_roster.player(s + 1);
        if (!slot.taken()) continue;
        SlotStats st;
        st.slot = s + 1;
        st.name = slot.name;
        st.connected = slot.life() != SlotLife::kLeft;
        m_measure.fill(slot.link, st, m_clock.now_us());
        st.malformed = slot.malformed;
        st.traffic = m_transport.stats(slot.peer);
        out.push_back(st);
    }
    return out;
}

void Server::check_hashes() {
    while (const std::optional<HashVotes::Verdict> verdict =
               m_votes.settle(m_roster.players(), m_book.confirmed_end(), frame_time())) {
        if (verdict->repair && !m_transfers.repairing())
            m_transfers.start_repair(verdict->frame, verdict->differing, verdict->reference,
                                     m_roster.players());
    }
}

void Server::serve_states() {
    const Micros now = m_clock.now_us();
    for (const StateTransfers::Served& served :
         m_transfers.serve(m_roster.players(), m_roster.spectators(), m_book.confirmed_base(),
                           m_book.confirmed_end())) {
        Slot& member = *served.member;
        if (served.purpose == StatePurpose::kJoin) {
            m_roster.set_life(member, member.spectator ? SlotLife::kWatching : SlotLife::kJoining,
                              now);
            m_book.restart_at(member.inputs, served.frame);
            m_votes.count_from(member.votes, served.frame);
        }
        m_votes.owe_moved(member.votes, served.frame, served.size);
    }
}

const InputFrame* Server::confirmed_input(std::uint32_t frame) const {
    return m_book.confirmed_input(frame);
}

void Server::handle_input(Slot& slot, int slot_number, const ClientInput& input) {
    const Micros now = m_clock.now_us();
    const bool newest = m_measure.note_datagram(
        slot.link, input, now, !m_roster.started() && m_transfers.busy(slot.transfer, slot_number));
    if (!m_roster.started()) return;
    const std::uint32_t ack_end = m_book.ack_end(input);
    if (newest && !slot.spectator) {
        if (input.latency_100us && slot_number && !m_roster.unsettled(slot, now))
            m_measure.note_report(slot.link, slot_number, input, ack_end, m_book.confirmations(),
                                  now);
        m_measure.note_acked(slot.link, ack_end, m_book.confirmed_end());
    }
    m_book.note_ack(slot.inputs, ack_end);
    const std::uint32_t first = m_book.first_frame(slot.inputs, input);
    if ((slot.life() == SlotLife::kJoining || slot.away()) && !slot.spectator &&
        !input.inputs.empty()) {
        // activate() fills the gap up to `first` with neutral input: never further than an
        // input may run ahead, or the frames between would all be confirmed at once.
        if (m_book.too_far(first)) {
            ++slot.malformed;
            emit({ServerEvent::Type::kMalformed, slot_number, first, 0, 0,
                  "input too far ahead of the session dropped"});
            return;
        }
        activate(slot, slot_number, first);
    }
    const bool stalled = DelayMeasurements::stalled(input);
    const InputBook::Filed filed = m_book.file(slot.inputs, input, first, now, stalled);
    if (!stalled) m_measure.note_uplink(slot.link, filed.from, filed.end, m_schedule, now);
    if (filed.too_far) {
        ++slot.malformed;
        emit({ServerEvent::Type::kMalformed, slot_number, *filed.too_far, 0, 0,
              "input too far ahead of the session dropped"});
    }
}

void Server::confirm_frames() {
    // With nobody left playing there is nothing to confirm (and no end to neutral frames).
    if (m_roster.ended()) return;
    const Micros now = m_clock.now_us();
    const std::uint8_t absent = m_roster.absent_mask();
    for (;;) {
        const InputBook::Step step = m_book.confirm(m_roster.players(), absent, m_schedule, now);
        switch (step.kind) {
            case InputBook::Step::Kind::kKeyframe:
                decide_delay(step.frame, now);
                continue;
            case InputBook::Step::Kind::kStuck:
                drop(step.slot, ByeReason::kTimeout, step.why);  // confirms what it can
                return;
            case InputBook::Step::Kind::kWaiting:
                return;
        }
    }
}

void Server::decide_delay(std::uint32_t keyframe, Micros now) {
    const int delay = m_measure.decide(now, m_schedule.current_delay(), m_roster.players(),
                                       m_schedule.frame_time());
    if (m_schedule.decide(keyframe, delay))
        emit({ServerEvent::Type::kDelayChanged, 0, keyframe, delay, 0, {}});
}

void Server::send_update(Slot& slot) {
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
