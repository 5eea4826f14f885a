// The delay's measurements (delay_measurements.h): the server's own round trips, the
// clients' reports checked against them, loss and redundancy, the path floor, and clients'
// clocks.
#include "netplay/server/delay_measurements.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "netplay/server/server_tuning.h"
#include "netplay/timing/prediction_budget.h"

namespace framelock::netplay {

using namespace server_tuning;

namespace {
// Drops the entries of a (time, value) window older than kCheckWindowUs.
void prune(std::deque<std::pair<Micros, Micros>>& window, Micros now) {
    while (!window.empty() && window.front().first < now - kCheckWindowUs) window.pop_front();
}
}  // namespace

DelayMeasurements::DelayMeasurements(const ServerConfig& config, ServerEvents& events)
    : m_config(config), m_events(events), m_delay(config.delay) {}

void DelayMeasurements::new_link(LinkRecord& link) const {
    link = LinkRecord{};
    link.m_clock = link.m_input_pace = ClockCheck(m_config.clock_check);
}

void DelayMeasurements::new_connection(LinkRecord& link) const {
    link.m_last_update_sent = 0;
    link.m_next_update_seq = 0;
    link.m_update_frames.fill({0, 0});
    link.m_update_echoed.fill(false);
    link.m_up_lost_seen = link.m_down_lost_seen = 0;
    link.m_copy_at = -1;
    link.m_up_loss = LossCounter{};
    link.m_loss_seen_at = link.m_loss_gap = link.m_burst_seen_at = -1;
    link.m_last_client_seq_at = -1;
    link.m_updates_sent = 0;
    link.m_echo_newest = link.m_echo_hold = -1;
    link.m_client_srtt = link.m_client_rttvar = 0;
    link.m_clock = link.m_input_pace = ClockCheck(m_config.clock_check);  // a new process
    link.m_clock_refusal_reported = link.m_named_off_pace = link.m_pace_any = false;
}

bool DelayMeasurements::note_datagram(LinkRecord& link, int slot_number, const std::string& name,
                                      const ClientInput& input,
                                      std::optional<std::uint32_t> ack_end, Micros now,
                                      bool transfer_on_link) {
    ++link.m_datagrams;
    const bool newest = link.m_up_loss.record(input.seq);
    if (link.m_up_loss.lost() > link.m_up_lost_seen) {
        // Copies share their datagram's seq: two in a row missing while copies were on lost
        // every copy of both, which independent losses do not do (at 2 %, both copies of one
        // datagram once in 2,500; of two in a row, once in six million) and a burst does.
        if (redundant(link, now) && link.m_up_loss.lost() - link.m_up_lost_seen >= 2)
            link.m_burst_seen_at = now;
        note_loss(link, now);
    }
    link.m_up_lost_seen = link.m_up_loss.lost();
    if (newest) {
        const Micros previous_at = link.m_last_client_seq_at;
        link.m_last_client_seq = input.seq;
        link.m_last_client_seq_at = now;
        note_echo(link, slot_number, name, input, ack_end, now, previous_at, transfer_on_link);
    }
    return newest;
}

int DelayMeasurements::first_carrier(const LinkRecord& link, std::uint32_t frame) {
    // The updates carrying a frame are consecutive (each carries everything the client has
    // not acknowledged), newer ones stop once it is acknowledged.
    int first = -1;
    const auto reach = static_cast<int>(
        std::min<std::uint64_t>(link.m_updates_sent, static_cast<std::uint64_t>(kEchoLookback)));
    for (int back = 0; back < reach; ++back) {
        const auto seq = static_cast<std::uint8_t>(link.m_next_update_seq - 1 - back);
        const auto& [begin, end] = link.m_update_frames[seq];
        if (Frame(begin) <= Frame(frame) && Frame(frame) < Frame(end))
            first = back;
        else if (first >= 0)
            break;
    }
    return first;
}

void DelayMeasurements::note_echo(LinkRecord& link, int slot_number, const std::string& name,
                                  const ClientInput& input, std::optional<std::uint32_t> ack_end,
                                  Micros now, Micros previous_at, bool transfer_on_link) {
    const Micros prior_hold = link.m_echo_hold;
    link.m_echo_hold = -1;
    if (input.echo_hold_10us == kEchoHoldUnknown) return;
    // The round trip is the server's own send and arrival times; the client says only which
    // update it answers and how long it held it, and both must fit what the server saw. An
    // honest client echoes the newest update it holds, which carried the newest frame it
    // acknowledges, and held it since its previous datagram at most.
    const Micros hold = static_cast<Micros>(input.echo_hold_10us) * 10;
    const int age = static_cast<std::uint8_t>(link.m_next_update_seq - 1 - input.echo_seq);
    const std::int64_t echoed = static_cast<std::int64_t>(link.m_updates_sent) - 1 - age;
    const Micros sent = link.m_update_sent_at[input.echo_seq];
    const bool repeat = echoed == link.m_echo_newest;
    prune(link.m_up_min, now);
    prune(link.m_up_max, now);
    // How much sooner this datagram may have left than its arrival gap says: the uplink's
    // spread lately, and at least half the round trip (the spread of a handful of inputs
    // after the start says little yet). A client that claims holds this much too long only
    // makes its own round trip seem shorter.
    const Micros spread = std::max(!link.m_up_min.empty() && !link.m_up_max.empty()
                                       ? link.m_up_max.front().second - link.m_up_min.front().second
                                       : Micros{0},
                                   link.m_rtt.srtt() / 2);
    const char* refused = nullptr;
    if (age >= kEchoLookback || echoed < 0) {
        refused = "an update the server did not send it lately";
    } else if (echoed < link.m_echo_newest) {
        refused = "an update older than one it echoed before";
    } else if (const int carrier = ack_end && Frame(*ack_end) > Frame(m_start_confirmed)
                                       ? first_carrier(link, *ack_end - 1)
                                       : -1;
               carrier >= 0 && age > carrier) {
        refused = "an update older than the frames it acknowledges";
    } else if (hold > now - sent) {
        refused = "a hold longer than since the update went out";
    } else if (previous_at >= 0 && (!repeat || prior_hold >= 0) &&
               hold > (repeat ? prior_hold : 0) + (now - previous_at) + spread + kCheckSlackUs) {
        refused = "a hold longer than since its previous datagram";
    }
    if (refused) {
        ++link.m_echoes_refused;
        name_refusal(link.m_echo_named_at, slot_number, ack_end.value_or(0), now,
                     name + "'s datagrams echo " + refused +
                         ": its round trips are refused (a modified client?)",
                     link.m_echoes_refused);
        return;
    }
    link.m_echo_newest = echoed;
    link.m_echo_hold = hold;
    link.m_update_echoed[input.echo_seq] = true;
    // A state on its way fills the link: echoes queued behind it measure the transfer, not
    // the path the first delay must cover.
    if (transfer_on_link) return;
    const Micros rtt = now - sent - hold;
    if (rtt > 10'000'000) return;
    link.m_rtt.add_sample(rtt);
    while (!link.m_rtt_max.empty() && link.m_rtt_max.back().second <= rtt)
        link.m_rtt_max.pop_back();
    link.m_rtt_max.emplace_back(now, rtt);
    while (!link.m_rtt_min.empty() && link.m_rtt_min.back().second >= rtt)
        link.m_rtt_min.pop_back();
    link.m_rtt_min.emplace_back(now, rtt);
    prune(link.m_rtt_min, now);
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

void DelayMeasurements::note_report(LinkRecord& link, int slot_number, const std::string& name,
                                    const ClientInput& input, std::uint32_t ack_end,
                                    const ConfirmationLog& confirmations, Micros now) {
    // The report covers the frames this client received since its previous datagram. The
    // server checks it against what it measured itself: how late after their sampling those
    // frames were confirmed, plus the client's downlink, which cannot exceed the client's
    // round trip less its fastest uplink (offset errors of the client's clock cancel).
    const Micros reported = static_cast<Micros>(input.latency_100us) * 100;
    prune(link.m_rtt_max, now);
    prune(link.m_up_min, now);
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
        // Named once they are not the odd one (an honest client's are a few in thousands).
        if (++link.m_reports_inflated >= kNameInflatedReports &&
            link.m_reports_inflated * 100 > link.m_reports_used + link.m_reports_inflated)
            name_refusal(link.m_report_named_at, slot_number, ack_end, now,
                         name +
                             "'s round-trip reports exceed what the server measured of its "
                             "link: they are refused (a modified client?)",
                         link.m_reports_inflated);
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

bool DelayMeasurements::hiccup(LinkRecord& link, int slot_number, const std::string& name,
                               const ClientInput& input, std::uint32_t first,
                               std::uint32_t new_from, const DelaySchedule& schedule, Micros now) {
    if (input.late_ms < kStalledMs) return false;
    // Only the inputs it adds can have held a frame up; the oldest of them waited longest.
    const auto count = static_cast<std::int32_t>(input.inputs.size());
    if (!(Frame(first) <= Frame(new_from) && Frame(new_from) < Frame(first) + count)) return false;
    prune(link.m_up_min, now);
    prune(link.m_up_max, now);
    if (link.m_up_min.empty() || link.m_up_max.empty()) return false;  // nothing to check yet
    // A process late by L sampled L late, so its input arrived at least L after this link's
    // fastest: one that came sooner contradicts the claim.
    const Micros up = std::max<Micros>(0, now - schedule.sample_time(new_from));
    const Micros late = static_cast<Micros>(input.late_ms) * 1000;
    if (up + kHiccupSlackUs < link.m_up_min.front().second + late) {
        ++link.m_hiccups_refused;
        name_refusal(
            link.m_hiccup_named_at, slot_number, new_from, now,
            name + " says its process sampled " + std::to_string(input.late_ms) +
                " ms late, but the input came " +
                std::to_string(std::max<Micros>(0, up - link.m_up_min.front().second) / 1000) +
                " ms after its link's fastest lately: the hiccup is refused, the frames "
                "count (a modified client?)",
            link.m_hiccups_refused);
        return false;
    }
    // Within what the network itself did lately, the lateness may as well be the network's.
    return up > link.m_up_max.front().second + kHiccupSlackUs;
}

void DelayMeasurements::note_uplink(LinkRecord& link, std::uint32_t from, std::uint32_t end,
                                    const DelaySchedule& schedule, Micros now) {
    for (std::uint32_t f = from; Frame(f) < Frame(end); ++f) {
        // How long after its scheduled sampling this input arrived: the client's uplink
        // (plus its clock's offset error, which its downlink reports carry the other way). An
        // input that came before its sampling says the client's clock runs ahead: it counts
        // as on time, so it cannot widen the allowance for the client's reports.
        const Micros up = std::max<Micros>(0, now - schedule.sample_time(f));
        while (!link.m_up_min.empty() && link.m_up_min.back().second >= up)
            link.m_up_min.pop_back();
        link.m_up_min.emplace_back(now, up);
        while (!link.m_up_max.empty() && link.m_up_max.back().second <= up)
            link.m_up_max.pop_back();
        link.m_up_max.emplace_back(now, up);
    }
    prune(link.m_up_min, now);
    prune(link.m_up_max, now);
}

void DelayMeasurements::name_refusal(Micros& named_at, int slot_number, std::uint32_t frame,
                                     Micros now, std::string what, std::uint64_t count) {
    if ((named_at >= 0 && now - named_at < kNameRefusalsUs) || !m_events.room()) return;
    named_at = now;
    what += " [" + std::to_string(count) +
            " refused so far; more are counted, and named again a minute after this at the "
            "earliest]";
    m_events.emit({ServerEvent::Type::kRefused, slot_number, frame, 0, 0, std::move(what)});
}

std::optional<std::string> DelayMeasurements::note_stats(LinkRecord& link, int slot_number,
                                                         const std::string& name,
                                                         const ClientStats& stats, Micros now,
                                                         bool transfer_on_link, bool started,
                                                         std::uint32_t confirmed_end) {
    link.m_frames_run = stats.frames_run;
    link.m_stall_frames = stats.stall_frames;
    link.m_down_loss_permille = stats.down_loss_permille;
    link.m_rerun_frame_us = stats.rerun_frame_us;
    link.m_client_srtt = static_cast<Micros>(stats.srtt_100us) * 100;
    link.m_client_rttvar = static_cast<Micros>(stats.rttvar_100us) * 100;
    if (stats.up_100us || stats.down_100us) {
        link.m_client_up = static_cast<Micros>(stats.up_100us) * 100;
        link.m_client_down = static_cast<Micros>(stats.down_100us) * 100;
        link.m_client_trips_at = now;
    }
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
    return name_off_pace(link, slot_number, name, started, confirmed_end);
}

std::optional<std::string> DelayMeasurements::note_pace(
    LinkRecord& link, int slot_number, const std::string& name, const ClientInput& input,
    std::uint32_t first, const DelaySchedule& schedule, Micros now, std::uint32_t confirmed_end) {
    if (input.inputs.empty() || slot_number == 0) return std::nullopt;
    const std::uint32_t newest = first + static_cast<std::uint32_t>(input.inputs.size()) - 1;
    if (link.m_pace_any && !(Frame(newest) > Frame(link.m_pace_frame))) return std::nullopt;
    link.m_pace_any = true;
    link.m_pace_frame = newest;
    // The newest input was sampled when the client's timeline reached its frame's sampling: a
    // reading of the client's clock that it cannot fake without sending its inputs at that
    // pace (the clock readings of ClientStats it can).
    if (link.m_input_pace.add(now, schedule.sample_time(newest)) != ClockCheck::Verdict::kTaken)
        return std::nullopt;
    return name_off_pace(link, slot_number, name, true, confirmed_end);
}

std::optional<std::string> DelayMeasurements::name_off_pace(LinkRecord& link, int slot_number,
                                                            const std::string& name, bool started,
                                                            std::uint32_t confirmed_end) {
    const bool clock = link.m_clock.off_pace(), inputs = link.m_input_pace.off_pace();
    if (!clock && !inputs) link.m_named_off_pace = false;
    if ((!clock && !inputs) || link.m_named_off_pace || slot_number == 0 || !started ||
        m_config.mode != SessionMode::kNoWait)
        return std::nullopt;
    // In no-wait mode the server's clock decides when an input applies: a client running
    // fast samples its pad early, and its inputs beat the others'.
    link.m_named_off_pace = true;
    const double error = (clock ? link.m_clock : link.m_input_pace).rate_error().value_or(0);
    char text[240];
    std::snprintf(text, sizeof text,
                  clock ? "%s's clock runs %.1f %% %s than the server's (over %.0f s): a speed "
                          "hack or a broken clock"
                        : "%s's inputs come %.1f %% %s than the server's clock (over %.0f s): a "
                          "speed hack (its clock readings say otherwise) or a broken clock",
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

std::uint8_t DelayMeasurements::copies(const LinkRecord& link, Micros now) const {
    if (!redundant(link, now)) return 1;
    const bool bursty = link.m_burst_seen_at >= 0 && now - link.m_burst_seen_at < kBurstMemoryUs;
    return bursty ? 3 : 2;
}

bool DelayMeasurements::redundant(const LinkRecord& link, Micros now) const {
    const bool lossy = link.m_loss_gap >= 0 && link.m_loss_gap < kLossyGapUs;
    const Micros memory = lossy ? kLossyMemoryUs : kLossMemoryUs;
    return link.m_loss_seen_at >= 0 && now - link.m_loss_seen_at < memory;
}

void DelayMeasurements::stamp(LinkRecord& link, ServerUpdate& update, Micros now) {
    update.seq = link.m_next_update_seq++;
    ++link.m_updates_sent;
    update.server_time = static_cast<std::uint32_t>(now);
    update.echo_seq = link.m_last_client_seq;
    update.echo_hold_10us = link.m_last_client_seq_at < 0
                                ? kEchoHoldUnknown
                                : static_cast<std::uint16_t>(std::clamp<Micros>(
                                      (now - link.m_last_client_seq_at) / 10, 0, kEchoHoldUnknown));
    update.copies = copies(link, now);
    update.path_floor =
        static_cast<std::uint8_t>(link.m_path_floor > 0 ? link.m_path_floor : m_path_floor);
}

void DelayMeasurements::sent(LinkRecord& link, const ServerUpdate& update,
                             std::pair<std::uint32_t, std::uint32_t> carried,
                             std::vector<std::uint8_t> bytes, Micros now) {
    link.m_update_sent_at[update.seq] = now;
    link.m_update_frames[update.seq] = carried;
    link.m_update_echoed[update.seq] = false;
    link.m_last_update_sent = now;
    // On a lossy link the same datagram goes again, copies - 1 times, at kCopyOffsetsUs after
    // it, unless a newer one replaces it first: a lost update then costs a couple of
    // milliseconds, and on a bursty link one lost in a burst half a frame, not a frame.
    link.m_copies = update.copies;
    if (update.copies > 1) {
        link.m_copy = std::move(bytes);
        link.m_copy_sent_at = now;
        link.m_copy_next = 0;
        link.m_copy_at = now + kCopyOffsetsUs[0];
    } else {
        link.m_copy_at = -1;
    }
}

const std::vector<std::uint8_t>* DelayMeasurements::due_copy(LinkRecord& link, Micros now) {
    if (link.m_copy_at < 0 || now < link.m_copy_at) return nullptr;
    link.m_copy_at = ++link.m_copy_next + 1 < link.m_copies
                         ? link.m_copy_sent_at + kCopyOffsetsUs[link.m_copy_next]
                         : -1;
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
    m_start_confirmed = confirmed_end;
    for (ServerSlot& slot : players) slot.link.m_report_from = confirmed_end;
}

Micros DelayMeasurements::shortest_worst(std::span<const ServerSlot> players, Micros now) const {
    Micros worst = 0;
    for (const ServerSlot& slot : players) {
        if (!slot.in_session() || slot.away()) continue;
        // The window's minimum is its front, once the expired ones are skipped.
        for (const auto& [at, rtt] : slot.link.m_rtt_min) {
            if (at >= now - kCheckWindowUs) {
                worst = std::max(worst, rtt);
                break;
            }
        }
    }
    return worst;
}

int DelayMeasurements::estimate_path_floor(std::span<ServerSlot> players, Micros now,
                                           FrameTime frame_time) const {
    if (!frame_time.known()) return 0;
    const auto frames = [&](Micros trip) {
        return static_cast<int>(std::clamp<std::int64_t>(frame_time.frames_covering(trip), 1, 255));
    };
    // Each player's one-way trips as it measured them (ClientStats, lately), each way no
    // longer than the round trip the server measured itself to it (the worst of the window):
    // a client's claim cannot raise another's floor beyond what its link does. Without them
    // (not reported yet), half the server's round trip each way.
    struct Trips {
        Micros up = 0, down = 0;
    };
    std::array<Trips, kMaxPlayers> trips{};
    Micros slowest_up = 0, worst_rtt = 0;
    for (std::size_t i = 0; i < players.size(); ++i) {
        const ServerSlot& slot = players[i];
        if (!slot.active()) continue;
        Micros rtt = 0;
        // The window's maximum is its front, once the expired ones are skipped.
        for (const auto& [at, r] : slot.link.m_rtt_max) {
            if (at >= now - kCheckWindowUs) {
                rtt = r;
                break;
            }
        }
        const LinkRecord& link = slot.link;
        Trips& t = trips[i];
        if (link.m_client_trips_at >= 0 && now - link.m_client_trips_at < kTripsFreshUs &&
            rtt > 0) {
            t.up = std::min(link.m_client_up, rtt);
            t.down = std::min(link.m_client_down, rtt);
        } else {
            t.up = rtt / 2;
            t.down = rtt - rtt / 2;
        }
        slowest_up = std::max(slowest_up, t.up);
        worst_rtt = std::max(worst_rtt, rtt);
    }
    if (worst_rtt <= 0) return 0;
    int floor = 0;
    for (std::size_t i = 0; i < players.size(); ++i) {
        if (!players[i].active()) continue;
        players[i].link.m_path_floor = frames(slowest_up + trips[i].down);
        floor = std::max(floor, players[i].link.m_path_floor);
    }
    return floor;
}

int DelayMeasurements::decide(Micros now, int current, std::span<ServerSlot> players,
                              FrameTime frame_time) {
    // Each player's own regime: one player's round trip moving (or a client making it seem to)
    // drops that player's reports only.
    for (std::size_t i = 0; i < players.size(); ++i) {
        if (players[i].in_session() && !players[i].away())
            m_delay.observe_srtt(static_cast<int>(i) + 1, players[i].link.m_rtt.srtt());
    }
    if (const int floor = estimate_path_floor(players, now, frame_time); floor > 0)
        m_path_floor = floor;
    if (m_delay.policy().hybrid) fit_prediction(players, frame_time);
    // Whatever the reports say (or leave out), never below the round trip the server measured
    // itself to the slowest player present: below its shortest lately, every frame stalls.
    const int measured = m_delay.frames_for(shortest_worst(players, now));
    return m_delay.decide(now, current, std::max(m_delay.target(now), measured));
}

void DelayMeasurements::fit_prediction(std::span<const ServerSlot> players, FrameTime frame_time) {
    Micros costliest = 0;
    int slowest = 0;
    for (std::size_t i = 0; i < players.size(); ++i) {
        const ServerSlot& slot = players[i];
        if (!slot.in_session() || slot.away() || slot.link.m_rerun_frame_us <= costliest) continue;
        costliest = slot.link.m_rerun_frame_us;
        slowest = static_cast<int>(i) + 1;
    }
    const Micros budget = correction_budget_us(frame_time);
    const int before = m_delay.predicted_frames();
    const int fit = predicted_frames_within(m_delay.policy().predicted_frames, costliest, budget);
    if (fit == before) return;
    m_delay.limit_prediction(fit);
    const std::string name =
        slowest > 0 ? players[static_cast<std::size_t>(slowest - 1)].name : std::string();
    m_events.emit({ServerEvent::Type::kPrediction, slowest, 0, 0, 0,
                   prediction_change(fit, before, m_delay.policy().predicted_frames, name,
                                     costliest, budget)});
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
    stats.one_way_up = link.m_client_trips_at >= 0 ? link.m_client_up : 0;
    stats.one_way_down = link.m_client_trips_at >= 0 ? link.m_client_down : 0;
    stats.path_floor = link.m_path_floor;
    stats.reports_used = link.m_reports_used;
    stats.reports_inflated = link.m_reports_inflated;
    stats.reports_hiccup = link.m_reports_hiccup;
    stats.echoes_refused = link.m_echoes_refused;
    stats.hiccups_refused = link.m_hiccups_refused;
    stats.redundant = redundant(link, now);
    stats.clock_rate_error = link.m_clock.rate_error();
    stats.clock_refused = link.m_clock.refused();
    stats.input_rate_error = link.m_input_pace.rate_error();
    stats.off_pace = link.m_clock.off_pace() || link.m_input_pace.off_pace();
}

}  // namespace framelock::netplay
