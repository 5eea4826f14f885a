#include "tools/netem/proxy_stats.h"

#include <fmt/core.h>

#include <vector>

namespace framelock::netem {

namespace {

std::string stats_line(const char* name, const DirectionStats& s) {
    return fmt::format(
        "{} in {} out {} dropped {} blackout {} burst_dropped {} bursts {} longest_burst {} "
        "spikes {} duplicated {} corrupted {} overflow {} "
        "send_errors {} unsent {} bytes_in {} bytes_out {} planned_ms min {:.3f} max {:.3f} "
        "hold_ms mean {:.3f} max {:.3f} late_ms mean {:.3f} max {:.3f}\n",
        name, s.datagrams_in, s.datagrams_out, s.dropped, s.blackout, s.burst_dropped, s.bursts,
        s.longest_burst, s.spikes, s.duplicated, s.corrupted, s.overflow, s.send_errors, s.unsent,
        s.bytes_in, s.bytes_out, s.planned_min_ms, s.planned_max_ms, s.hold_mean_ms(),
        s.hold_max_ms, s.late_mean_ms(), s.late_max_ms);
}

std::string impairment_json(const Impairment& i) {
    return fmt::format(
        R"({{"delay_ms": {:.3f}, "jitter_ms": {:.3f}, "loss_pct": {:.3f}, "duplicate_pct": {:.3f}, )"
        R"("corrupt_pct": {:.3f}, "burst_loss_pct": {:.3f}, "burst_length": {:.3f}, )"
        R"("spike_pct": {:.3f}, "spike_ms": {:.3f}}})",
        i.delay_ms, i.jitter_ms, i.loss_pct, i.duplicate_pct, i.corrupt_pct, i.burst_loss_pct,
        i.burst_length, i.spike_pct, i.spike_ms);
}

std::string direction_json(const DirectionStats& s) {
    return fmt::format(
        R"({{"datagrams_in": {}, "datagrams_out": {}, "dropped": {}, "blackout": {}, )"
        R"("burst_dropped": {}, "bursts": {}, "longest_burst": {}, "spikes": {}, )"
        R"("duplicated": {}, "corrupted": {}, "tampered": {}, )"
        R"("overflow": {}, "send_errors": {}, "unsent": {}, "bytes_in": {}, "bytes_out": {}, )"
        R"("planned_min_ms": {:.4f}, "planned_max_ms": {:.4f}, )"
        R"("hold_mean_ms": {:.4f}, "hold_max_ms": {:.4f}, "late_mean_ms": {:.4f}, )"
        R"("late_max_ms": {:.4f}}})",
        s.datagrams_in, s.datagrams_out, s.dropped, s.blackout, s.burst_dropped, s.bursts,
        s.longest_burst, s.spikes, s.duplicated, s.corrupted, s.tampered, s.overflow, s.send_errors,
        s.unsent, s.bytes_in, s.bytes_out, s.planned_min_ms, s.planned_max_ms, s.hold_mean_ms(),
        s.hold_max_ms, s.late_mean_ms(), s.late_max_ms);
}

std::string blackouts_json(const std::vector<Blackout>& windows) {
    std::string json = "[";
    for (const Blackout& window : windows) {
        if (json.size() > 1) json += ", ";
        json += fmt::format(R"({{"start_s": {:.3f}, "length_s": {:.3f}}})", window.start_s,
                            window.length_s);
    }
    return json + "]";
}

}  // namespace

std::string_view to_string(StopReason reason) {
    switch (reason) {
        case StopReason::kDuration:
            return "duration";
        case StopReason::kIdle:
            return "idle";
        case StopReason::kRequested:
            return "requested";
    }
    return "unknown";
}

std::string format_stats_text(const ProxyStats& stats) {
    std::string text = fmt::format(
        "framelock_netem: stopped ({}) after {:.3f} s; listen port {}; clients seen {} "
        "expired {}; datagrams refused (client table full) {}\n",
        to_string(stats.reason), stats.elapsed_s, stats.listen_port, stats.clients_seen,
        stats.clients_expired, stats.refused_datagrams);
    text += stats_line("up   (client->server):", stats.up);
    text += stats_line("down (server->client):", stats.down);
    return text;
}

std::string format_stats_json(const ProxyStats& stats) {
    const ProxyConfig& c = stats.config;
    return fmt::format(
        "{{\n"
        "  \"reason\": \"{}\",\n"
        "  \"elapsed_s\": {:.6f},\n"
        "  \"listen\": \"{}\",\n"
        "  \"listen_port\": {},\n"
        "  \"forward\": \"{}\",\n"
        "  \"seed\": {},\n"
        "  \"config_up\": {},\n"
        "  \"config_down\": {},\n"
        "  \"blackouts\": {},\n"
        "  \"clients_seen\": {},\n"
        "  \"clients_expired\": {},\n"
        "  \"refused_datagrams\": {},\n"
        "  \"up\": {},\n"
        "  \"down\": {}\n"
        "}}\n",
        to_string(stats.reason), stats.elapsed_s, c.listen.to_string(), stats.listen_port,
        c.forward.to_string(), c.seed, impairment_json(c.up), impairment_json(c.down),
        blackouts_json(c.blackouts), stats.clients_seen, stats.clients_expired,
        stats.refused_datagrams, direction_json(stats.up), direction_json(stats.down));
}

}  // namespace framelock::netem
