#include "lobby/rendezvous.h"

#include <algorithm>
#include <utility>

#include "lobby/secrets.h"

namespace framelock::lobby {

using netplay::Endpoint;
using netplay::RendezvousSecret;

namespace {

RendezvousSecret fresh_secret() {
    // random_hex draws from libsodium's generator; 16 bytes give 32 hex digits.
    return netplay::secret_from_hex(random_hex(static_cast<int>(netplay::kRendezvousSecretBytes)))
        .value();
}

// Drops the oldest entries of `map` (by `age`) while it holds more than `limit`.
template <class Map, class Age>
void trim(Map& map, std::size_t limit, Age age) {
    while (map.size() > limit) {
        auto oldest = std::min_element(map.begin(), map.end(), [&](const auto& a, const auto& b) {
            return age(a.second) < age(b.second);
        });
        map.erase(oldest);
    }
}

}  // namespace

RendezvousSecret Rendezvous::add_room(const std::string& room_id, std::int64_t now_ms) {
    std::lock_guard lock(m_mutex);
    forget_old(now_ms);
    if (auto old = m_rooms.find(room_id); old != m_rooms.end()) {
        m_room_by_key.erase(netplay::secret_to_hex(old->second.key));
        m_rooms.erase(old);
    }
    Room room;
    room.key = fresh_secret();
    room.added_ms = now_ms;
    m_room_by_key[netplay::secret_to_hex(room.key)] = room_id;
    const RendezvousSecret key = room.key;
    m_rooms[room_id] = std::move(room);
    if (m_rooms.size() > m_limits.max_rooms) {
        auto oldest =
            std::min_element(m_rooms.begin(), m_rooms.end(), [](const auto& a, const auto& b) {
                return std::max(a.second.registered_ms, a.second.added_ms) <
                       std::max(b.second.registered_ms, b.second.added_ms);
            });
        m_room_by_key.erase(netplay::secret_to_hex(oldest->second.key));
        m_rooms.erase(oldest);
    }
    return key;
}

void Rendezvous::remove_room(const std::string& room_id) {
    std::lock_guard lock(m_mutex);
    auto room = m_rooms.find(room_id);
    if (room == m_rooms.end()) return;
    m_room_by_key.erase(netplay::secret_to_hex(room->second.key));
    m_rooms.erase(room);
}

void Rendezvous::move_room(const std::string& room_id, const std::string& address) {
    std::lock_guard lock(m_mutex);
    auto room = m_rooms.find(room_id);
    if (room == m_rooms.end()) return;
    room->second.move_to = address;
    // The host follows the room before its next registration (a second away at most).
    if (room->second.registered_ms >= 0 && m_pushes.size() < m_limits.max_rooms) {
        m_pushes.push_back({room->second.host, netplay::encode_rendezvous(registered(
                                                   room->second, room->second.registered_ms))});
    }
}

std::vector<Datagram> Rendezvous::take_pushes() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_pushes, {});
}

std::optional<Rendezvous::Ticket> Rendezvous::issue_ticket(const std::string& room_id,
                                                           const std::string& joiner_ip,
                                                           std::int64_t now_ms) {
    const auto joiner = netplay::parse_endpoint(joiner_ip + ":1");
    if (!joiner) return std::nullopt;
    std::lock_guard lock(m_mutex);
    forget_old(now_ms);
    auto room = m_rooms.find(room_id);
    if (room == m_rooms.end() || room->second.registered_ms < 0 ||
        now_ms - room->second.registered_ms > m_limits.room_silence_ms) {
        return std::nullopt;
    }
    Ticket ticket{fresh_secret(), room->second.host};
    m_tickets[netplay::secret_to_hex(ticket.secret)] =
        TicketEntry{room_id, joiner.value().ipv4, now_ms, 0};
    trim(m_tickets, m_limits.max_tickets, [](const TicketEntry& t) { return t.issued_ms; });
    return ticket;
}

bool Rendezvous::knows(const std::string& room_id) const {
    std::lock_guard lock(m_mutex);
    return m_rooms.count(room_id) != 0;
}

