#include "netplay/server.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "netplay/state_hash.h"

namespace framelock::netplay {
namespace {

constexpr Micros kLobbyHeartbeatUs = 100'000;
constexpr std::size_t kMaxEvents = 4096;

std::string describe(const SessionIdentity& id, const std::string& content_name) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "%s %s, content %s (%016" PRIx64 "), options %016" PRIx64 ", %.3f fps",
                  id.core_name.c_str(), id.core_version.c_str(),
                  content_name.empty() ? "-" : content_name.c_str(), id.content_hash,
                  id.options_hash, id.fps_milli / 1000.0);
    return text;
}

ServerConfig normalized(ServerConfig config) {
    config.players = std::clamp(config.players, 1, kMaxPlayers);
    if (config.keyframe_interval == 0) config.keyframe_interval = 1;
    if (config.send_interval == 0) config.send_interval = 1;
    if (config.mode == SessionMode::kRollback) {
        // Predictions cost a re-run each; more players are frame lock's job.
        config.players = std::min(config.players, kMaxRollbackPlayers);
        config.send_interval = 1;  // a datagram a frame: corrections arrive early
        config.delay.adaptive = false;
        config.delay.fixed_delay = std::clamp(config.delay.fixed_delay, 0, 15);
        config.prediction_window = std::clamp<std::uint8_t>(config.prediction_window, 1, 60);
    }
    if (config.mode == SessionMode::kNoWait) {
        config.send_interval = 1;  // every frame: inputs meet their deadline a frame sooner
        config.delay.adaptive = false;
        config.delay.fixed_delay = std::clamp(config.delay.fixed_delay, 2, 60);
    }
    return config;
}

}  // namespace

Server::Server(Transport& transport, const Clock& clock, ServerConfig config)
    : m_transport(transport),
      m_clock(clock),
      m_config(normalized(config)),
      m_delay(m_config.delay) {}

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
            case TransportEvent::Type::kConnected:
                break;  // a Hello follows
            case TransportEvent::Type::kDisconnected:
                handle_disconnect(event->peer, "connection lost");
                break;
            case TransportEvent::Type::kMessage:
                handle_message(event->peer, event->channel, event->data);
                break;
        }
    }
    for (int s = 1; s <= m_config.players; ++s) {
        Slot& slot = m_slots[s - 1];
        if (slot.occupied && !slot.left && now - slot.last_heard > m_config.client_timeout_us) {
            char why[96];
            std::snprintf(why, sizeof why, "no data for %.1f s", (now - slot.last_heard) / 1e6);
            drop(s, ByeReason::kTimeout, why);
        }
    }
    if (!m_started) {
        maybe_start();
        for (int s = 0; s < m_config.players; ++s) {
            Slot& slot = m_slots[s];
            if (slot.occupied && now - slot.last_update_sent >= kLobbyHeartbeatUs)
                send_update(slot);
        }
        return;
    }
    confirm_frames();
    for (int s = 0; s < m_config.players; ++s) {
        Slot& slot = m_slots[s];
        if (!slot.occupied || slot.left) continue;
        const bool news =
            m_confirmed_end > m_last_sent_end ||
            (m_config.mode == SessionMode::kRollback && m_inputs_seen != m_last_sent_inputs);
        if (news || now - slot.last_update_sent >= m_config.delay.frame_time_us) send_update(slot);
    }
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
        const Micros period = m_started ? m_config.delay.frame_time_us : kLobbyHeartbeatUs;
        wake = std::min({wake, slot.last_update_sent + period,
                         slot.last_heard + m_config.client_timeout_us + 1});
    }
    if (m_blocked_since >= 0)
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

