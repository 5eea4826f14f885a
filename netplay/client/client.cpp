#include "netplay/client/client.h"

#include <algorithm>

namespace framelock::netplay {
namespace {
constexpr Micros kStallToleranceUs = 1'000;  // the loop's own timing granularity
// Pads are sampled at most this many frames beyond the confirmed ones: the server drops
// inputs further ahead (ServerConfig::max_frames_ahead), and a Start or clock sample that
// puts the session's present absurdly far ahead must not make one tick sample (and keep,
// and send) every frame up to it.
constexpr std::uint32_t kMaxSampleLead = 600;
constexpr Micros kMaxSinceUs = Micros{1} << 53;
// A tick this much later than the frame-paced loop promises: the process stalled, and what
// arrived meanwhile waited on it, not on the network.
constexpr Micros kLateTickUs = 8'000;
}  // namespace

Client::Client(Transport& transport, const Clock& clock, Emulator& emulator, ClientConfig config)
    : m_clock(clock), m_emulator(emulator), m_config(std::move(config)), m_link(transport, clock) {}

void Client::start() {
    m_state = State::kConnecting;
    if (Status connected = m_link.connect(m_config.server_address, m_clock.now_us()); !connected)
        end("cannot connect to " + m_config.server_address + ": " + connected.error().message);
}

void Client::end(const std::string& reason) {
    if (m_state == State::kEnded) return;
    m_state = State::kEnded;
    m_end_reason = reason;
    emit({ClientEvent::Type::kDisconnected, m_slot, m_next_frame, 0, 0, reason});
}

void Client::leave(const std::string& reason) {
    if (m_state == State::kEnded || m_state == State::kIdle) return;
    m_link.close(reason);
    end("left: " + reason);
}

std::optional<ClientEvent> Client::poll_event() {
    if (m_events.empty()) return std::nullopt;
    ClientEvent event = std::move(m_events.front());
    m_events.pop_front();
    return event;
}

int Client::delay_at(std::uint32_t frame) const {
    auto it = m_schedule.upper_bound(frame);
    if (it == m_schedule.begin()) return m_start.delay;
    return std::prev(it)->second;
}

bool Client::schedule_known_for(std::uint32_t frame) const {
    // Rollback and no-wait run at one fixed delay: nothing to wait for (waiting for each keyframe's
    // confirmation would stall a zero-delay client at every keyframe).
    if (m_welcome.mode != SessionMode::kFrameLock) return true;  // one fixed delay
    const std::uint32_t keyframe = frame - frame % m_welcome.keyframe_interval;
    return keyframe == 0 || m_schedule.count(keyframe) > 0;
}

std::uint32_t Client::scheduled_frame(Micros now) const {
    // The last frame whose time has come; frame 0's time not yet come gives "frame -1".
    // Clamped (to 285 years) so that since * 1000 cannot overflow for a start time far in
    // the past: frame numbers wrap at 2^32 anyway.
    const Micros since = std::min(now + m_link.clock_offset() - m_start.start_time_us, kMaxSinceUs);
    if (since < 0) return static_cast<std::uint32_t>(-1);
    return static_cast<std::uint32_t>(frame_time().frames_in(since));
}

Micros Client::frame_due_local(std::uint32_t frame) const {
    // Rounded up to the microsecond: at the time returned, scheduled_frame() counts the frame
    // as come (rounded down, a loop woken then would find it a microsecond early and spin).
    const Micros server_time = m_start.start_time_us + frame_time().span_us_up(frame);
    return server_time - m_link.clock_offset();
}

bool Client::may_sample_next() const {
    return !spectator() && Frame(m_sample_frame) < Frame(m_confirmed_end + kMaxSampleLead) &&
           schedule_known_for(m_sample_frame);
}

Micros Client::run_behind_us() const {
    // A spectator plays a few frames behind: a late confirmation then costs it nothing.
    return spectator() ? frame_time().span_us(m_config.spectator_buffer_frames) : 0;
}

int Client::tick(InputWord local_pad) {
    const Micros now = m_clock.now_us();
    // The end is final: nothing that arrives after it is read (a join whose transfer
    // failed must not be completed by the chunks still on their way).
    if (m_state == State::kEnded) return 0;
    if (m_state == State::kRunning) {
        const Micros frame_us = frame_time().us();
        m_tick_late = m_last_tick >= 0 && now - m_last_tick > frame_us + kLateTickUs;
    }
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
    if (m_upload) {  // a state the server asked for (before the start too)
        for (const auto& message : m_upload->take_messages()) m_link.send(Channel::kBulk, message);
        if (m_upload->done()) m_upload.reset();
    }
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

    const Micros frame_us = frame_time().us();
    m_link.send_copy(now);
    // The pad is sampled on the server's timeline, for every frame whose time has come,
    // whether or not this emulator has kept up: after a stall the inputs for the frames
    // ahead are already on their way, and catching up is limited by emulation speed
    // alone. A frame's sample needs the delay of its keyframe; it waits for it if needed.
    while (Frame(m_sample_frame) <= Frame(scheduled_frame(now)) && may_sample_next()) {
        sample_input(m_sample_frame, local_pad);
        ++m_sample_frame;
        if (m_link.count_sample(send_interval())) send_input();
    }
    const int ran = m_welcome.mode == SessionMode::kRollback && !spectator() ? run_rollback(now)
                                                                             : run_frame_lock(now);
    // Keep inputs, acknowledgements and round-trip samples flowing while stalled too. A
    // frame late, so it never doubles the frame-paced sends.
    if (m_link.send_due(now, (send_interval() + 1) * frame_us)) send_input();
    m_link.flush();
    return ran;
}

int Client::run_frame_lock(Micros now) {
    int ran = 0;
    const Micros buffer = run_behind_us();
    while (ran < m_config.max_catch_up_frames) {
        if (m_resync_waiting && m_resync_waiting->first == m_next_frame) {
            auto waiting = std::move(*m_resync_waiting);
            m_resync_waiting.reset();
            apply_resync(waiting.first, waiting.second);
        }
        const Micros due = frame_due_local(m_next_frame) + buffer;
        if (now < due || at_stop()) break;
        if (!(Frame(m_confirmed_end) > Frame(m_next_frame)) || !schedule_known_for(m_next_frame)) {
            note_blocked(due, now);
            break;
        }
        note_unblocked(now);
        const std::uint32_t frame = m_next_frame;
        const InputFrame inputs = m_confirmed.front();
        m_confirmed.pop_front();
        // Not looked at only if the next frame is due too and can run right away; the last
        // frame a tick can run is always shown, even when the client runs behind.
        const bool next_runs_now =
            now >= frame_due_local(frame + 1) + buffer &&
            !(m_config.stop_at_frame && frame + 1 >= m_config.stop_at_frame) &&
            !m_confirmed.empty() && ran + 1 < m_config.max_catch_up_frames;
        const bool behind = next_runs_now;
        add_lateness(now - due);
        m_emulator.run_frame(inputs, !behind);
        if (behind) ++m_stats.frames_fast_forwarded;
        ++m_stats.frames_run;
        ++m_next_frame;
        ++ran;
        if (m_welcome.hash_interval && frame % m_welcome.hash_interval == 0 && !spectator()) {
            queue_control(
                encode(m_evidence.report(frame, m_evidence.hash_after(frame, m_emulator))));
        }
        after_frame(frame, inputs);
    }
    return ran;
}

void Client::note_blocked(Micros due, Micros now) {
    if (m_blocked_since >= 0) return;
    // Only the time spent waiting from now on is a stall: a client already behind (catching
    // up) must not count its backlog again.
    m_blocked_since = std::max(due, now);
    ++m_stats.stall_events;
}

void Client::note_unblocked(Micros now) {
    if (m_blocked_since < 0) return;
    const Micros frame_us = frame_time().us();
    const Micros waited = now - m_blocked_since;
    if (waited > kStallToleranceUs)
        m_stats.stall_frames += static_cast<std::uint32_t>((waited + frame_us - 1) / frame_us);
    m_blocked_since = -1;
}

int Client::send_interval() const {
    // Fixed by the server. (Batching more at long delays would keep 200 ms links under
    // 2 KB/s, but the extra frame of batching raises the measured round trip and so the
    // delay: it needs a controller that accounts for it.)
    return m_welcome.send_interval;
}

Micros Client::next_wakeup() const {
    const Micros now = m_clock.now_us();
    if (m_state != State::kRunning) return now + 1000;
    const Micros frame_us = frame_time().us();
    // Statistics and hash reports leave with the next input datagram (at the latest one
    // frame after the send interval): no wake-up of their own.
    Micros wake = m_link.next_wakeup((send_interval() + 1) * frame_us, m_config.server_timeout_us);
    // A sample held back (by the lead or an unknown keyframe delay), like a frame waiting for
    // its inputs, is woken by what arrives (the network), not by time: waking for it would
    // spin.
    if (may_sample_next()) wake = std::min(wake, frame_due_local(m_sample_frame));
    if (m_blocked_since < 0) wake = std::min(wake, frame_due_local(m_next_frame) + run_behind_us());
    return std::max(wake, now);
}

void Client::sample_input(std::uint32_t frame, InputWord pad) {
    const std::uint32_t target = frame + static_cast<std::uint32_t>(delay_at(frame));
    const InputWord presses = static_cast<InputWord>(pad & ~m_last_sample);
    m_last_sample = pad;
    if (m_own_started && Frame(target) < Frame(m_own_next)) {
        // The delay fell: this sample has no frame of its own. A button pressed now is
        // carried into the next frame that gets one, so no tap is ever lost.
        m_carried_presses |= presses;
        return;
    }
    const InputWord word = static_cast<InputWord>(pad | m_carried_presses);
    m_carried_presses = 0;
    if (!m_own_started) {
        // A late joiner's inputs start at its first sample's frame.
        m_own_started = true;
        m_own_next = m_own_acked_end = m_sample_base = target;
        m_own.clear();
        m_sample_times.clear();
    }
    // The delay rose: frames between the last sample's target and this one's get this
    // sample too.
    const Micros due = frame_due_local(frame);
    m_max_late = std::max(m_max_late, m_clock.now_us() - due);
    while (Frame(m_own_next) <= Frame(target)) {
        m_own.push_back(word);
        if (m_welcome.mode == SessionMode::kRollback) m_own_log.push_back(word);
        m_sample_times.push_back(due);
        ++m_own_next;
    }
}

void Client::queue_control(std::vector<std::uint8_t> message) {
    m_link.queue_control(std::move(message));
}

void Client::add_lateness(Micros late) {
    // A frame more than a minute late counts as a minute: the sum stays meaningful and
    // cannot overflow, whatever times the server sent.
    m_stats.lateness_total_us += std::min<Micros>(late, 60'000'000);
}

void Client::send_input() {
    const Micros now = m_clock.now_us();
    const bool running = m_state == State::kRunning;
    // Reliable reports go out in the same flush as the input datagram, so ENet packs them
    // into it: sent on their own, a hash report and the statistics cost two datagrams a
    // second of headers (~120 B/s of a player's 2 KB/s upstream).
    if (running && m_link.stats_due(now)) send_stats();
    ClientInput input;
    input.confirmed_ack = static_cast<std::uint16_t>(m_confirmed_end - 1);
    input.latency_100us =
        static_cast<std::uint16_t>(std::clamp<Micros>(m_max_round_trip / 100, 0, 65535));
    m_max_round_trip = 0;
    input.late_ms = static_cast<std::uint8_t>(std::clamp<Micros>(m_max_late / 1000, 0, 255));
    m_max_late = 0;
    input.first_frame = static_cast<std::uint16_t>(m_own_acked_end);
    const std::size_t count = std::min(m_own.size(), kMaxFramesPerMessage);
    input.inputs.assign(m_own.begin(), m_own.begin() + static_cast<std::ptrdiff_t>(count));
    m_link.send_input(std::move(input), now, running);
}

void Client::answer(const Challenge& challenge) {
    Result<Hello> hello = m_handshake.answer(challenge, m_config);
    if (!hello) {
        end(hello.error().message);
        return;
    }
    m_link.send(Channel::kControl, encode(hello.value()));
}

void Client::send_stats() {
    m_link.send_stats(m_stats.frames_run, m_stats.stall_frames);
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
            answer(*challenge);
            return;
        }
        case MsgId::kWelcome: {
            auto welcome = decode_welcome(bytes);
            if (!welcome || m_state != State::kConnecting || !m_handshake.hello_sent()) return;
            m_welcome = *welcome;
            m_slot = welcome->slot;
            m_players = welcome->players;
            m_link.seed_clock(welcome->server_time_us, now);
            if (!spectator()) m_handshake.welcomed(welcome->sealed_token);
            m_state = State::kLobby;  // a late joiner's Start follows at once
            emit({ClientEvent::Type::kWelcome, m_slot, 0, 0, 0, {}});
            if (!m_welcome.late) {
                // Before the start, an early state can only be the start state.
                auto early = std::move(m_early_bulk);
                m_early_bulk.clear();
                for (const auto& message : early) handle_bulk(message);
            }
            return;
        }
        case MsgId::kReject: {
            auto reject = decode_reject(bytes);
            const std::string why = reject ? reject->message : "rejected by the server";
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
                m_join_header = false;
                m_confirmed.clear();
                emit({ClientEvent::Type::kJoining, m_slot, 0, 0, 0,
                      "waiting for the session's state"});
                auto early = std::move(m_early_bulk);
                m_early_bulk.clear();
                for (const auto& message : early) handle_bulk(message);
                return;
            }
            m_schedule = {{0u, start->delay}};
            m_next_frame = 0;
            m_confirmed.assign(start->delay, InputFrame{});
            m_confirmed_end = start->delay;
            m_own.clear();
            m_own_acked_end = m_own_next = start->delay;
            m_sample_times.clear();
            m_sample_base = start->delay;
            m_sample_frame = 0;
            m_ring.clear();
            m_verified_end = 0;
            for (auto& tail : m_tails) tail.clear();
            m_own_log.assign(start->delay, InputWord{0});
            m_own_log_base = 0;
            m_state = State::kRunning;
            emit({ClientEvent::Type::kStarted, m_slot, 0, start->delay, 0, {}});
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
            end(bye ? "the server closed the connection: " + bye->message
                    : "the server closed the connection");
            return;
        }
        case MsgId::kPlayerLeft: {
            if (auto left = decode_player_left(bytes)) {
                emit({ClientEvent::Type::kPlayerLeft, left->slot, left->frame, 0, 0, left->reason});
            }
            return;
        }
        case MsgId::kStateRequest: {
            if (auto request = decode_state_request(bytes)) handle_state_request(*request);
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
        case MsgId::kDesync: {
            if (auto desync = decode_desync(bytes)) {
                m_last_desync_frame = desync->frame;
                emit({ClientEvent::Type::kDesync, 0, desync->frame, 0, desync->differing_slots,
                      "desync at frame " + std::to_string(desync->frame)});
            }
            return;
        }
        default:
            return;
    }
}

