#include "frontend/session/session_summary.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace framelock::frontend {
namespace {

using Json = nlohmann::ordered_json;

Json traffic_json(const netplay::PeerStats& s) {
    return {{"wire_bytes_sent", s.wire_bytes_sent},
            {"wire_bytes_received", s.wire_bytes_received},
            {"datagrams_sent", s.datagrams_sent},
            {"datagrams_received", s.datagrams_received},
            {"payload_bytes_sent", s.payload_bytes_sent},
            {"payload_bytes_received", s.payload_bytes_received},
            {"altered", s.altered},
            {"replayed", s.replayed}};
}

// How late, on average, a frame ran after its scheduled time: with the delay, the
// input-to-screen lag a player feels.
double mean_lateness_ms(const netplay::ClientStatsSnapshot& stats) {
    return stats.frames_run ? static_cast<double>(stats.lateness_total_us) / stats.frames_run / 1e3
                            : 0.0;
}

}  // namespace

TrafficRates traffic_rates(const netplay::PeerStats& start, const netplay::PeerStats& end,
                           double interval_s) {
    if (interval_s <= 0) return {};
    const auto rate = [interval_s](std::uint64_t from, std::uint64_t to) {
        return static_cast<double>(to - from) / interval_s;
    };
    return {rate(start.wire_bytes_sent, end.wire_bytes_sent),
            rate(start.wire_bytes_received, end.wire_bytes_received),
            rate(start.datagrams_sent, end.datagrams_sent),
            rate(start.datagrams_received, end.datagrams_received),
            rate(start.payload_bytes_sent, end.payload_bytes_sent),
            rate(start.payload_bytes_received, end.payload_bytes_received)};
}

void print_server_summary(std::FILE* out, const std::vector<ServerSessionSummary>& sessions) {
    for (const auto& s : sessions) {
        fmt::print(out, "session  port {}: {}, {} frames confirmed\n", s.port,
                   !s.started ? "never started"
                   : s.ended  ? "ended"
                              : "still running at exit",
                   s.confirmed_frames);
        fmt::print(out, "mode     {}{}\n", s.mode,
                   s.mode_reason.empty() ? "" : " (" + s.mode_reason + ")");
        if (!s.schedule.empty()) {
            std::string delays;
            for (const auto& entry : s.schedule)
                delays +=
                    fmt::format("{}{}@{}", delays.empty() ? "" : ", ", entry.delay, entry.frame);
            fmt::print(out, "delay    {} (frames@from frame)\n", delays);
        }
        for (const auto& slot : s.slots) {
            fmt::print(out,
                       "slot {}   {}: {} frames, {} stall frames, RTT {:.1f} ms, {} datagrams "
                       "({} lost up), {} malformed, {} altered, {} replayed, {}\n",
                       slot.slot, slot.name, slot.frames_run, slot.stall_frames, slot.srtt / 1000.0,
                       slot.datagrams_received, slot.datagrams_lost_up, slot.malformed,
                       slot.traffic.altered, slot.traffic.replayed,
                       slot.connected ? "connected" : "left");
        }
        fmt::print(
            out, "traffic  {} B sent, {} B received (wire); {} refused, {} malformed, {} desyncs\n",
            s.host_traffic.wire_bytes_sent, s.host_traffic.wire_bytes_received, s.rejected,
            s.malformed, s.desyncs);
        if (s.half_open_refused + s.half_open_closed > 0)
            fmt::print(out,
                       "floods   {} connection requests dropped unread, {} connections closed "
                       "before their Hello\n",
                       s.half_open_refused, s.half_open_closed);
    }
}

