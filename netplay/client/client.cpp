#include "netplay/client/client.h"

#include <algorithm>

#include "netplay/base/safe_text.h"
#include "netplay/timing/prediction_budget.h"

namespace framelock::netplay {
namespace {
// A tick this much later than the frame-paced loop promises: the process stalled, and what
// arrived meanwhile waited on it, not on the network.
constexpr Micros kLateTickUs = 8'000;
}  // namespace

Client::Client(Transport& transport, const Clock& clock, Emulator& emulator, ClientConfig config)
    : m_clock(clock),
      m_emulator(emulator),
      m_config(std::move(config)),
      m_link(transport, clock),
      m_frames(m_config.stop_at_frame),
      m_transfer(emulator, m_config.snapshots_kept) {}

void Client::start() {
    m_state = State::kConnecting;
    if (Status connected = m_link.connect(m_config.server_address, m_clock.now_us()); !connected)
        end("cannot connect to " + m_config.server_address + ": " + connected.error().message);
}

void Client::end(const std::string& reason) {
    if (m_state == State::kEnded) return;
    m_state = State::kEnded;
    m_end_reason = reason;
    emit({ClientEvent::Type::kDisconnected, slot(), m_frames.next_frame(), 0, 0, reason});
}

void Client::leave(const std::string& reason) {
    if (m_state == State::kEnded || m_state == State::kIdle) return;
    m_link.close(reason);
    end("left: " + reason);
}

Status Client::say(const std::string& text) {
    if (m_state == State::kIdle || m_state == State::kConnecting || m_state == State::kEnded)
        return make_error(ErrorCode::kUsage, "not in a session: nothing was said");
    if (!m_welcome.chat)
        return make_error(ErrorCode::kUsage, "chat is off on this server (its --no-chat)");
    if (text.find_first_not_of(' ') == std::string::npos)
        return make_error(ErrorCode::kUsage, "nothing to say");
    m_link.send(Channel::kControl, encode(ChatSay{cut_text(text, kMaxChatBytes)}));
    return {};
}

std::optional<ClientEvent> Client::poll_event() {
    if (m_events.empty()) return std::nullopt;
    ClientEvent event = std::move(m_events.front());
    m_events.pop_front();
    return event;
}

std::optional<ChatLine> Client::poll_chat() {
    if (m_chat.empty()) return std::nullopt;
    ChatLine line = std::move(m_chat.front());
    m_chat.pop_front();
    return line;
}

int Client::delay_at(std::uint32_t frame) const {
    return m_frames.delay_at(frame);
}

const EvidenceMask& Client::evidence_mask_at(std::uint32_t frame) const {
    return m_evidence.mask_at(frame);
}

Micros Client::round_trip_quantile(double q) const {
    return m_pad.round_trip_quantile(q);
}

ClientStatsSnapshot Client::stats() const {
    ClientStatsSnapshot s;
    m_frames.fill(s);
    m_rollback.fill(s);
    s.correction_depth_p99 = m_corrections.depth_quantile(0.99);
    s.correction_time_p99_us = m_corrections.time_quantile(0.99);
    s.correction_time_max_us = m_corrections.longest_time();
    m_link.fill(s);
    s.delay = m_state == State::kRunning ? delay_at(m_frames.next_frame()) : 0;
    return s;
}

ClientTimeline Client::timeline() const {
    return ClientTimeline(m_start.start_time_us, frame_time(), m_link.clock_offset());
}

ClientTransfer::Position Client::transfer_position() const {
    ClientTransfer::Position position;
    switch (m_state) {
        case State::kConnecting:
            position.stage = ClientTransfer::Stage::kConnecting;
            break;
        case State::kLobby:
            position.stage = ClientTransfer::Stage::kLobby;
            break;
        case State::kJoining:
            position.stage = ClientTransfer::Stage::kJoining;
            break;
        case State::kRunning:
            position.stage = ClientTransfer::Stage::kRunning;
            break;
        case State::kIdle:
        case State::kEnded:
            position.stage = ClientTransfer::Stage::kOther;
            break;
    }
    position.next_frame = m_frames.next_frame();
    position.final_end = m_welcome.mode == SessionMode::kRollback ? m_rollback.verified_end()
                                                                  : m_frames.next_frame();
    return position;
}

bool Client::may_sample_next() const {
    return !spectator() && m_pad.within_lead(m_frames.confirmed_end()) &&
           m_frames.schedule_known_for(m_pad.next_sample_frame());
}

Micros Client::run_behind_us() const {
    // A spectator plays a few frames behind: a late confirmation then costs it nothing.
    return spectator() ? frame_time().span_us(m_config.spectator_buffer_frames) : 0;
}

int Client::send_interval() const {
    // Fixed by the server. (Batching more at long delays would keep 200 ms links under
    // 2 KB/s, but the extra frame of batching raises the measured round trip and so the
    // delay: it needs a controller that accounts for it.)
    return m_welcome.send_interval;
}

int Client::tick(InputWord local_pad) {
    const Micros now = m_clock.now_us();
    // The end is final: nothing that arrives after it is read (a join whose transfer
    // failed must not be completed by the chunks still on their way).
    if (m_state == State::kEnded) return 0;
    if (m_state == State::kRunning)
        m_tick_late = m_last_tick >= 0 && now - m_last_tick > frame_time().us() + kLateTickUs;
    m_last_tick = now;
    while (auto event = m_link.poll()) {
        switch (event->type) {
            case TransportEvent::Type::kConnected:
                // The server's Challenge follows; the Hello answers it.
                m_handshake.connected(now);
                m_link.heard(now);
                break;
            case TransportEvent::Type::kDisconnected:
                end(m_state == State::kConnecting
                        ? "cannot reach the server at " + m_config.server_address
                        : "connection to the server lost");
                break;
            case TransportEvent::Type::kMessage:
                handle_message(event->data);
                break;
        }
        if (m_state == State::kEnded) return 0;
    }
    if (m_state == State::kEnded || m_state == State::kIdle) return 0;
    if (m_state == State::kConnecting) {
        if (Status waiting = m_handshake.challenge_wait(now, m_config.server_address); !waiting) {
            end(waiting.error().message);
            return 0;
        }
    }
    if (m_link.silent_for(now) > m_config.server_timeout_us) {
        end("the server has been silent for " + std::to_string(m_link.silent_for(now) / 1000) +
            " ms");
        return 0;
    }
    m_transfer.pump(m_link);  // a state the server asked for (before the start too)
    vouch_if_asked();
    if (m_state == State::kLobby || m_state == State::kJoining) {
        // A joiner acknowledges the frames it collects while its state arrives.
        const Micros period =
            m_state == State::kJoining ? frame_time().us() * 2 : kLobbyHeartbeatUs;
        // Before the start each of the server's heartbeats is answered at once: they are
        // its round-trip samples for the first delay, and the start waits for them.
        if (m_link.heartbeat_due(now, period)) send_input();
        if (m_link.stats_due(now)) send_stats();
        m_link.flush();
        return 0;
    }
    if (m_state != State::kRunning) return 0;

    m_link.send_copy(now);
    // The pad is sampled on the server's timeline, for every frame whose time has come,
    // whether or not this emulator has kept up: after a stall the inputs for the frames
    // ahead are already on their way, and catching up is limited by emulation speed
    // alone. A frame's sample needs the delay of its keyframe; it waits for it if needed.
    const std::uint32_t scheduled = timeline().scheduled_frame(now);
    bool sent = false;
    while (Frame(m_pad.next_sample_frame()) <= Frame(scheduled) && may_sample_next()) {
        sample_next(local_pad);
        if (m_link.count_sample(send_interval())) {
            send_input();
            sent = true;
        }
    }
    // The input leaves the moment it is sampled, before the frame is emulated: a core that
    // takes 8 ms a frame would add them to every trip. What rides with it (the reliable
    // reports queued before, the acknowledgements of what just arrived, a copy due) goes in
    // the same flush, so it is still one datagram; a tick that sent nothing flushes once, below.
    if (sent) m_link.flush();
    const int ran = m_welcome.mode == SessionMode::kRollback && !spectator() ? run_rollback(now)
                                                                             : run_frame_lock(now);
    // Keep inputs, acknowledgements and round-trip samples flowing while stalled too. A
    // frame late, so it never doubles the frame-paced sends.
    if (m_link.send_due(now, (send_interval() + 1) * frame_time().us())) send_input();
    m_link.flush();
    return ran;
}

Micros Client::next_wakeup() const {
    const Micros now = m_clock.now_us();
    if (m_state != State::kRunning) return now + 1000;
    const ClientTimeline timeline = this->timeline();
    // Statistics and hash reports leave with the next input datagram (at the latest one
    // frame after the send interval): no wake-up of their own.
    Micros wake =
        m_link.next_wakeup((send_interval() + 1) * frame_time().us(), m_config.server_timeout_us);
    // A sample held back (by the lead or an unknown keyframe delay), like a frame waiting for
    // its inputs, is woken by what arrives (the network), not by time: waking for it would
    // spin.
    if (may_sample_next()) wake = std::min(wake, timeline.due(m_pad.next_sample_frame()));
    if (!m_frames.blocked())
        wake = std::min(wake, timeline.due(m_frames.next_frame()) + run_behind_us());
    return std::max(wake, now);
}

void Client::sample_next(InputWord pad) {
    const std::uint32_t frame = m_pad.next_sample_frame();
    const int delay = m_frames.delay_at(frame);
    const PadSampler::Sampled sampled =
        m_pad.sample(pad, delay, timeline().due(frame), m_clock.now_us());
    // The frames it filled end with frame + delay (PadSampler).
    if (m_welcome.mode == SessionMode::kRollback)
        m_rollback.add_own(sampled.word, sampled.frames,
                           frame + static_cast<std::uint32_t>(delay) + 1);
}

int Client::run_frame_lock(Micros now) {
    const ClientTimeline timeline = this->timeline();
    const Micros behind = run_behind_us();
    int ran = 0;
    while (ran < m_config.max_catch_up_frames) {
        m_transfer.resync_if_due(transfer_position(), m_link, m_events);
        const auto frame = m_frames.run_next(now, timeline, behind,
                                             ran + 1 < m_config.max_catch_up_frames, m_emulator);
        if (!frame) break;
        ++ran;
        const std::uint32_t f = frame->frame;
        // A snapshot's state is saved once, and its hash report made of those bytes: what this
        // client uploads of the next frame is what it reported (docs/faults.md: gambatte).
        std::vector<std::uint8_t> state;
        const bool snapshot = m_transfer.snapshot_due(f) && m_emulator.save_state(state);
        if (m_welcome.hash_interval && f % m_welcome.hash_interval == 0 && !spectator())
            report_hash(f, m_evidence.hash_after(f, m_emulator, snapshot ? &state : nullptr));
        m_transfer.after_frame(f, frame->inputs, std::move(state), transfer_position(), m_link);
    }
    return ran;
}

int Client::run_rollback(Micros now) {
    const ClientTimeline timeline = this->timeline();
    const bool memory_evidence = m_evidence.newest_is_memory();
    // What a correction costs is timed on this process's clock: the budget it is held to is
    // a share of a frame's time (correction_log.h).
    const Micros before = m_clock.now_us();
    if (const ClientRollback::Correction correction =
            m_rollback.correct(now, timeline, m_frames, m_emulator, memory_evidence, m_clock);
        correction.depth)
        m_corrections.add(correction.depth, m_clock.now_us() - before, correction.load_us);
    settle_rollback();
    const int ran = m_rollback.run(now, timeline, m_frames, m_emulator,
                                   m_config.max_catch_up_frames, memory_evidence);
    settle_rollback();
    if (!m_rollback.predicting() && m_rollback.all_verified()) run_in_frame_lock();
    return ran;
}

void Client::vouch_if_asked() {
    if (!m_welcome.vouch_savestates || m_vouched || spectator() ||
        m_welcome.mode != SessionMode::kRollback)
        return;
    SavestateVouch vouch;
    if (!m_config.savestate_check) {
        vouch.note = "this client cannot check its core's savestates";
    } else {
        const std::optional<Status> checked = m_config.savestate_check();
        if (!checked) return;  // still checking
        vouch.passed = static_cast<bool>(*checked);
        if (!vouch.passed) vouch.note = safe_text(checked->error().message, kMaxNoteBytes);
    }
    m_vouched = true;
    m_link.queue_control(encode(vouch));
}

void Client::run_in_frame_lock() {
    // Every frame run is verified: from the next one on this client is a frame-lock client,
    // and the server may repair it from a state of that frame or later.
    m_welcome.mode = SessionMode::kFrameLock;
    m_welcome.prediction_window = 0;
    m_frames.configure(SessionMode::kFrameLock, m_welcome.keyframe_interval);
    m_transfer.leave_prediction();
    m_link.queue_control(encode(FrameLockFrom{m_frames.next_frame()}));
}

void Client::settle_rollback() {
    // Frames run with every input confirmed are final: report their hashes, forget them.
    while (const auto final = m_rollback.oldest_final(m_frames)) {
        const std::uint32_t f = final->frame;
        // Snapshots are of verified states only (joiners start from them), and hold the bytes
        // the hash report was made of: the state saved before the next frame ran, or the live
        // machine's saved once here.
        const bool snapshot = m_transfer.wants_snapshot(f);
        std::vector<std::uint8_t> live;
        const std::vector<std::uint8_t>* saved = final->state_after;
        if (!saved && snapshot) {
            m_emulator.save_state(live);
            saved = &live;
        }
        if (m_welcome.hash_interval && f % m_welcome.hash_interval == 0) {
            const std::optional<std::uint64_t> memory =
                final->state_after ? std::optional(final->memory_after) : std::nullopt;
            report_hash(f, m_evidence.hash_after(f, m_emulator, saved, memory));
        }
        if (snapshot) m_transfer.take_snapshot(f + 1, saved == &live ? std::move(live) : *saved);
        m_rollback.retire_oldest(m_frames);
        m_transfer.serve_pending(transfer_position(), m_link);
    }
}

void Client::report_hash(std::uint32_t frame, std::uint64_t hash) {
    // A reliable report that rides with the next input datagram.
    m_link.queue_control(encode(m_evidence.report(frame, hash)));
}

void Client::send_input() {
    const Micros now = m_clock.now_us();
    const bool running = m_state == State::kRunning;
    // Reliable reports go out in the same flush as the input datagram, so ENet packs them
    // into it: sent on their own, a hash report and the statistics cost two datagrams a
    // second of headers (~120 B/s of a player's 2 KB/s upstream).
    if (running && m_link.stats_due(now)) send_stats();
    ClientInput input;
    input.confirmed_ack = static_cast<std::uint16_t>(m_frames.confirmed_end() - 1);
    m_pad.fill(input);
    m_link.send_input(std::move(input), now, running);
}

void Client::send_stats() {
    m_link.send_stats(m_frames.frames_run(), m_frames.stall_frames(),
                      m_corrections.reported_frame_cost(correction_budget_us(frame_time())));
}

void Client::handle_message(std::span<const std::uint8_t> bytes) {
    const Micros now = m_clock.now_us();
    m_link.heard(now);
    const auto id = peek_id(bytes);
    if (!id) return;  // unknown: dropped
    switch (*id) {
        case MsgId::kChallenge: {
            auto challenge = decode_challenge(bytes);
            if (!challenge || m_state != State::kConnecting || m_handshake.hello_sent()) return;
            Result<Hello> hello = m_handshake.answer(*challenge, m_config);
            if (!hello) {
                end(hello.error().message);
                return;
            }
            m_link.send(Channel::kControl, encode(hello.value()));
            m_link.await_seal();
            return;
        }
        case MsgId::kWelcome: {
            auto welcome = decode_welcome(bytes);
            if (!welcome || m_state != State::kConnecting || !m_handshake.hello_sent()) return;
            // First whose it is: a Welcome from a server other than the one this client was
            // told of (or not signed whole) ends the join before anything of it is taken.
            auto keys = m_handshake.welcomed(*welcome, m_config.server_key);
            if (!keys) {
                end(keys.error().message);
                return;
            }
            m_welcome = *welcome;
            // The server's text is made safe where the client takes it (safe_text.h): a
            // hostile server or relay cannot write controls into the log or the overlay.
            m_welcome.name = safe_text(welcome->name, kMaxNameBytes);
            m_frames.configure(welcome->mode, welcome->keyframe_interval);
            m_rollback.configure(welcome->slot, welcome->players, welcome->prediction_window);
            m_transfer.configure(*welcome);
            m_link.seed_clock(welcome->server_time_us, now);
            // Everything after the Welcome is sealed, both ways.
            m_link.seal(keys.value());
            m_state = State::kLobby;  // a late joiner's Start follows at once
            emit({ClientEvent::Type::kWelcome, slot(), 0, 0, 0, {}});
            if (!m_welcome.late) {
                // Before the start, an early state can only be the start state.
                for (const auto& message : m_transfer.take_early()) handle_bulk(message);
            }
            return;
        }
        case MsgId::kReject: {
            auto reject = decode_reject(bytes);
            const std::string why = reject ? safe_text(reject->message) : "rejected by the server";
            emit({ClientEvent::Type::kRejected, 0, 0, 0, 0, why});
            end("rejected: " + why);
            return;
        }
        case MsgId::kStart: {
            auto start = decode_start(bytes);
            if (!start || m_state != State::kLobby) return;
            m_start = *start;
            if (m_welcome.late) {
                // The session runs already: its state comes first (handle_bulk).
                m_state = State::kJoining;
                m_transfer.expect_join();
                m_frames.start_late(start->delay);
                emit({ClientEvent::Type::kJoining, slot(), 0, 0, 0,
                      "waiting for the session's state"});
                for (const auto& message : m_transfer.take_early()) handle_bulk(message);
                return;
            }
            m_frames.start(start->delay);
            m_pad.start(start->delay);
            m_rollback.start(start->delay);
            m_state = State::kRunning;
            emit({ClientEvent::Type::kStarted, slot(), 0, start->delay, 0, {}});
            return;
        }
        case MsgId::kServerUpdate: {
            auto update = decode_server_update(bytes);
            if (update) handle_update(*update);
            return;
        }
        case MsgId::kBye: {
            auto bye = decode_bye(bytes);
            m_closed_by_server = true;
            end(bye ? "the server closed the connection: " + safe_text(bye->message)
                    : "the server closed the connection");
            return;
        }
        case MsgId::kPlayerLeft: {
            if (auto left = decode_player_left(bytes)) {
                emit({ClientEvent::Type::kPlayerLeft, left->slot, left->frame, 0, 0,
                      safe_text(left->reason)});
            }
            return;
        }
        case MsgId::kStateRequest: {
            auto request = decode_state_request(bytes);
            if (!request) return;
            Status served = m_transfer.on_request(*request, transfer_position(), m_link, m_events);
            if (!served) end(served.error().message);
            return;
        }
        case MsgId::kStateHeader:
        case MsgId::kStateChunk:
        case MsgId::kStateAck:
            handle_bulk(bytes);
            return;
        case MsgId::kEvidenceMask: {
            if (auto mask = decode_evidence_mask(bytes)) m_evidence.add(std::move(*mask));
            return;
        }
        case MsgId::kModeChange: {
            // The one change a session makes: the hybrid turns into the frame lock.
            auto change = decode_mode_change(bytes);
            if (!change || change->mode != SessionMode::kFrameLock ||
                m_welcome.mode != SessionMode::kRollback || !m_rollback.predicting())
                return;
            if (spectator()) {
                m_welcome.mode = SessionMode::kFrameLock;  // it never predicted
                m_transfer.leave_prediction();
            } else {
                m_rollback.stop_predicting();
            }
            emit({ClientEvent::Type::kModeChanged, 0, change->frame, 0, 0,
                  safe_text(change->reason)});
            return;
        }
        case MsgId::kChatLine: {
            // The server's text is made safe where the client takes it, as every other text.
            if (auto line = decode_chat_line(bytes)) {
                line->from = safe_text(line->from, kMaxNameBytes);
                line->text = safe_text(line->text, kMaxChatBytes);
                if (m_chat.size() == kMaxChatQueued) m_chat.pop_front();
                m_chat.push_back(std::move(*line));
            }
            return;
        }
        case MsgId::kDesync: {
            if (auto desync = decode_desync(bytes)) {
                m_transfer.note_desync(desync->frame);
                emit({ClientEvent::Type::kDesync, 0, desync->frame, 0, desync->differing_slots,
                      "desync at frame " + std::to_string(desync->frame)});
            }
            return;
        }
        default:
            return;
    }
}

void Client::handle_update(const ServerUpdate& update) {
    const Micros now = m_clock.now_us();
    if (m_link.on_update(update, now, m_state == State::kLobby, m_tick_late))
        m_present = update.present;
    if (m_state != State::kRunning &&
        !(m_state == State::kJoining && m_transfer.join_frame_known()))
        return;
    m_pad.acknowledge(update.input_ack);
    const FrameLock::Filed filed = m_frames.file(update);
    for (const ScheduleEntry& change : filed.delay_changes)
        emit({ClientEvent::Type::kDelayChanged, 0, change.frame, change.delay, 0, {}});
    m_pad.confirmed(filed.before, m_frames.confirmed_end(), now, m_tick_late);
    if (m_welcome.mode == SessionMode::kRollback)
        m_rollback.merge_tails(update, filed.first, filed.before, m_frames);
}

void Client::handle_bulk(std::span<const std::uint8_t> bytes) {
    ClientTransfer::Received received =
        m_transfer.receive(bytes, transfer_position(), m_link, m_events);
    if (received.join_header) {
        // Confirmed inputs from the state's frame on are collected from now; the frames
        // before it are final.
        m_frames.join(received.join_header->frame, received.join_header->delay);
        m_rollback.join(received.join_header->frame);
    }
    if (!received.status) {
        end(received.status.error().message);
        return;
    }
    if (received.joined) joined();
}

void Client::joined() {
    // From the present on, this player's pad is sampled like everyone's.
    const std::uint32_t first = m_transfer.first_frame();
    const std::uint32_t present = timeline().scheduled_frame(m_clock.now_us()) + 1;
    m_pad.join(Frame(present) > Frame(first) ? present : first);
    m_rollback.forget_own();
    m_frames.forget_stall();
    m_state = State::kRunning;
    emit({ClientEvent::Type::kJoined, slot(), first, delay_at(first), 0,
          "joined at frame " + std::to_string(first)});
}

}  // namespace framelock::netplay
