// The delay's measurements (delay_measurements.h): the server's own round trips, the
// clients' reports checked against them, loss and redundancy, the path floor, and clients'
// clocks.
#include "netplay/server/delay_measurements.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

using namespace server_tuning;

DelayMeasurements::DelayMeasurements(const ServerConfig& config, ServerEvents& events)
    : m_config(config), m_events(events), m_delay(config.delay) {}

void DelayMeasurements::new_link(LinkRecord& link) const {
    link = LinkRecord{};
    link.m_clock = ClockCheck(m_config.clock_check);
}

void DelayMeasurements::new_connection(LinkRecord& link) const {
    link.m_last_update_sent = 0;
    link.m_next_update_seq = 0;
    link.m_update_frames.fill({0, 0});
    link.m_update_echoed.fill(false);
    link.m_up_lost_seen = link.m_down_lost_seen = 0;
    link.m_copy_at = -1;
    link.m_up_loss = LossCounter{};
    link.m_loss_seen_at = link.m_loss_gap = -1;
    link.m_last_client_seq_at = -1;
    link.m_client_srtt = link.m_client_rttvar = 0;
    link.m_clock = ClockCheck(m_config.clock_check);  // a new process, a new clock
    link.m_clock_refusal_reported = link.m_named_off_pace = false;
}

bool DelayMeasurements::note_datagram(LinkRecord& link, const ClientInput& input, Micros now,
                                      bool transfer_on_link) {
    ++link.m_datagrams;
    const bool newest = link.m_up_loss.record(input.seq);
    if (link.m_up_loss.lost() > link.m_up_lost_seen) note_loss(link, now);
    link.m_up_lost_seen = link.m_up_loss.lost();
    if (newest) {
        link.m_last_client_seq = input.seq;
        link.m_last_client_seq_at = now;
        note_echo(link, input, now, transfer_on_link);
    }
    return newest;
}

void DelayMeasurements::note_echo(LinkRecord& link, const ClientInput& input, Micros now,
                                  bool transfer_on_link) {
    if (input.echo_hold_10us == kEchoHoldUnknown) return;
    link.m_update_echoed[input.echo_seq] = true;
    // A state on its way fills the link: echoes queued behind it measure the transfer, not
    // the path the first delay must cover.
    if (transfer_on_link) return;
    const Micros sent = link.m_update_sent_at[input.echo_seq];
    const Micros rtt = now - sent - static_cast<Micros>(input.echo_hold_10us) * 10;
    if (sent <= 0 || rtt < 0 || rtt > 10'000'000) return;
    link.m_rtt.add_sample(rtt);
    while (!link.m_rtt_max.empty() && link.m_rtt_max.back().second <= rtt)
        link.m_rtt_max.pop_back();
    link.m_rtt_max.emplace_back(now, rtt);
    while (link.m_rtt_max.front().first < now - kCheckWindowUs) link.m_rtt_max.pop_front();
}

Micros DelayMeasurements::resend_gap(const LinkRecord& link, std::uint32_t frame) {
    // The updates carrying a frame are consecutive (each carries everything the client has
    // not acknowledged): walking back from the newest, the last two seen are the first two.
    // The client echoes the newest update it holds with each datagram, so an honest client
    // that got the first one almost always echoed it; one that hides its echoes gains at
    // most an update's interval.
    int first = -1, second = -1;  // how far back
    bool past_first = false;
    for (int back = 1; back <= kResendLookback && !past_first; ++back) {
        const auto seq = static_cast<std::uint8_t>(link.m_next_update_seq - back);
        const auto& [begin, end] = link.m_update_frames[seq];
        const bool carried = Frame(begin) <= Frame(frame) && Frame(frame) < Frame(end);
        if (carried) {
            second = first;
            first = back;
        } else {
            past_first = first >= 0;
        }
    }
    if (!past_first || second < 0) return 0;  // no second update, or the first out of reach
    const auto first_seq = static_cast<std::uint8_t>(link.m_next_update_seq - first);
    const auto second_seq = static_cast<std::uint8_t>(link.m_next_update_seq - second);
    if (link.m_update_echoed[first_seq]) return 0;
    return link.m_update_sent_at[second_seq] - link.m_update_sent_at[first_seq];
}

