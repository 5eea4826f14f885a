#include "frontend/reach/relay_probe.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>

#include <poll.h>

namespace framelock::frontend {
namespace {

using netplay::Micros;

Micros now_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct Sent {
    std::size_t relay;
    Micros at;
};

Micros median(std::vector<Micros> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

std::vector<RelayProbeResult> probe_relays(netplay::EnetTransport& socket,
                                           const std::vector<RelayTarget>& relays,
                                           const RelayProbeOptions& options) {
    std::vector<RelayProbeResult> results(relays.size());
    std::vector<std::optional<netplay::Endpoint>> endpoints(relays.size());
    std::vector<std::vector<Micros>> rtts(relays.size());
    std::size_t reachable = 0;
    for (std::size_t i = 0; i < relays.size(); ++i) {
        results[i].id = relays[i].id;
        if (auto endpoint = netplay::parse_endpoint(relays[i].address)) {
            endpoints[i] = endpoint.value();
            ++reachable;
        }
    }
    const int rounds = std::max(options.probes, 1);
    // Nonces from a random base: a late reply to an earlier run's probe matches nothing.
    std::uint64_t next_nonce = std::random_device{}() * 0x9e3779b97f4a7c15ULL;
    std::map<std::uint64_t, Sent> pending;
    const Micros start = now_us();
    const Micros deadline = start + options.deadline_us;
    int round = 0;
    Micros next_round = start;
    std::size_t expected = reachable * static_cast<std::size_t>(rounds), answered = 0;
    while (reachable > 0 && answered < expected) {
        Micros now = now_us();
        if (now >= deadline) break;
        if (round < rounds && now >= next_round) {
            for (std::size_t i = 0; i < relays.size(); ++i) {
                if (!endpoints[i]) continue;
                const std::uint64_t nonce = next_nonce++;
                pending[nonce] = Sent{i, now_us()};
                socket.send_datagram(*endpoints[i], netplay::Probe{nonce});
            }
            ++round;
            next_round += options.interval_us;
        }
        now = now_us();
        const Micros until = std::min(round < rounds ? next_round : deadline, deadline);
        // Sleep on the socket itself, then read at once: a reply is timed when it arrives,
        // not when a wait() of whole milliseconds ends (EnetTransport::wait keeps waiting
        // after a datagram it takes out for us).
        if (until > now) {
            pollfd readable{socket.socket_fd(), POLLIN, 0};
            ::poll(&readable, 1, static_cast<int>((until - now + 999) / 1000));
        }
        // poll() services the socket, which is where replies are read; ENet events (none on
        // a fresh client) are dropped.
        while (socket.poll()) {
        }
        while (auto datagram = socket.poll_datagram()) {
            const auto* reply = std::get_if<netplay::ProbeReply>(&datagram->message);
            if (!reply) continue;
            const auto it = pending.find(reply->nonce);
            if (it == pending.end()) continue;
            const Sent sent = it->second;
            pending.erase(it);
            // Only from the relay probed: a reply from elsewhere is not its round trip.
            if (!(datagram->from == *endpoints[sent.relay])) continue;
            rtts[sent.relay].push_back(now_us() - sent.at);
            ++answered;
        }
    }
    for (std::size_t i = 0; i < relays.size(); ++i) {
        results[i].replies = static_cast<int>(rtts[i].size());
        if (rtts[i].empty()) continue;
        results[i].rtt_us = median(rtts[i]);
        results[i].min_us = *std::min_element(rtts[i].begin(), rtts[i].end());
    }
    return results;
}

Result<std::vector<RelayProbeResult>> probe_relays(const std::vector<RelayTarget>& relays,
                                                   const RelayProbeOptions& options) {
    auto socket = netplay::EnetTransport::client();
    if (!socket) return socket.error();
    return probe_relays(*socket.value(), relays, options);
}

}  // namespace framelock::frontend