std::string server_summary_json(const std::vector<ServerSessionSummary>& sessions) {
    Json list = Json::array();
    for (const auto& s : sessions) {
        Json schedule = Json::array();
        const auto& changes = s.schedule;
        int min_delay = 0, max_delay = 0;
        for (std::size_t i = 0; i < changes.size(); ++i) {
            schedule.push_back({{"frame", changes[i].frame}, {"delay", changes[i].delay}});
            min_delay = i == 0 ? changes[i].delay : std::min<int>(min_delay, changes[i].delay);
            max_delay = std::max<int>(max_delay, changes[i].delay);
        }
        Json slots = Json::array();
        for (const auto& slot : s.slots) {
            slots.push_back(
                {{"slot", slot.slot},
                 {"name", slot.name},
                 {"connected", slot.connected},
                 {"srtt_us", slot.srtt},
                 {"rttvar_us", slot.rttvar},
                 {"frames_run", slot.frames_run},
                 {"stall_frames", slot.stall_frames},
                 {"datagrams_received", slot.datagrams_received},
                 {"datagrams_lost_up", slot.datagrams_lost_up},
                 {"malformed", slot.malformed},
                 {"states_refused", slot.states_refused},
                 {"server_srtt_us", slot.server_srtt},
                 {"server_rttvar_us", slot.server_rttvar},
                 {"path_floor", slot.path_floor},
                 {"one_way_us", {{"up", slot.one_way_up}, {"down", slot.one_way_down}}},
                 {"round_trip_reports",
                  {{"used", slot.reports_used},
                   {"inflated", slot.reports_inflated},
                   {"hiccup", slot.reports_hiccup}}},
                 {"claims_refused",
                  {{"echoes", slot.echoes_refused}, {"hiccups", slot.hiccups_refused}}},
                 {"redundant", slot.redundant},
                 {"clock",
                  {{"rate_error",
                    slot.clock_rate_error ? Json(*slot.clock_rate_error) : Json(nullptr)},
                   {"refused", slot.clock_refused},
                   {"input_rate_error",
                    slot.input_rate_error ? Json(*slot.input_rate_error) : Json(nullptr)},
                   {"off_pace", slot.off_pace}}},
                 {"traffic", traffic_json(slot.traffic)}});
        }
        list.push_back({{"port", s.port},
                        {"players", s.players},
                        {"mode", s.mode},
                        {"mode_reason", s.mode_reason},
                        {"started", s.started},
                        {"ended", s.ended},
                        {"confirmed_frames", s.confirmed_frames},
                        {"delay",
                         {{"initial", changes.empty() ? 0 : changes.front().delay},
                          {"min", min_delay},
                          {"max", max_delay},
                          {"final", changes.empty() ? 0 : changes.back().delay},
                          {"changes", changes.empty() ? 0 : changes.size() - 1},
                          {"path_floor", s.path_floor},
                          {"predicted_frames", s.predicted_frames}}},
                        {"schedule", schedule},
                        {"keyframes", s.keyframes},
                        {"slots", slots},
                        {"rejected", s.rejected},
                        {"off_pace", s.off_pace},
                        {"malformed", s.malformed},
                        {"desyncs", s.desyncs},
                        {"half_open_refused", s.half_open_refused},
                        {"half_open_closed", s.half_open_closed},
                        {"games", s.games},
                        {"traffic", traffic_json(s.host_traffic)}});
    }
    return Json{{"sessions", list}}.dump(2) + "\n";
}

void print_client_summary(std::FILE* out, const ClientRunSummary& s) {
    if (s.spectator)
        fmt::print(out, "slot       spectator ({} player{})\n", s.players,
                   s.players == 1 ? "" : "s");
    else
        fmt::print(out, "slot       {} of {}\n", s.slot, s.players);
    if (s.late_join) {
        fmt::print(out, "joined     a running session at frame {}, {:.1f} ms after connecting\n",
                   s.first_frame, s.join_seconds * 1000);
    }
    fmt::print(out, "frames     {}{}\n", s.frames_run,
               s.frames_requested ? fmt::format(" of {} requested", s.frames_requested) : "");
    fmt::print(out, "stalls     {} stall frames ({} waits), {} frames fast-forwarded\n",
               s.stats.stall_frames, s.stats.stall_events, s.stats.frames_fast_forwarded);
    fmt::print(out, "rtt        {:.1f} ms (rttvar {:.1f} ms)\n", s.stats.srtt / 1000.0,
               s.stats.rttvar / 1000.0);
    fmt::print(out,
               "delay      {} frames at the end ({}..{}, {} changes; path floor {}: {:.1f} ms up, "
               "{:.1f} ms down at worst); frames ran {:.1f} ms late on average\n",
               s.delay_final, s.delay_min, s.delay_max, s.delay_changes, s.stats.path_floor,
               s.stats.one_way_up / 1000.0, s.stats.one_way_down / 1000.0,
               mean_lateness_ms(s.stats));
    fmt::print(out,
               "upstream   {:.0f} B/s, {:.1f} datagrams/s ({} B, {} datagrams, wire incl. "
               "UDP/IP headers; payload {:.0f} B/s)\n",
               s.rates.up_bytes, s.rates.up_packets, s.stats.traffic.wire_bytes_sent,
               s.stats.traffic.datagrams_sent, s.rates.up_payload);
    fmt::print(
        out, "downstream {:.0f} B/s, {:.1f} datagrams/s ({} B, {} datagrams; payload {:.0f} B/s)\n",
        s.rates.down_bytes, s.rates.down_packets, s.stats.traffic.wire_bytes_received,
        s.stats.traffic.datagrams_received, s.rates.down_payload);
    if (s.rollback) {
        const auto& st = s.stats;
        const double seconds = s.running_seconds > 0 ? s.running_seconds : 1;
        fmt::print(out,
                   "rollback   {:.1f} rollbacks/s, {} frames re-run (longest {}), prediction "
                   "right {:.1f}% of {} frames, frame advantage {:.2f}\n",
                   st.rollbacks / seconds, st.frames_resimulated, st.longest_rollback,
                   st.predicted_frames ? 100.0 * st.predicted_right / st.predicted_frames : 100.0,
                   st.predicted_frames,
                   st.frames_run ? static_cast<double>(st.advantage_total) / st.frames_run : 0.0);
        fmt::print(out,
                   "corrections p99 {} frames deep, p99 {:.1f} ms to re-run (longest {:.1f} "
                   "ms)\n",
                   st.correction_depth_p99, static_cast<double>(st.correction_time_p99_us) / 1000.0,
                   static_cast<double>(st.correction_time_max_us) / 1000.0);
    }
    if (s.desyncs)
        fmt::print(out, "desyncs    {} (first at frame {})\n", s.desyncs, *s.first_desync_frame);
    fmt::print(out, "end        {}\n", s.end_reason.empty() ? "-" : s.end_reason);
}