std::optional<Endpoint> Rendezvous::host_endpoint(const std::string& room_id,
                                                  std::int64_t now_ms) const {
    std::lock_guard lock(m_mutex);
    auto room = m_rooms.find(room_id);
    if (room == m_rooms.end() || room->second.registered_ms < 0 ||
        now_ms - room->second.registered_ms > m_limits.room_silence_ms) {
        return std::nullopt;
    }
    return room->second.host;
}

netplay::HostRegistered Rendezvous::registered(Room& room, std::int64_t now_ms) {
    // A joiner is worth punching to for as long as it punches itself.
    std::erase_if(room.joiners, [&](const auto& j) {
        return now_ms - j.second > netplay::kPunchTimeoutUs / 1000 + 1000;
    });
    netplay::HostRegistered reply;
    reply.nonce = room.nonce;
    reply.seen = room.host;
    for (const auto& joiner : room.joiners) reply.punch_to.push_back(joiner.first);
    reply.move_to = room.move_to;
    return reply;
}

std::vector<Datagram> Rendezvous::handle(const Endpoint& from, std::span<const std::uint8_t> bytes,
                                         std::int64_t now_ms) {
    std::vector<Datagram> out;
    auto message = netplay::decode_rendezvous(bytes);
    std::lock_guard lock(m_mutex);
    forget_old(now_ms);
    if (!message) {
        ++m_refused;
        return out;
    }
    if (const auto* probe = std::get_if<netplay::Probe>(&message.value())) {
        // The lobby answers probes too: a player learns its public endpoint from it.
        out.push_back({from, netplay::encode_rendezvous(netplay::ProbeReply{probe->nonce, from})});
    } else if (const auto* reg = std::get_if<netplay::HostRegister>(&message.value())) {
        auto id = m_room_by_key.find(netplay::secret_to_hex(reg->key));
        if (id == m_room_by_key.end()) {
            ++m_refused;
            return out;
        }
        Room& room = m_rooms.at(id->second);
        room.host = from;
        room.registered_ms = now_ms;
        room.nonce = reg->nonce;
        out.push_back({from, netplay::encode_rendezvous(registered(room, now_ms))});
    } else if (const auto* hello = std::get_if<netplay::JoinerHello>(&message.value())) {
        auto ticket = m_tickets.find(netplay::secret_to_hex(hello->ticket));
        if (ticket == m_tickets.end() || ticket->second.joiner_ip != from.ipv4 ||
            ++ticket->second.hellos > m_limits.max_hellos) {
            ++m_refused;
            return out;
        }
        auto room = m_rooms.find(ticket->second.room_id);
        if (room == m_rooms.end()) {
            ++m_refused;
            return out;
        }
        auto& joiners = room->second.joiners;
        auto known = std::find_if(joiners.begin(), joiners.end(),
                                  [&](const auto& j) { return j.first == from; });
        if (known == joiners.end()) {
            if (joiners.size() >= kMaxJoiners) joiners.erase(joiners.begin());
            joiners.emplace_back(from, now_ms);
        } else {
            known->second = now_ms;
        }
        out.push_back(
            {from, netplay::encode_rendezvous(netplay::JoinerAck{from, room->second.host})});
        // The host hears of the joiner now, not at its next registration.
        out.push_back(
            {room->second.host, netplay::encode_rendezvous(registered(room->second, now_ms))});
    } else {
        ++m_refused;  // replies and other sides' messages are not for the lobby
    }
    return out;
}

void Rendezvous::forget_old(std::int64_t now_ms) {
    if (now_ms - m_last_sweep_ms < 1000) return;
    m_last_sweep_ms = now_ms;
    for (auto it = m_rooms.begin(); it != m_rooms.end();) {
        const std::int64_t last = std::max(it->second.registered_ms, it->second.added_ms);
        if (now_ms - last > m_limits.room_silence_ms) {
            m_room_by_key.erase(netplay::secret_to_hex(it->second.key));
            it = m_rooms.erase(it);
        } else {
            ++it;
        }
    }
    std::erase_if(m_tickets,
                  [&](const auto& t) { return now_ms - t.second.issued_ms > m_limits.ticket_ms; });
}

std::size_t Rendezvous::rooms() const {
    std::lock_guard lock(m_mutex);
    return m_rooms.size();
}

std::uint64_t Rendezvous::refused() const {
    std::lock_guard lock(m_mutex);
    return m_refused;
}

}  // namespace framelock::lobby
