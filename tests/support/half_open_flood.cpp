#include "support/half_open_flood.h"

#include <chrono>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "netplay/io/enet_transport.h"

namespace framelock::test {

using netplay::EnetTransport;
using netplay::PeerId;
using netplay::TransportEvent;

HalfOpenFlood::HalfOpenFlood(std::string server, int addresses, int per_address)
    : m_server(std::move(server)), m_addresses(addresses), m_per_address(per_address) {
    m_thread = std::thread([this] { run(); });
}

HalfOpenFlood::~HalfOpenFlood() {
    stop();
}

void HalfOpenFlood::stop() {
    m_stop = true;
    if (m_thread.joinable()) m_thread.join();
}

std::string HalfOpenFlood::error() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_error;
}

void HalfOpenFlood::run() {
    struct Source {
        std::unique_ptr<EnetTransport> transport;
        std::set<PeerId> live;       // connecting or connected
        std::set<PeerId> connected;  // the server accepted it
    };
    std::vector<Source> sources;
    for (int a = 0; a < m_addresses; ++a) {
        netplay::EnetOptions options;
        options.connect_timeout_us = 2'000'000;  // a refused request is tried again soon
        auto transport = EnetTransport::listen("127.0.0." + std::to_string(2 + a) + ":0",
                                               static_cast<std::size_t>(m_per_address), options);
        if (!transport) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_error = transport.error().message;
            return;
        }
        sources.push_back(Source{std::move(transport).value(), {}, {}});
    }
    while (!m_stop) {
        for (Source& source : sources) {
            while (static_cast<int>(source.live.size()) < m_per_address) {
                auto peer = source.transport->connect(m_server);
                if (!peer) break;  // its slot is still being released: next round
                source.live.insert(peer.value());
                ++m_attempts;
            }
            // Never a message: only the connection's own events.
            while (auto event = source.transport->poll()) {
                if (event->type == TransportEvent::Type::kConnected) {
                    source.connected.insert(event->peer);
                    ++m_accepted;
                    ++m_open;
                } else if (event->type == TransportEvent::Type::kDisconnected) {
                    source.live.erase(event->peer);
                    if (source.connected.erase(event->peer) > 0) {
                        ++m_closed;
                        --m_open;
                    }
                }
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

}  // namespace framelock::test
