// What the lobby's HTTP server (lobby/http_server.h) keeps of its open connections so that
// slow and many connections cannot hold it: a cap on the connections open from one address,
// and a deadline on each whole request (headers and body), which a client sending a header
// line every few seconds never meets. MHD's own timeout is an idle one that such a client
// resets with every line; this deadline runs from the connection's opening or its previous
// answer, whatever arrives meanwhile, and stops only while the request is being served.
// Connections past it are cut (the server's sweep), refusals and cuts are counted per
// address for the log and /metrics. Times are passed in (milliseconds); thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace framelock::lobby {

struct ConnectionLimits {
    std::size_t per_address = 32;               // connections open at once from one address
    std::size_t total = 1024;                   // from all addresses (MHD enforces it)
    std::int64_t request_deadline_ms = 10'000;  // to send one whole request
};

class ConnectionGuard {
  public:
    explicit ConnectionGuard(ConnectionLimits limits) : m_limits(limits) {}

    // A connection from `address` was accepted: whether it may stay (fewer than per_address
    // open from there). A refusal is counted against the address.
    bool admit(const std::string& address);
    // An admitted connection, with its socket, starts waiting for its first request: its id
    // (never 0) for the calls below.
    std::uint64_t opened(const std::string& address, int fd, std::int64_t now_ms);
    // Its socket is about to be closed: forgotten (the id may be unknown: then nothing).
    void closed(std::uint64_t id);
    // Its request arrived whole and is being served: no deadline meanwhile.
    void serving(std::uint64_t id);
    // Its answer is being sent: it must be gone by the deadline from now.
    void answering(std::uint64_t id, std::int64_t now_ms);
    // Its answer went out: the next request must arrive whole by the deadline from now.
    void answered(std::uint64_t id, std::int64_t now_ms);

    // Calls `cut(fd, answering)` for every connection past its deadline that is not being
    // served (`answering`: an answer is going out on it), under the guard's lock, so a
    // socket is cut before closed() can return for it, and counts each once.
    void cut_overdue(std::int64_t now_ms, const std::function<void(int fd, bool answering)>& cut);

    // What happened per address since the last report, for the log.
    struct AddressReport {
        std::string address;
        std::uint64_t refused = 0;  // connections over the per-address cap
        std::uint64_t cut = 0;      // connections past the deadline
    };
    std::vector<AddressReport> take_reports();

    struct Totals {
        std::size_t open = 0;
        std::size_t busy = 0;  // being served, or an answer going out
        std::uint64_t refused = 0;
        std::uint64_t cut = 0;
    };
    Totals totals() const;
    const ConnectionLimits& limits() const { return m_limits; }

  private:
    struct Connection {
        std::string address;
        int fd = -1;
        std::int64_t deadline_ms = 0;
        bool serving = false;
        bool answering = false;
        bool cut = false;
    };
    struct Address {
        std::size_t open = 0;
        std::size_t busy = 0;       // being served, or an answer going out
        std::uint64_t refused = 0;  // since the last report
        std::uint64_t cut = 0;
    };
    // Drops `address`'s entry once nothing is open and nothing is left to report.
    void forget_if_idle(const std::string& address);

    const ConnectionLimits m_limits;
    mutable std::mutex m_mutex;
    std::uint64_t m_next_id = 1;
    std::unordered_map<std::uint64_t, Connection> m_connections;
    std::unordered_map<std::string, Address> m_addresses;
    std::uint64_t m_refused = 0;
    std::uint64_t m_cut = 0;
};

}  // namespace framelock::lobby
