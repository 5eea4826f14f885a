// The relay probes players sent from each address (POST /api/probes), kept a while so that
// room lists (GET /api/rooms) from that address can show each room's expected delay without
// the probes in every request. Keyed by the client's IP address: players behind one NAT share
// their probes, which is right, since they share the path to the relays.
//
// Bounded like PasswordBudget: at most `max_entries` addresses, the least recently stored
// forgotten first, and an entry is forgotten `ttl_ms` after it was stored. Times are passed in
// (milliseconds); thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "lobby/relay_choice.h"

namespace framelock::lobby {

struct ProbeTableLimits {
    std::int64_t ttl_ms = 600'000;  // 10 min: a network changes; a list refreshes its probes
    // An entry holds at most 64 probes (the API's limit), about 6 KB: 16,384 entries stay
    // under 100 MB even if every one is full.
    std::size_t max_entries = 16'384;
};

class ProbeTable {
  public:
    explicit ProbeTable(ProbeTableLimits limits = {}) : m_limits(limits) {}

    void put(const std::string& address, RelayProbes probes, std::int64_t now_ms);
    // The probes stored for `address` within the TTL.
    std::optional<RelayProbes> get(const std::string& address, std::int64_t now_ms) const;
    std::size_t size() const;

  private:
    struct Entry {
        RelayProbes probes;
        std::int64_t stored_ms = 0;
        std::list<std::string>::iterator lru;
    };
    const ProbeTableLimits m_limits;
    mutable std::mutex m_mutex;
    std::unordered_map<std::string, Entry> m_entries;
    std::list<std::string> m_lru;  // addresses, the most recently stored first
};

}  // namespace framelock::lobby
