// The lobby's half of hole punching (the datagrams: netplay/reach/rendezvous.h): which socket
// serves each room, as seen from here, and which joiners want to reach it. No socket and no
// clock here (lobby/rendezvous_socket.h runs it on UDP); times are passed in; thread-safe.
//
//   create a room (HTTP)   -> a key for its host: add_room()
//   HostRegister(key)      <- from the host's session socket, every second: its public
//                             endpoint is where that datagram came from
//   join the room (HTTP)   -> the password checked, a ticket: issue_ticket()
//   JoinerHello(ticket)    <- from the joiner's socket: its public endpoint; the host is told
//                             at once (HostRegistered.punch_to) and on its next registrations
//   the room moved (HTTP)  -> move_room(): every reply to the host says where
//
// Bounded: at most max_rooms registered rooms and max_tickets tickets (the oldest go first);
// a room whose host stopped registering is forgotten after room_silence_ms, a ticket after
// ticket_ms or max_hellos hellos. The lobby answers only keys and tickets it handed out, and
// never with more bytes than it was sent, except the push to a host that a valid ticket
// earns (at most max_hellos of them per ticket, and only from the address that got the ticket).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netplay/reach/rendezvous.h"

namespace framelock::lobby {

struct RendezvousLimits {
    std::int64_t room_silence_ms = 60'000;  // no registration for this long: forgotten
    std::int64_t ticket_ms = 30'000;        // a joiner's ticket is good this long
    int max_hellos = 64;                    // hellos per ticket (one per 50 ms for 3 s)
    std::size_t max_rooms = 100'000;
    std::size_t max_tickets = 100'000;
};

struct Datagram {
    netplay::Endpoint to;
    std::vector<std::uint8_t> bytes;
};

class Rendezvous {
  public:
    // Joiners remembered per room (the oldest forgotten first): a punch timeout's worth.
    static constexpr std::size_t kMaxJoiners = 2 * netplay::kMaxPunchTargets;

    explicit Rendezvous(RendezvousLimits limits = {}) : m_limits(limits) {}

    // A room's host may register with this key (its hex goes out in the create answer).
    netplay::RendezvousSecret add_room(const std::string& room_id, std::int64_t now_ms);
    void remove_room(const std::string& room_id);
    // From now on every reply to the room's host says: move to `address`; and one is sent
    // at once (take_pushes()).
    void move_room(const std::string& room_id, const std::string& address);
    // Datagrams to send that no datagram asked for (a move's news to a host); each once.
    std::vector<Datagram> take_pushes();

    struct Ticket {
        netplay::RendezvousSecret secret{};
        netplay::Endpoint host;  // the host's session socket, as last seen here
    };
    // A ticket to punch through to the room's host, for a joiner the API let in from
    // `joiner_ip` (its HTTP request's address, IPv4 dotted): only hellos from that address
    // count, so nobody can have a host send its probes to a third party. Nothing when the
    // host has not registered within room_silence_ms (it cannot be punched to), or for an
    // address that is no IPv4 one.
    std::optional<Ticket> issue_ticket(const std::string& room_id, const std::string& joiner_ip,
                                       std::int64_t now_ms);
    // Whether the room has a key here (a lobby that restarted, or forgot a silent host, has
    // none: its next heartbeat gets a new one).
    bool knows(const std::string& room_id) const;
    // Where the room's host registered from, if it did lately.
    std::optional<netplay::Endpoint> host_endpoint(const std::string& room_id,
                                                   std::int64_t now_ms) const;

    // One datagram that came from `from`: what to send, and where.
    std::vector<Datagram> handle(const netplay::Endpoint& from, std::span<const std::uint8_t> bytes,
                                 std::int64_t now_ms);

    std::size_t rooms() const;
    std::uint64_t refused() const;  // datagrams dropped: malformed, unknown key or ticket

  private:
    struct Room {
        netplay::RendezvousSecret key{};
        netplay::Endpoint host;
        std::int64_t registered_ms = -1;  // never
        std::uint64_t nonce = 0;          // of its newest registration, echoed to it
        std::int64_t added_ms = 0;
        std::vector<std::pair<netplay::Endpoint, std::int64_t>> joiners;  // and since when
                                                                          // (kMaxJoiners)
        std::string move_to;
    };
    struct TicketEntry {
        std::string room_id;
        std::uint32_t joiner_ip = 0;
        std::int64_t issued_ms = 0;
        int hellos = 0;
    };
    netplay::HostRegistered registered(Room& room, std::int64_t now_ms);
    void forget_old(std::int64_t now_ms);

    const RendezvousLimits m_limits;
    mutable std::mutex m_mutex;
    std::map<std::string, Room> m_rooms;               // by room id
    std::map<std::string, std::string> m_room_by_key;  // key hex -> room id
    std::map<std::string, TicketEntry> m_tickets;      // ticket hex -> entry
    std::vector<Datagram> m_pushes;
    std::uint64_t m_refused = 0;
    std::int64_t m_last_sweep_ms = 0;
};

}  // namespace framelock::lobby