void DelayMeasurements::note_report(LinkRecord& link, int slot_number, const ClientInput& input,
                                    std::uint32_t ack_end, const ConfirmationLog& confirmations,
                                    Micros now) {
    // The report covers the frames this client received since its previous datagram. The
    // server checks it against what it measured itself: how late after their sampling those
    // frames were confirmed, plus the client's downlink, which cannot exceed the client's
    // round trip less its fastest uplink (offset errors of the client's clock cancel).
    const Micros reported = static_cast<Micros>(input.latency_100us) * 100;
    while (!link.m_rtt_max.empty() && link.m_rtt_max.front().first < now - kCheckWindowUs)
        link.m_rtt_max.pop_front();
    while (!link.m_up_min.empty() && link.m_up_min.front().first < now - kCheckWindowUs)
        link.m_up_min.pop_front();
    if (link.m_rtt_max.empty() || link.m_up_min.empty()) return;  // nothing to check it against
    const std::uint32_t from = link.m_report_from;
    if (!(Frame(from) < Frame(ack_end)) || !confirmations.find(from) ||
        !confirmations.find(ack_end - 1))
        return;
    // A frame whose first update was lost (both copies) reached the client with the next
    // update that carried it: that wait is the network's too (a stall the delay must see),
    // and the server knows its length.
    Micros confirmed_late = 0;
    for (std::uint32_t f = from; Frame(f) < Frame(ack_end); ++f) {
        const Confirmation& info = *confirmations.find(f);
        if (info.stalled) {
            ++link.m_reports_hiccup;
            return;
        }
        confirmed_late = std::max(confirmed_late, info.lateness + resend_gap(link, f));
    }
    const Micros bound = confirmed_late + link.m_rtt_max.front().second -
                         link.m_up_min.front().second + kCheckSlackUs;
    if (reported > bound) {
        ++link.m_reports_inflated;
        return;
    }
    ++link.m_reports_used;
    m_delay.add_round_trip(now, slot_number, reported);
}

void DelayMeasurements::note_acked(LinkRecord& link, std::uint32_t ack_end,
                                   std::uint32_t confirmed_end) {
    if (Frame(ack_end) <= Frame(confirmed_end) && Frame(ack_end) > Frame(link.m_report_from))
        link.m_report_from = ack_end;
}

bool DelayMeasurements::stalled(const ClientInput& input) {
    return input.late_ms >= kStalledMs;
}

void DelayMeasurements::note_uplink(LinkRecord& link, std::uint32_t from, std::uint32_t end,
                                    const DelaySchedule& schedule, Micros now) {
    for (std::uint32_t f = from; Frame(f) < Frame(end); ++f) {
        // How long after its scheduled sampling this input arrived: the client's uplink
        // (plus its clock's offset error, which its downlink reports carry the other way).
        const Micros up = now - schedule.sample_time(f);
        while (!link.m_up_min.empty() && link.m_up_min.back().second >= up)
            link.m_up_min.pop_back();
        link.m_up_min.emplace_back(now, up);
        while (link.m_up_min.front().first < now - kCheckWindowUs) link.m_up_min.pop_front();
    }
}

