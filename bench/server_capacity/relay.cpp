#include "bench/server_capacity/relay.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/server_capacity/epoll_wait.h"
#include "bench/server_capacity/frame_times.h"
#include "frontend/files/atomic_file.h"
#include "netplay/io/enet_transport.h"

namespace framelock::bench::capacity {

using netplay::Channel;
using netplay::PeerId;

int run_relay(const RelayOptions& options) {
    struct Pair {
        std::unique_ptr<netplay::EnetTransport> transport;
        std::vector<PeerId> peers;
        int left = 0;
    };
    struct Held {
        Micros at;
        std::size_t pair;
        PeerId to;
        std::vector<std::uint8_t> data;
    };
    std::vector<Pair> pairs(static_cast<std::size_t>(options.sessions));
    std::string ports;
    const int epoll = epoll_create1(EPOLL_CLOEXEC);
    for (std::size_t p = 0; p < pairs.size(); ++p) {
        auto transport = netplay::EnetTransport::listen("127.0.0.1:0", 4);
        if (!transport) {
            std::fprintf(stderr, "relay: %s\n", transport.error().message.c_str());
            return 1;
        }
        pairs[p].transport = std::move(transport).value();
        ports += std::to_string(pairs[p].transport->local_port()) + "\n";
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.u64 = p;
        epoll_ctl(epoll, EPOLL_CTL_ADD, pairs[p].transport->socket_fd(), &event);
    }
    auto written = frontend::write_file_atomic(
        options.port_file, {reinterpret_cast<const std::uint8_t*>(ports.data()), ports.size()});
    if (!written) {
        std::fprintf(stderr, "relay: %s\n", written.error().message.c_str());
        return 1;
    }
    std::deque<Held> held;
    const Micros end = g_clock.now_us() + static_cast<Micros>(options.duration * 1e6);
    std::vector<epoll_event> events(pairs.size());
    const auto service = [&](std::size_t p) {
        Pair& pair = pairs[p];
        using Type = netplay::TransportEvent::Type;
        while (auto event = pair.transport->poll()) {
            if (event->type == Type::kConnected) {
                pair.peers.push_back(event->peer);
            } else if (event->type == Type::kDisconnected) {
                ++pair.left;
            } else {
                for (const PeerId to : pair.peers) {
                    if (to == event->peer) continue;
                    if (options.delay_us > 0)
                        held.push_back({g_clock.now_us() + options.delay_us, p, to, event->data});
                    else
                        pair.transport->send(to, event->channel, event->data);
                }
            }
        }
        pair.transport->flush();
    };
    for (;;) {
        const Micros now = g_clock.now_us();
        if (now >= end) break;
        if (std::all_of(pairs.begin(), pairs.end(), [](const Pair& p) { return p.left >= 2; }))
            break;
        while (!held.empty() && held.front().at <= now) {
            Pair& pair = pairs[held.front().pair];
            pair.transport->send(held.front().to, Channel::kInput, held.front().data);
            pair.transport->flush();
            held.pop_front();
        }
        const Micros next = held.empty() ? now + 100'000 : held.front().at;
        const int ready = wait_epoll(epoll, events, next - g_clock.now_us());
        if (ready <= 0) {
            // Quiet: keep ENet's timers (acks, pings, timeouts) going on every socket.
            for (std::size_t p = 0; p < pairs.size(); ++p) service(p);
        }
        for (int e = 0; e < ready; ++e) service(static_cast<std::size_t>(events[e].data.u64));
    }
    ::close(epoll);
    return 0;
}

}  // namespace framelock::bench::capacity