void Server::handle_message(PeerId peer, Channel channel, std::span<const std::uint8_t> bytes) {
    const int s = slot_of(peer);
    const auto id = peek_id(bytes);
    const auto malformed = [&](const std::string& what) {
        if (s) ++m_slots[s - 1].malformed;
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
        if (s) return;  // a repeated Hello changes nothing
        auto hello = decode_hello(bytes);
        if (!hello) {
            reject(peer, RejectReason::kBadHello, "malformed Hello (not a framelock client?)");
            return;
        }
        handle_hello(peer, *hello);
        return;
    }
    if (!s) {
        malformed("message from a peer without a slot dropped");
        return;
    }
    Slot& slot = m_slots[s - 1];
    // Only well-formed messages count as signs of life: a peer sending garbage times out
    // like a silent one.
    const Micros now = m_clock.now_us();
    switch (*id) {
        case MsgId::kClientInput: {
            if (channel != Channel::kInput) break;
            auto input = decode_client_input(bytes);
            if (!input) return malformed("malformed ClientInput dropped");
            slot.last_heard = now;
            handle_input(slot, *input);
            return;
        }
        case MsgId::kHashReport: {
            auto report = decode_hash_report(bytes);
            if (!report) return malformed("malformed HashReport dropped");
            slot.last_heard = now;
            handle_hash(s, *report);
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
            m_delay.observe_srtt(srtt_worst());
            m_delay.observe_loss(loss_worst());
            return;
        }
        case MsgId::kBye: {
            auto bye = decode_bye(bytes);
            drop(s, ByeReason::kQuit,
                 bye ? (bye->message.empty() ? "left" : bye->message) : "left");
            return;
        }
        default:
            break;
    }
    malformed("unexpected message id dropped");
}

void Server::reject(PeerId peer, RejectReason reason, const std::string& message) {
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
    if (m_started) {
        reject(peer, RejectReason::kAlreadyStarted, "the session is already running");
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
    int s = hello.requested_slot;
    if (s > m_config.players) {
        reject(peer, RejectReason::kFull,
               "slot " + std::to_string(s) + " does not exist: the session has " +
                   std::to_string(m_config.players) + " player slots");
        return;
    }
    if (s > 0 && m_slots[s - 1].occupied) {
        reject(peer, RejectReason::kSlotTaken,
               "slot " + std::to_string(s) + " is taken by '" + m_slots[s - 1].name +
                   "'; pick another or omit --slot");
        return;
    }
    if (s == 0) {
        for (int i = 0; i < m_config.players && s == 0; ++i) {
            if (!m_slots[i].occupied) s = i + 1;
        }
        if (s == 0) {
            reject(peer, RejectReason::kFull,
                   "the session is full (" + std::to_string(m_config.players) + "/" +
                       std::to_string(m_config.players) + " players)");
            return;
        }
    }
    if (!m_identity) {
        m_identity = hello.identity;
        m_content_name = hello.content_name;
        m_config.delay.frame_time_us =
            static_cast<Micros>(std::llround(1e9 / hello.identity.fps_milli));
        m_delay = DelayController(m_config.delay);
    }
    Slot& slot = m_slots[s - 1];
    slot = Slot{};
    slot.occupied = true;
    slot.peer = peer;
    slot.name = hello.player_name.empty() ? "player " + std::to_string(s) : hello.player_name;
    slot.last_heard = m_clock.now_us();
    Welcome welcome;
    welcome.slot = static_cast<std::uint8_t>(s);
    welcome.players = static_cast<std::uint8_t>(m_config.players);
    welcome.hash_interval = m_config.hash_interval;
    welcome.keyframe_interval = m_config.keyframe_interval;
    welcome.send_interval = m_config.send_interval;
    welcome.server_time_us = m_clock.now_us();
    welcome.mode = m_config.mode;
    welcome.prediction_window =
        m_config.mode == SessionMode::kRollback ? m_config.prediction_window : 0;
    m_transport.send(peer, Channel::kControl, encode(welcome));
    emit({ServerEvent::Type::kPlayerJoined, s, 0, 0, 0,
          slot.name + " joined: " + describe(hello.identity, hello.content_name)});
}

Micros Server::srtt_worst() const {
    Micros worst = 0;
    for (int s = 0; s < m_config.players; ++s) {
        if (m_slots[s].occupied && !m_slots[s].left) worst = std::max(worst, m_slots[s].srtt);
    }
    return worst;
}

double Server::loss_worst() const {
    double worst = 0;
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_slots[s];
        if (!slot.occupied || slot.left) continue;
        worst = std::max(worst, slot.up_loss.rate());
        worst = std::max(worst, slot.down_loss_permille / 1000.0);
    }
    return worst;
}

Micros Server::safe_rtt_worst() const {
    Micros worst = 0;
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_slots[s];
        if (slot.occupied && !slot.left) worst = std::max(worst, slot.srtt + 4 * slot.rttvar);
    }
    return worst;
}

