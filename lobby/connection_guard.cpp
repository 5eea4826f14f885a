#include "lobby/connection_guard.h"

namespace framelock::lobby {

bool ConnectionGuard::admit(const std::string& address) {
    std::lock_guard lock(m_mutex);
    Address& a = m_addresses[address];
    if (a.open < m_limits.per_address) return true;
    ++a.refused;
    ++m_refused;
    return false;
}

std::uint64_t ConnectionGuard::opened(const std::string& address, int fd, std::int64_t now_ms) {
    std::lock_guard lock(m_mutex);
    const std::uint64_t id = m_next_id++;
    m_connections[id] = Connection{address, fd, now_ms + m_limits.request_deadline_ms};
    ++m_addresses[address].open;
    return id;
}

void ConnectionGuard::closed(std::uint64_t id) {
    std::lock_guard lock(m_mutex);
    const auto it = m_connections.find(id);
    if (it == m_connections.end()) return;
    const std::string address = std::move(it->second.address);
    m_connections.erase(it);
    if (const auto a = m_addresses.find(address); a != m_addresses.end() && a->second.open > 0)
        --a->second.open;
    forget_if_idle(address);
}

void ConnectionGuard::serving(std::uint64_t id) {
    std::lock_guard lock(m_mutex);
    if (const auto it = m_connections.find(id); it != m_connections.end())
        it->second.serving = true;
}

void ConnectionGuard::answering(std::uint64_t id, std::int64_t now_ms) {
    std::lock_guard lock(m_mutex);
    if (const auto it = m_connections.find(id); it != m_connections.end()) {
        it->second.serving = false;
        it->second.answering = true;
        it->second.deadline_ms = now_ms + m_limits.request_deadline_ms;
    }
}

void ConnectionGuard::answered(std::uint64_t id, std::int64_t now_ms) {
    std::lock_guard lock(m_mutex);
    if (const auto it = m_connections.find(id); it != m_connections.end()) {
        it->second.serving = it->second.answering = false;
        it->second.deadline_ms = now_ms + m_limits.request_deadline_ms;
    }
}

void ConnectionGuard::cut_overdue(std::int64_t now_ms,
                                  const std::function<void(int fd, bool answering)>& cut) {
    std::lock_guard lock(m_mutex);
    for (auto& [id, c] : m_connections) {
        if (c.serving || c.cut || now_ms < c.deadline_ms) continue;
        c.cut = true;
        cut(c.fd, c.answering);
        ++m_addresses[c.address].cut;
        ++m_cut;
    }
}

std::vector<ConnectionGuard::AddressReport> ConnectionGuard::take_reports() {
    std::lock_guard lock(m_mutex);
    std::vector<AddressReport> reports;
    std::vector<std::string> idle;
    for (auto& [address, a] : m_addresses) {
        if (a.refused > 0 || a.cut > 0) reports.push_back({address, a.refused, a.cut});
        a.refused = a.cut = 0;
        if (a.open == 0) idle.push_back(address);
    }
    for (const auto& address : idle) m_addresses.erase(address);
    return reports;
}

ConnectionGuard::Totals ConnectionGuard::totals() const {
    std::lock_guard lock(m_mutex);
    std::size_t busy = 0;
    for (const auto& [id, c] : m_connections) busy += c.serving || c.answering ? 1 : 0;
    return {m_connections.size(), busy, m_refused, m_cut};
}

void ConnectionGuard::forget_if_idle(const std::string& address) {
    const auto a = m_addresses.find(address);
    if (a != m_addresses.end() && a->second.open == 0 && a->second.refused == 0 &&
        a->second.cut == 0)
        m_addresses.erase(a);
}

}  // namespace framelock::lobby