std::optional<std::string> DelayMeasurements::note_stats(LinkRecord& link, int slot_number,
                                                         const std::string& name,
                                                         const ClientStats& stats, Micros now,
                                                         bool transfer_on_link, bool started,
                                                         std::uint32_t confirmed_end) {
    link.m_frames_run = stats.frames_run;
    link.m_stall_frames = stats.stall_frames;
    link.m_down_loss_permille = stats.down_loss_permille;
    link.m_client_srtt = static_cast<Micros>(stats.srtt_100us) * 100;
    link.m_client_rttvar = static_cast<Micros>(stats.rttvar_100us) * 100;
    if (stats.down_lost > link.m_down_lost_seen) note_loss(link, now);
    link.m_down_lost_seen = stats.down_lost;
    // The clock reading (clock_check.h). A state on its way to or from the client delays what
    // it sends: the measurement starts again after the transfer.
    const Micros client_us = stats.clock_us;
    if (transfer_on_link) link.m_clock.restart_window();
    const ClockCheck::Verdict verdict = link.m_clock.add(now, client_us);
    if (verdict == ClockCheck::Verdict::kIgnored) return std::nullopt;
    if (verdict != ClockCheck::Verdict::kTaken) {
        // Reported once: a client whose clock is broken would otherwise fill the log.
        if (!link.m_clock_refusal_reported) {
            link.m_clock_refusal_reported = true;
            m_events.emit({ServerEvent::Type::kRefused, slot_number, confirmed_end, 0, 0,
                           name +
                               (verdict == ClockCheck::Verdict::kBackwards
                                    ? "'s clock went backwards"
                                    : "'s clock is " +
                                          std::to_string(std::llabs(client_us - now) / 1'000'000) +
                                          " s away from the server's") +
                               ": the reading is refused (further refusals are only counted)"});
        }
        return std::nullopt;
    }
    const bool off = link.m_clock.off_pace();
    if (!off) link.m_named_off_pace = false;
    if (!off || link.m_named_off_pace || slot_number == 0 || !started ||
        m_config.mode != SessionMode::kNoWait)
        return std::nullopt;
    // In no-wait mode the server's clock decides when an input applies: a client running
    // fast samples its pad early, and its inputs beat the others'.
    link.m_named_off_pace = true;
    const double error = link.m_clock.rate_error().value_or(0);
    char text[200];
    std::snprintf(text, sizeof text,
                  "%s's clock runs %.1f %% %s than the server's (over %.0f s): a speed hack or a "
                  "broken clock",
                  name.c_str(), std::abs(error) * 100, error > 0 ? "faster" : "slower",
                  m_config.clock_check.window_us / 1e6);
    m_events.emit({ServerEvent::Type::kOffPace, slot_number, confirmed_end, 0, 0, text});
    if (!m_config.kick_off_pace) return std::nullopt;
    return std::string(text) + "; removed (--kick-speed-hack)";
}

void DelayMeasurements::note_loss(LinkRecord& link, Micros now) {
    if (link.m_loss_seen_at >= 0 && now - link.m_loss_seen_at >= kLossEventUs)
        link.m_loss_gap = now - link.m_loss_seen_at;  // a new event
    link.m_loss_seen_at = now;
}

bool DelayMeasurements::redundant(const LinkRecord& link, Micros now) const {
    const bool lossy = link.m_loss_gap >= 0 && link.m_loss_gap < kLossyGapUs;
    const Micros memory = lossy ? kLossyMemoryUs : kLossMemoryUs;
    return link.m_loss_seen_at >= 0 && now - link.m_loss_seen_at < memory;
}

void DelayMeasurements::stamp(LinkRecord& link, ServerUpdate& update, Micros now) {
    update.seq = link.m_next_update_seq++;
    update.server_time = static_cast<std::uint32_t>(now);
    update.echo_seq = link.m_last_client_seq;
    update.echo_hold_10us = link.m_last_client_seq_at < 0
                                ? kEchoHoldUnknown
                                : static_cast<std::uint16_t>(std::clamp<Micros>(
                                      (now - link.m_last_client_seq_at) / 10, 0, kEchoHoldUnknown));
    update.copies = redundant(link, now) ? 2 : 1;
    update.path_floor = static_cast<std::uint8_t>(m_path_floor);
}

void DelayMeasurements::sent(LinkRecord& link, const ServerUpdate& update,
                             std::pair<std::uint32_t, std::uint32_t> carried,
                             std::vector<std::uint8_t> bytes, Micros now) {
    link.m_update_sent_at[update.seq] = now;
    link.m_update_frames[update.seq] = carried;
    link.m_update_echoed[update.seq] = false;
    link.m_last_update_sent = now;
    // On a lossy link the same datagram goes again a moment later, unless a newer one
    // replaces it first: a lost update then costs a couple of milliseconds, not a frame.
    if (update.copies > 1) {
        link.m_copy = std::move(bytes);
        link.m_copy_at = now + kCopySpacingUs;
    } else {
        link.m_copy_at = -1;
    }
}

const std::vector<std::uint8_t>* DelayMeasurements::due_copy(LinkRecord& link, Micros now) {
    if (link.m_copy_at < 0 || now < link.m_copy_at) return nullptr;
    link.m_copy_at = -1;
    return &link.m_copy;
}