void Server::maybe_start() {
    const Micros now = m_clock.now_us();
    for (int s = 0; s < m_config.players; ++s) {
        if (!m_slots[s].occupied) {
            m_lobby_full_since = -1;
            return;
        }
    }
    if (m_lobby_full_since < 0) m_lobby_full_since = now;
    // Wait (briefly) until every client has measured its round trip: the first delay
    // should already fit the network.
    bool all_measured = true;
    for (int s = 0; s < m_config.players; ++s) all_measured &= m_slots[s].srtt > 0;
    const Micros worst = safe_rtt_worst();
    if (!all_measured && now - m_lobby_full_since < m_config.max_lobby_rtt_wait_us) return;

    const int delay = m_delay.initial(worst);
    m_start.start_time_us = now + std::max(m_config.start_lead_us, 2 * worst);
    m_start.frame_time_ns = static_cast<std::uint32_t>(std::llround(1e12 / m_identity->fps_milli));
    m_start.delay = static_cast<std::uint8_t>(delay);
    m_start.players = static_cast<std::uint8_t>(m_config.players);
    // Keyframes inside the first, pre-confirmed frames keep the starting delay; they
    // still get entries, because a client runs a keyframe only once it holds its entry.
    m_schedule.clear();
    for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(std::max(delay, 1));
         k += m_config.keyframe_interval) {
        m_schedule.push_back({k, static_cast<std::uint8_t>(delay)});
    }
    // Frames before the first sampled input are neutral for everyone.
    m_confirmed_base = 0;
    m_confirmed.assign(static_cast<std::size_t>(delay), InputFrame{});
    m_confirmed_end = static_cast<std::uint32_t>(delay);
    for (int s = 0; s < m_config.players; ++s) {
        m_slots[s].inputs_end = m_confirmed_end;
        m_slots[s].pending.clear();
        m_transport.send(m_slots[s].peer, Channel::kControl, encode(m_start));
    }
    m_started = true;
    emit({ServerEvent::Type::kStarted, 0, 0, delay, 0, "session started"});
}

