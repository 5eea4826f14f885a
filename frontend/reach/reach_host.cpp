#include "frontend/reach/reach_host.h"

#include <algorithm>

#include "netplay/io/real_clock.h"

namespace framelock::frontend {

using netplay::Endpoint;
using netplay::Micros;

Result<Reached> reach_host(const ReachPlan& plan) {
    auto socket = netplay::EnetTransport::client();
    if (!socket) return socket.error();
    netplay::SteadyClock clock;
    const Micros start = clock.now_us();
    std::vector<Endpoint> candidates = plan.candidates;
    std::vector<std::pair<std::uint64_t, Micros>> sent;  // nonce, when
    std::uint64_t nonce = 1;
    bool acknowledged = false;
    Micros next_round = start;
    while (clock.now_us() - start < plan.timeout_us) {
        const Micros now = clock.now_us();
        if (now >= next_round) {
            if (plan.lobby && plan.ticket && !acknowledged)
                socket.value()->send_datagram(*plan.lobby, netplay::JoinerHello{*plan.ticket});
            for (const Endpoint& to : candidates) {
                socket.value()->send_datagram(to, netplay::Probe{nonce});
                sent.emplace_back(nonce++, now);
            }
            next_round = now + netplay::kPunchProbeIntervalUs;
        }
        socket.value()->wait(std::clamp<Micros>(next_round - clock.now_us(), 0, 10'000));
        socket.value()->poll();
        while (auto datagram = socket.value()->poll_datagram()) {
            if (const auto* ack = std::get_if<netplay::JoinerAck>(&datagram->message)) {
                if (plan.lobby && datagram->from == *plan.lobby) {
                    acknowledged = true;
                    if (std::find(candidates.begin(), candidates.end(), ack->host) ==
                        candidates.end()) {
                        candidates.push_back(ack->host);
                    }
                }
                continue;
            }
            const auto* reply = std::get_if<netplay::ProbeReply>(&datagram->message);
            if (reply == nullptr) continue;
            if (std::find(candidates.begin(), candidates.end(), datagram->from) ==
                candidates.end()) {
                continue;
            }
            const auto probe = std::find_if(sent.begin(), sent.end(),
                                            [&](const auto& s) { return s.first == reply->nonce; });
            if (probe == sent.end()) continue;
            Reached reached;
            reached.host = datagram->from;
            reached.round_trip_us = clock.now_us() - probe->second;
            reached.punched = acknowledged;
            reached.socket = std::move(socket).value();
            return reached;
        }
    }
    std::string tried;
    for (const Endpoint& c : candidates) tried += (tried.empty() ? "" : ", ") + c.to_string();
    return make_error(ErrorCode::kIo,
                      "no answer from the host within " +
                          std::to_string(plan.timeout_us / 1'000'000) + " s (tried " +
                          (tried.empty() ? "no address" : tried) +
                          (plan.ticket ? ", with the lobby asking it to punch through" : "") + ")");
}

}  // namespace framelock::frontend