Micros DelayMeasurements::lobby_period(const LinkRecord& link) const {
    return link.m_rtt.samples() < kStartRttSamples ? kLobbyMeasureUs : kLobbyHeartbeatUs;
}

bool DelayMeasurements::measured(std::span<const ServerSlot> players) const {
    // Wait (briefly) until every client has measured its round trip: the first delay
    // should already fit the network.
    bool all_measured = true;
    for (const ServerSlot& slot : players)
        all_measured &= !slot.taken() || slot.link.m_rtt.samples() >= kStartRttSamples;
    return all_measured;
}

Micros DelayMeasurements::safe_rtt_worst(std::span<const ServerSlot> players) const {
    // The handshake's few samples (kStartRttSamples): SRTT plus one deviation. RFC 6298 starts
    // the deviation at half the first sample, so after a handful it still covers jitter
    // generously; the usual four deviations would start a 80 ms session three frames above
    // its floor.
    Micros worst = 0;
    for (const ServerSlot& slot : players) {
        if (slot.in_session())
            worst = std::max(worst, slot.link.m_rtt.srtt() + slot.link.m_rtt.rttvar());
    }
    return worst;
}

void DelayMeasurements::start(std::span<ServerSlot> players, std::uint32_t confirmed_end) {
    for (ServerSlot& slot : players) slot.link.m_report_from = confirmed_end;
}

Micros DelayMeasurements::srtt_worst(std::span<const ServerSlot> players) const {
    Micros worst = 0;
    for (const ServerSlot& slot : players) {
        if (slot.in_session() && !slot.away()) worst = std::max(worst, slot.link.m_rtt.srtt());
    }
    return worst;
}

int DelayMeasurements::estimate_path_floor(std::span<const ServerSlot> players, Micros now,
                                           FrameTime frame_time) const {
    Micros worst = 0;
    for (const ServerSlot& slot : players) {
        if (!slot.active()) continue;
        // The window's maximum is its front, once the expired ones are skipped.
        for (const auto& [at, rtt] : slot.link.m_rtt_max) {
            if (at >= now - kCheckWindowUs) {
                worst = std::max(worst, rtt);
                break;
            }
        }
    }
    if (worst <= 0 || !frame_time.known()) return 0;
    return static_cast<int>(std::clamp<std::int64_t>(frame_time.frames_covering(worst), 1, 255));
}

int DelayMeasurements::decide(Micros now, int current, std::span<const ServerSlot> players,
                              FrameTime frame_time) {
    // Each player's own regime: one player's round trip moving (or a client making it seem to)
    // drops that player's reports only.
    for (std::size_t i = 0; i < players.size(); ++i) {
        if (players[i].in_session() && !players[i].away())
            m_delay.observe_srtt(static_cast<int>(i) + 1, players[i].link.m_rtt.srtt());
    }
    if (const int floor = estimate_path_floor(players, now, frame_time); floor > 0)
        m_path_floor = floor;
    // Whatever the reports say (or leave out), never below the round trip the server measured
    // itself to the slowest player present: every frame's input needs it.
    const int measured = m_delay.frames_for(srtt_worst(players));
    return m_delay.decide(now, current, std::max(m_delay.target(now), measured));
}

void DelayMeasurements::fill(const LinkRecord& link, SlotStats& stats, Micros now) const {
    stats.srtt = link.m_client_srtt;
    stats.rttvar = link.m_client_rttvar;
    stats.safe_rtt = link.m_client_srtt + 4 * link.m_client_rttvar;
    stats.frames_run = link.m_frames_run;
    stats.stall_frames = link.m_stall_frames;
    stats.datagrams_received = link.m_datagrams;
    stats.datagrams_lost_up = link.m_up_loss.lost();
    stats.server_srtt = link.m_rtt.srtt();
    stats.server_rttvar = link.m_rtt.rttvar();
    stats.reports_used = link.m_reports_used;
    stats.reports_inflated = link.m_reports_inflated;
    stats.reports_hiccup = link.m_reports_hiccup;
    stats.redundant = redundant(link, now);
    stats.clock_rate_error = link.m_clock.rate_error();
    stats.clock_refused = link.m_clock.refused();
    stats.off_pace = link.m_clock.off_pace();
}

}  // namespace framelock::netplay