std::string client_summary_json(const ClientRunSummary& s) {
    Json json = {
        {"slot", s.slot},
        {"name", s.name},
        {"players", s.players},
        {"frames_requested", s.frames_requested},
        {"frames_run", s.frames_run},
        {"frames_logged", s.frames_logged},
        {"started", s.started},
        {"completed", s.completed},
        {"rejected", s.rejected},
        {"spectator", s.spectator},
        {"late_join", s.late_join},
        {"first_frame", s.first_frame},
        {"join_seconds", s.join_seconds},
        {"end_reason", s.end_reason},
        {"stall_frames", s.stats.stall_frames},
        {"stall_events", s.stats.stall_events},
        {"frames_fast_forwarded", s.stats.frames_fast_forwarded},
        {"srtt_us", s.stats.srtt},
        {"rttvar_us", s.stats.rttvar},
        {"clock_offset_us", s.stats.clock_offset},
        {"mean_lateness_ms", mean_lateness_ms(s.stats)},
        {"delay",
         {{"initial", s.delay_initial},
          {"min", s.delay_min},
          {"max", s.delay_max},
          {"final", s.delay_final},
          {"changes", s.delay_changes},
          {"path_floor", s.stats.path_floor}}},
        {"one_way_us", {{"up", s.stats.one_way_up}, {"down", s.stats.one_way_down}}},
        {"input_round_trip_ms",
         {{"median", s.round_trip_median / 1000.0}, {"p99", s.round_trip_p99 / 1000.0}}},
        {"updates_received", s.stats.updates_received},
        {"updates_lost", s.stats.updates_lost},
        {"copies_sent", s.stats.copies_sent},
        {"updates_redundant", s.stats.updates_redundant},
        {"desyncs", s.desyncs},
        {"first_desync_frame", s.first_desync_frame ? Json(*s.first_desync_frame) : Json()},
        {"running_seconds", s.running_seconds},
        {"upstream_bytes_per_s", s.rates.up_bytes},
        {"downstream_bytes_per_s", s.rates.down_bytes},
        {"upstream_packets_per_s", s.rates.up_packets},
        {"downstream_packets_per_s", s.rates.down_packets},
        {"upstream_payload_bytes_per_s", s.rates.up_payload},
        {"downstream_payload_bytes_per_s", s.rates.down_payload},
        {"traffic", traffic_json(s.stats.traffic)},
    };
    if (s.rollback) {
        json["rollback"] = {{"rollbacks", s.stats.rollbacks},
                            {"frames_resimulated", s.stats.frames_resimulated},
                            {"longest_rollback", s.stats.longest_rollback},
                            {"predicted_frames", s.stats.predicted_frames},
                            {"predicted_right", s.stats.predicted_right},
                            {"advantage_total", s.stats.advantage_total},
                            {"correction_depth_p99", s.stats.correction_depth_p99},
                            {"correction_time_p99_us", s.stats.correction_time_p99_us},
                            {"correction_time_max_us", s.stats.correction_time_max_us}};
    }
    return json.dump(2) + "\n";
}

}  // namespace framelock::frontend
