#include "lobby/probe_table.h"

#include <algorithm>

namespace framelock::lobby {

void ProbeTable::put(const std::string& address, RelayProbes probes, std::int64_t now_ms) {
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(address);
    if (it != m_entries.end()) {
        m_lru.splice(m_lru.begin(), m_lru, it->second.lru);
    } else {
        if (m_entries.size() >= std::max<std::size_t>(m_limits.max_entries, 1)) {
            m_entries.erase(m_lru.back());
            m_lru.pop_back();
        }
        m_lru.push_front(address);
        it = m_entries.emplace(address, Entry{}).first;
        it->second.lru = m_lru.begin();
    }
    it->second.probes = std::move(probes);
    it->second.stored_ms = now_ms;
}

std::optional<RelayProbes> ProbeTable::get(const std::string& address, std::int64_t now_ms) const {
    std::lock_guard lock(m_mutex);
    const auto it = m_entries.find(address);
    if (it == m_entries.end() || now_ms - it->second.stored_ms >= m_limits.ttl_ms)
        return std::nullopt;
    return it->second.probes;
}

std::size_t ProbeTable::size() const {
    std::lock_guard lock(m_mutex);
    return m_entries.size();
}

}  // namespace framelock::lobby