void Server::handle_input(Slot& slot, const ClientInput& input) {
    const Micros now = m_clock.now_us();
    ++slot.datagrams;
    const bool newest = slot.up_loss.record(input.seq);
    if (newest) {
        slot.last_client_time = input.client_time;
        slot.last_client_time_at = now;
    }
    if (!m_started) return;
    if (input.latency_100us) {
        m_delay.add_round_trip(now, static_cast<Micros>(input.latency_100us) * 100);
    }

    const Frame acked = expand_frame(input.confirmed_ack, Frame(m_confirmed_end));
    const std::uint32_t ack_end = acked.value() + 1;
    if (Frame(ack_end) <= Frame(m_confirmed_end) && Frame(ack_end) > Frame(slot.client_ack_end)) {
        slot.client_ack_end = ack_end;
    }
    const std::uint32_t first = expand_frame(input.first_frame, Frame(slot.inputs_end)).value();
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

void Server::confirm_frames() {
    const Micros now = m_clock.now_us();
    // With nobody left playing there is nothing to confirm (and no end to neutral frames).
    if (ended()) return;
    for (;;) {
        const std::uint32_t g = m_confirmed_end;
        int missing = 0, missing_count = 0;
        for (int s = 0; s < m_config.players; ++s) {
            const Slot& slot = m_slots[s];
            if (!slot.left && Frame(slot.inputs_end) <= Frame(g)) {
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
                if (!slot.left && Frame(slot.inputs_end) <= Frame(g)) {
                    slot.pending.push_back(slot.held);
                    slot.inputs_end = g + 1;
                }
            }
            missing = 0;
        }
        if (missing) {
            // One player alone holding everyone back for the timeout is dropped, even if it
            // still talks: the others play on.
            if (m_blocked_since < 0) m_blocked_since = now;
            if (missing_count == 1 && now - m_blocked_since > m_config.client_timeout_us) {
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
            const int delay = m_delay.decide(now, current, m_delay.target(now));
            m_schedule.push_back({g, static_cast<std::uint8_t>(delay)});
            if (delay != current) emit({ServerEvent::Type::kDelayChanged, 0, g, delay, 0, {}});
        }
        InputFrame frame;
        for (int s = 0; s < m_config.players; ++s) {
            Slot& slot = m_slots[s];
            if (slot.left && Frame(g) >= Frame(slot.left_from)) continue;  // neutral
            frame.pads[s] = slot.pending.front();
            slot.held = frame.pads[s];
            slot.pending.pop_front();
        }
        m_confirmed.push_back(frame);
        ++m_confirmed_end;
    }
}

void Server::send_update(Slot& slot) {
    const Micros now = m_clock.now_us();
    ServerUpdate update;
    update.seq = slot.next_update_seq++;
    update.server_time = static_cast<std::uint32_t>(now);
    update.echo_client_time = slot.last_client_time;
    const Micros hold = slot.last_client_time_at < 0 ? 0 : (now - slot.last_client_time_at) / 10;
    update.echo_hold_10us = static_cast<std::uint16_t>(std::clamp<Micros>(hold, 0, 65535));
    update.input_ack = static_cast<std::uint16_t>(slot.inputs_end - 1);
    update.players = static_cast<std::uint8_t>(m_config.players);
    if (m_started) {
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
        if (m_config.mode == SessionMode::kRollback &&
            Frame(from) + static_cast<std::int32_t>(update.frames.size()) ==
                Frame(m_confirmed_end)) {
            // Everyone's inputs beyond confirmation, so predictions are corrected early.
            update.tails.resize(static_cast<std::size_t>(m_config.players));
            for (int s = 0; s < m_config.players; ++s) {
                const Slot& other = m_slots[s];
                const std::size_t n = std::min(other.pending.size(), kMaxFramesPerMessage);
                update.tails[s].assign(other.pending.begin(),
                                       other.pending.begin() + static_cast<std::ptrdiff_t>(n));
            }
        }
    }
    m_transport.send(slot.peer, Channel::kInput, encode(update));
    slot.last_update_sent = now;
}

void Server::handle_hash(int slot_number, const HashReport& report) {
    if (!m_started || Frame(report.frame) >= Frame(m_confirmed_end) + 1)
        return;  // not a frame anyone ran
    m_hashes[report.frame][slot_number - 1] = report.hash;
    check_hashes();
}

void Server::check_hashes() {
    while (!m_hashes.empty()) {
        auto it = m_hashes.begin();
        const auto& hashes = it->second;
        bool complete = true;
        for (int s = 0; s < m_config.players; ++s) {
            const Slot& slot = m_slots[s];
            const bool expected =
                slot.occupied && !(slot.left && Frame(it->first) >= Frame(slot.left_from));
            if (expected && hashes[s] == 0) complete = false;
        }
        // Wait for missing reports, but not forever: a report two intervals and two seconds
        // late is skipped (with a hash every frame, a far player's reports come frames later).
        const std::uint32_t two_seconds =
            m_start.frame_time_ns ? 2'000'000'000u / m_start.frame_time_ns : 120u;
        if (!complete && (m_hashes.size() < 3 || Frame(m_confirmed_end) - Frame(it->first) <
                                                     static_cast<std::int32_t>(two_seconds)))
            return;
        std::map<std::uint64_t, int> votes;
        for (int s = 0; s < m_config.players; ++s) {
            if (hashes[s]) ++votes[hashes[s]];
        }
        std::uint64_t majority = 0;
        int best = 0;
        for (const auto& [hash, count] : votes) {
            if (count > best) {
                best = count;
                majority = hash;
            }
        }
        std::uint8_t differing = 0;
        for (int s = 0; s < m_config.players; ++s) {
            if (hashes[s] && hashes[s] != majority) differing |= static_cast<std::uint8_t>(1u << s);
        }
        if (differing && !m_in_desync) {
            Desync desync;
            desync.frame = it->first;
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
            emit({ServerEvent::Type::kDesync, 0, it->first, 0, differing,
                  "desync at frame " + std::to_string(it->first) + ": slot(s) " + who +
                      " differ from the majority"});
        }
        m_in_desync = differing != 0;
        if (complete && !differing) ++m_hash_frames_matched;
        m_hashes.erase(it);
    }
}

void Server::handle_disconnect(PeerId peer, const std::string& reason) {
    if (const int s = slot_of(peer)) drop(s, ByeReason::kQuit, reason);
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
        return;
    }
    slot.left = true;
    slot.left_from = slot.inputs_end;
    const PlayerLeft left{static_cast<std::uint8_t>(slot_number), slot.left_from,
                          slot.name + ": " + message};
    for (int s = 0; s < m_config.players; ++s) {
        if (m_slots[s].occupied && !m_slots[s].left)
            m_transport.send(m_slots[s].peer, Channel::kControl, encode(left));
    }
    confirm_frames();  // the others may have been waiting only for this player
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
