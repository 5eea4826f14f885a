#include "netplay/client/client_link.h"

#include <algorithm>

namespace framelock::netplay {
namespace {
constexpr Micros kStatsIntervalUs = 1'000'000;
constexpr long kMinRttSamples = 8;
// An echoed seq names one of the last 256 datagrams only if it is this recent (at 60 a second
// they wrap every 4 s).
constexpr Micros kEchoMaxAgeUs = 2'000'000;
}  // namespace

ClientLink::ClientLink(Transport& transport, const Clock& clock)
    : m_transport(transport), m_clock(clock) {
    m_sent_at.fill(-1);
}

Status ClientLink::connect(const std::string& address, Micros now) {
    m_last_heard = now;
    auto peer = m_transport.connect(address);
    if (!peer) return peer.error();
    m_server = peer.value();
    return {};
}

std::optional<TransportEvent> ClientLink::poll() {
    while (auto event = m_transport.poll()) {
        if (event->peer == m_server) return event;
    }
    return std::nullopt;
}

void ClientLink::seed_clock(Micros server_time, Micros now) {
    m_sync.seed(server_time, now);
    m_welcome_offset = server_time - now;
}

bool ClientLink::on_update(const ServerUpdate& update, Micros now, bool answer_at_once,
                           bool late_tick) {
    // A second copy (or a late one) is no news, and no measure of the round trip either.
    const bool newest = m_update_loss.record(update.seq);
    if (newest) {
        m_copies = update.copies;
        m_path_floor = update.path_floor;
        m_have_echo = true;
        m_echo_seq = update.seq;
        m_echo_at = now;
        m_answer_update = answer_at_once;
    } else {
        ++m_updates_redundant;
    }
    // Round trip and clock offset from the echoed client time: only an echo of a time this
    // client sent counts (before the server heard from us it echoes nothing meaningful).
    // A saturated hold is no measure: after an outage the server may echo a time it got
    // seconds ago, and the round trip would take the outage for the network.
    const Micros t0 = m_sent_at[update.echo_seq];
    if (newest && update.echo_hold_10us != kEchoHoldUnknown && t0 >= 0 &&
        now - t0 < kEchoMaxAgeUs) {
        const Micros hold = static_cast<Micros>(update.echo_hold_10us) * 10;
        const Micros rtt = now - t0 - hold;
        if (t0 <= now && rtt >= 0 && rtt < 10'000'000) {
            m_rtt.add_sample(rtt);
            if (m_sync.synced()) {
                const Micros t2 = expand_time(update.server_time, m_sync.to_server(now));
                m_sync.add_sample(t0, t2 - hold, t2, now);
                // Each way on the synchronised clocks (one_way_trips.h).
                if (!late_tick)
                    m_trips.add(now, t2 - hold - m_sync.to_server(t0), m_sync.to_server(now) - t2);
            }
        }
    }
    return newest;
}

void ClientLink::send(Channel channel, std::span<const std::uint8_t> message) {
    m_transport.send(m_server, channel, message);
}

void ClientLink::queue_control(std::vector<std::uint8_t> message) {
    m_control_out.push_back(std::move(message));
}

bool ClientLink::heartbeat_due(Micros now, Micros period) {
    const bool due = send_due(now, period) || m_answer_update;
    m_answer_update = false;
    return due;
}

bool ClientLink::stats_due(Micros now) const {
    return now - m_last_stats >= kStatsIntervalUs;
}

void ClientLink::send_stats(std::uint32_t frames_run, std::uint32_t stall_frames,
                            Micros rerun_frame_us) {
    ClientStats stats;
    stats.frames_run = frames_run;
    stats.stall_frames = stall_frames;
    stats.rerun_frame_us = static_cast<std::uint16_t>(std::clamp<Micros>(rerun_frame_us, 0, 65535));
    // RFC 6298 starts RTTVAR at half the first sample; a few samples in, the RTT means
    // something. Until then the server hears "unknown" and waits (briefly) to start.
    if (m_rtt.samples() >= kMinRttSamples) {
        stats.srtt_100us =
            static_cast<std::uint16_t>(std::clamp<Micros>(m_rtt.srtt() / 100, 1, 65535));
        stats.rttvar_100us =
            static_cast<std::uint16_t>(std::clamp<Micros>(m_rtt.rttvar() / 100, 0, 65535));
    }
    const std::uint64_t lost = m_update_loss.lost();
    const std::uint64_t expected = m_update_loss.received() + lost;
    stats.down_loss_permille =
        expected ? static_cast<std::uint16_t>(lost * 1000 / expected) : std::uint16_t{0};
    stats.down_lost = static_cast<std::uint32_t>(lost);
    stats.clock_us =
        std::clamp<Micros>(m_clock.now_us() + m_welcome_offset, -kMaxClockUs, kMaxClockUs);
    const Micros now = m_clock.now_us();
    stats.up_100us = static_cast<std::uint16_t>(
        std::clamp<Micros>((m_trips.worst_up(now) + 99) / 100, 0, 65535));
    stats.down_100us = static_cast<std::uint16_t>(
        std::clamp<Micros>((m_trips.worst_down(now) + 99) / 100, 0, 65535));
    m_transport.send(m_server, Channel::kControl, encode(stats));
    m_last_stats = m_clock.now_us();
}

void ClientLink::send_input(ClientInput input, Micros now, bool running) {
    for (auto& message : m_control_out) m_transport.send(m_server, Channel::kControl, message);
    m_control_out.clear();
    input.seq = m_seq++;
    m_sent_at[input.seq] = now;
    input.echo_seq = m_echo_seq;
    input.echo_hold_10us = kEchoHoldUnknown;
    if (m_have_echo) {
        input.echo_hold_10us = static_cast<std::uint16_t>(
            std::clamp<Micros>((now - m_echo_at) / 10, 0, kEchoHoldUnknown));
    }
    std::vector<std::uint8_t> bytes = encode(input);
    m_transport.send(m_server, Channel::kInput, bytes);
    // On a lossy link (the server says so) the same datagram goes again, m_copies - 1 times,
    // at kCopyOffsetsUs after it, unless a newer one replaces it first.
    m_copy_at = -1;
    if (m_copies > 1 && running) {
        m_copy = std::move(bytes);
        m_copy_sent_at = now;
        m_copy_next = 0;
        m_copy_count = m_copies;
        m_copy_at = now + kCopyOffsetsUs[0];
    }
    m_last_send = now;
    m_samples_since_send = 0;
}

void ClientLink::send_copy(Micros now) {
    if (m_copy_at < 0 || now < m_copy_at) return;
    m_transport.send(m_server, Channel::kInput, m_copy);
    ++m_copies_sent;
    m_copy_at =
        ++m_copy_next + 1 < m_copy_count ? m_copy_sent_at + kCopyOffsetsUs[m_copy_next] : -1;
}

Micros ClientLink::next_wakeup(Micros send_period, Micros timeout) const {
    Micros wake = std::min(m_last_send + send_period, m_last_heard + timeout);
    if (m_copy_at >= 0) wake = std::min(wake, m_copy_at);
    return wake;
}

void ClientLink::close(const std::string& reason) {
    m_transport.send(m_server, Channel::kControl, encode(Bye{ByeReason::kQuit, reason}));
    m_transport.flush();
    m_transport.disconnect(m_server);
}

void ClientLink::fill(ClientStatsSnapshot& stats) const {
    stats.srtt = m_rtt.srtt();
    stats.rttvar = m_rtt.rttvar();
    stats.safe_rtt = m_rtt.safe();
    stats.clock_offset = m_sync.offset();
    const Micros now = m_clock.now_us();
    stats.one_way_up = m_trips.worst_up(now);
    stats.one_way_down = m_trips.worst_down(now);
    stats.path_floor = m_path_floor;
    stats.updates_received = m_update_loss.received();
    stats.updates_lost = m_update_loss.lost();
    stats.copies_sent = m_copies_sent;
    stats.updates_redundant = m_updates_redundant;
    stats.traffic = m_transport.stats(m_server);
}

}  // namespace framelock::netplay
