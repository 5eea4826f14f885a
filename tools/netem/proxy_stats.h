// What the impairment proxy counted by the time it stopped, per direction (datagrams in and
// out, what was dropped and why, the planned and measured hold times), and the two ways it
// is reported: a text summary and JSON (framelock_netem --stats-file).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tools/netem/proxy_config.h"

namespace framelock::netem {

// Counters for one direction. "Planned" is the hold time drawn for a datagram; "hold" is
// measured, from the moment the proxy read the datagram to the moment it sent it; "late" is
// hold minus planned: the proxy's own timing error (scheduler wakeup, load).
struct DirectionStats {
    std::uint64_t datagrams_in = 0;
    std::uint64_t datagrams_out = 0;  // copies sent, duplicates included
    std::uint64_t dropped = 0;        // by the loss setting
    std::uint64_t blackout = 0;       // dropped inside a blackout window
    std::uint64_t burst_dropped = 0;  // dropped in a burst (--burst-loss)
    std::uint64_t bursts = 0;         // bursts begun
    std::uint64_t longest_burst = 0;  // datagrams, the longest run a burst took
    std::uint64_t spikes = 0;         // delivered datagrams held a spike longer (--spike-pct)
    std::uint64_t corrupted = 0;      // delivered with one bit flipped (duplicates count once)
    std::uint64_t duplicated = 0;     // extra copies scheduled
    std::uint64_t tampered = 0;       // altered with ENet's CRC made right (--tamper-every)
    std::uint64_t overflow = 0;       // dropped because the queue held max_queued_bytes
    std::uint64_t send_errors = 0;    // the kernel refused the send (e.g. server not there)
    std::uint64_t unsent = 0;         // still queued at exit, or their client had expired
    std::uint64_t bytes_in = 0;
    std::uint64_t bytes_out = 0;
    std::uint64_t planned = 0;  // copies queued with a drawn hold time
    double planned_min_ms = 0;  // range of the drawn hold times: the model's delay +/- jitter
    double planned_max_ms = 0;  // exactly, unaffected by how busy the machine is
    double hold_sum_ms = 0;
    double hold_max_ms = 0;
    double late_sum_ms = 0;
    double late_max_ms = 0;

    double hold_mean_ms() const { return datagrams_out ? hold_sum_ms / datagrams_out : 0.0; }
    double late_mean_ms() const { return datagrams_out ? late_sum_ms / datagrams_out : 0.0; }
};

enum class StopReason { kDuration, kIdle, kRequested };
std::string_view to_string(StopReason reason);

struct ProxyStats {
    ProxyConfig config;
    std::uint16_t listen_port = 0;
    StopReason reason = StopReason::kDuration;
    double elapsed_s = 0;
    std::uint64_t clients_seen = 0;
    std::uint64_t refused_datagrams = 0;  // from new clients while the table was full
    std::uint64_t clients_expired = 0;
    DirectionStats up;
    DirectionStats down;
};

std::string format_stats_text(const ProxyStats& stats);
std::string format_stats_json(const ProxyStats& stats);

}  // namespace framelock::netem