const EvidenceMask& Client::evidence_mask_at(std::uint32_t frame) const {
    return m_evidence.mask_at(frame);
}

void Client::handle_update(const ServerUpdate& update) {
    const Micros now = m_clock.now_us();
    if (m_link.on_update(update, now, m_state == State::kLobby)) m_present = update.present;
    if (m_state != State::kRunning && !(m_state == State::kJoining && m_join_header)) return;

    // Own inputs the server holds need not be sent again.
    const std::uint32_t acked_end = expand_frame(update.input_ack, Frame(m_own_next)).value() + 1;
    while (Frame(m_own_acked_end) < Frame(acked_end) && !m_own.empty()) {
        m_own.pop_front();
        ++m_own_acked_end;
    }
    for (const auto& entry : update.schedule) {
        auto [it, inserted] = m_schedule.emplace(entry.frame, entry.delay);
        if (inserted && it != m_schedule.begin() && std::prev(it)->second != entry.delay) {
            emit({ClientEvent::Type::kDelayChanged, 0, entry.frame, entry.delay, 0, {}});
        }
    }
    // Schedule entries the client has run past are no longer needed.
    while (m_schedule.size() > 2 &&
           Frame(std::next(m_schedule.begin())->first) <= Frame(m_next_frame)) {
        m_schedule.erase(m_schedule.begin());
    }
    const Frame first = expand_frame(update.first_frame, Frame(m_confirmed_end));
    const std::uint32_t confirmed_before = m_confirmed_end;
    for (std::size_t i = 0; i < update.frames.size(); ++i) {
        const Frame frame = first + static_cast<std::int32_t>(i);
        if (frame < Frame(m_confirmed_end)) continue;
        if (frame > Frame(m_confirmed_end)) break;
        m_confirmed.push_back(update.frames[i]);
        m_last_confirmed = update.frames[i];
        // This frame's input round trip, from when this client sampled its own input for
        // it (every player samples a frame's input at the same scheduled moment).
        if (!m_tick_late && Frame(m_confirmed_end) >= Frame(m_sample_base) &&
            m_confirmed_end - m_sample_base < m_sample_times.size()) {
            const Micros round_trip = now - m_sample_times[m_confirmed_end - m_sample_base];
            m_max_round_trip = std::max(m_max_round_trip, round_trip);
            const auto bin = static_cast<std::size_t>(std::clamp<Micros>(
                round_trip / kRoundTripBinUs, 0, static_cast<Micros>(m_round_trips.size()) - 1));
            ++m_round_trips[bin];
        }
        ++m_confirmed_end;
    }
    while (!m_sample_times.empty() && Frame(m_sample_base) < Frame(m_confirmed_end)) {
        m_sample_times.pop_front();
        ++m_sample_base;
    }
    if (m_welcome.mode == SessionMode::kRollback)
        rollback_merge_tails(update, first, confirmed_before);
}

Micros Client::round_trip_quantile(double q) const {
    std::uint64_t total = 0;
    for (std::uint32_t n : m_round_trips) total += n;
    if (total == 0) return 0;
    const auto rank = static_cast<std::uint64_t>(std::clamp(q, 0.0, 1.0) * (total - 1));
    std::uint64_t seen = 0;
    for (std::size_t bin = 0; bin < m_round_trips.size(); ++bin) {
        seen += m_round_trips[bin];
        if (seen > rank) return static_cast<Micros>(bin) * kRoundTripBinUs + kRoundTripBinUs / 2;
    }
    return static_cast<Micros>(m_round_trips.size()) * kRoundTripBinUs;
}

ClientStatsSnapshot Client::stats() const {
    ClientStatsSnapshot s = m_stats;
    m_link.fill(s);
    s.delay = m_state == State::kRunning ? delay_at(m_next_frame) : 0;
    return s;
}

}  // namespace framelock::netplay
