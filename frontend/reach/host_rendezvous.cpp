#include "frontend/reach/host_rendezvous.h"

#include <algorithm>
#include <limits>

#include "common/log.h"

namespace framelock::frontend {

using netplay::Endpoint;
using netplay::Micros;

namespace {

std::uint64_t key_of(const Endpoint& e) {
    return (static_cast<std::uint64_t>(e.ipv4) << 16) | e.port;
}
Endpoint endpoint_of(std::uint64_t key) {
    return Endpoint{static_cast<std::uint32_t>(key >> 16), static_cast<std::uint16_t>(key)};
}

// A joiner punched to is not punched to again for this long (the lobby repeats its name
// for a while after the first hello).
constexpr Micros kPunchMemoryUs = 10'000'000;

}  // namespace

HostRendezvous::HostRendezvous(Endpoint lobby, std::function<std::string()> key)
    : m_lobby(lobby), m_key(std::move(key)) {}

void HostRendezvous::step(netplay::EnetTransport& socket, Micros now) {
    while (auto datagram = socket.poll_datagram()) handle(datagram->from, datagram->message, now);
    if (now >= m_next_register) {
        if (auto key = netplay::secret_from_hex(m_key())) {
            const std::uint64_t nonce = m_random();
            m_nonces[m_next_nonce++ % m_nonces.size()] = nonce;
            socket.send_datagram(m_lobby, netplay::HostRegister{*key, nonce});
        }
        m_next_register = now + netplay::kHostRegisterIntervalUs;
    }
    for (auto it = m_punching.begin(); it != m_punching.end();) {
        Punch& punch = it->second;
        if (now - punch.started > kPunchMemoryUs) {
            it = m_punching.erase(it);
            continue;
        }
        if (now - punch.started <= netplay::kPunchTimeoutUs && now >= punch.next) {
            socket.send_datagram(endpoint_of(it->first), netplay::Probe{m_nonce++});
            punch.next = now + netplay::kPunchProbeIntervalUs;
        }
        ++it;
    }
}

Micros HostRendezvous::next_due() const {
    Micros due = m_next_register;
    for (const auto& [key, punch] : m_punching) {
        if (punch.next - punch.started <= netplay::kPunchTimeoutUs) due = std::min(due, punch.next);
    }
    return due;
}

void HostRendezvous::handle(const Endpoint& from, const netplay::RendezvousMessage& message,
                            Micros now) {
    const auto* registered = std::get_if<netplay::HostRegistered>(&message);
    // Only the lobby's word counts, and only as an answer to one of our registrations.
    if (registered == nullptr || !(from == m_lobby) || registered->nonce == 0 ||
        std::find(m_nonces.begin(), m_nonces.end(), registered->nonce) == m_nonces.end()) {
        return;
    }
    if (m_seen.empty() || !(m_seen == registered->seen)) {
        log_info("lobby: this host's session socket is seen at {}", registered->seen.to_string());
    }
    m_seen = registered->seen;
    for (const Endpoint& joiner : registered->punch_to) {
        if (m_punching.count(key_of(joiner)) != 0) continue;
        log_info("lobby: a player at {} is reaching for this host: opening the way (hole punch)",
                 joiner.to_string());
        m_punching[key_of(joiner)] = Punch{now, now};
        ++m_punches;
    }
    if (!registered->move_to.empty() && registered->move_to != m_move_to) {
        m_move_to = registered->move_to;
    }
}

}  // namespace framelock::frontend
