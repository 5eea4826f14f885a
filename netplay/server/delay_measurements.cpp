// The input delay's measurements: the server's own round trips, the clients' reports checked
// against them, when a frame's input was sampled, loss and redundancy, and clients' clocks.
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

void Server::note_clock(Slot& slot, int slot_number, Micros client_us, Micros now) {
    // A state on its way to or from the client delays what it sends: the measurement starts
    // again after the transfer.
    if (m_transfers.busy(slot.transfer, slot_number) || slot.awaiting_state())
        slot.clock.restart_window();
    const ClockCheck::Verdict verdict = slot.clock.add(now, client_us);
    if (verdict == ClockCheck::Verdict::kIgnored) return;
    if (verdict != ClockCheck::Verdict::kTaken) {
        // Reported once: a client whose clock is broken would otherwise fill the log.
        if (!slot.clock_refusal_reported) {
            slot.clock_refusal_reported = true;
            emit({ServerEvent::Type::kRefused, slot_number, m_book.confirmed_end(), 0, 0,
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
    if (!off || slot.named_off_pace || slot_number == 0 || !m_roster.started() ||
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
    emit({ServerEvent::Type::kOffPace, slot_number, m_book.confirmed_end(), 0, 0, text});
    if (m_config.kick_off_pace)
        drop(slot_number, ByeReason::kRejected,
             std::string(text) + "; removed (--kick-speed-hack)");
}

Micros Server::srtt_worst() const {
    Micros worst = 0;
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_roster.player(s + 1);
        if (slot.in_session() && !slot.away()) worst = std::max(worst, slot.rtt.srtt());
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
        const Slot& slot = m_roster.player(s + 1);
        if (slot.in_session()) worst = std::max(worst, slot.rtt.srtt() + slot.rtt.rttvar());
    }
    return worst;
}

int Server::estimate_path_floor() const {
    const Micros now = m_clock.now_us();
    Micros worst = 0;
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& slot = m_roster.player(s + 1);
        if (!slot.active()) continue;
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

void Server::note_echo(Slot& slot, int slot_number, const ClientInput& input) {
    if (input.echo_hold_10us == kEchoHoldUnknown) return;
    slot.update_echoed[input.echo_seq] = true;
    // A state on its way fills the link: echoes queued behind it measure the transfer, not
    // the path the first delay must cover.
    if (!m_roster.started() && m_transfers.busy(slot.transfer, slot_number)) return;
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
    const ConfirmationLog& confirmations = m_book.confirmations();
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

void Server::note_uplink(Slot& slot, std::uint32_t from, std::uint32_t end, Micros now) {
    for (std::uint32_t f = from; Frame(f) < Frame(end); ++f) {
        // How long after its scheduled sampling this input arrived: the client's uplink
        // (plus its clock's offset error, which its downlink reports carry the other way).
        const Micros up = now - m_schedule.sample_time(f);
        while (!slot.up_min.empty() && slot.up_min.back().second >= up) slot.up_min.pop_back();
        slot.up_min.emplace_back(now, up);
        while (slot.up_min.front().first < now - kCheckWindowUs) slot.up_min.pop_front();
    }
}

}  // namespace framelock::netplay
