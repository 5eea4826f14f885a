#include "lobby/join_lockout.h"

#include <algorithm>

namespace framelock::lobby {
namespace {

// The answer while earlier attempts that would reach the limit are still being checked:
// they take well under a second.
constexpr std::int64_t kPendingRetryMs = 1000;

std::string key_of(const std::string& room, const std::string& address) {
    return room + '\n' + address;  // neither holds a newline
}

}  // namespace

JoinLockout::Entry* JoinLockout::find(const std::string& key) {
    auto it = m_entries.find(key);
    if (it == m_entries.end()) return nullptr;
    m_lru.splice(m_lru.begin(), m_lru, it->second.lru);
    return &it->second;
}

JoinLockout::Entry& JoinLockout::find_or_add(const std::string& key) {
    if (Entry* e = find(key)) return *e;
    if (m_entries.size() >= std::max<std::size_t>(m_limits.max_entries, 1)) {
        m_entries.erase(m_lru.back());
        m_lru.pop_back();
    }
    m_lru.push_front(key);
    Entry& e = m_entries[key];
    e.lru = m_lru.begin();
    return e;
}

void JoinLockout::erase(const std::string& key) {
    auto it = m_entries.find(key);
    m_lru.erase(it->second.lru);
    m_entries.erase(it);
}

std::int64_t JoinLockout::begin(const std::string& room, const std::string& address,
                                std::int64_t now_ms) {
    std::lock_guard lock(m_mutex);
    Entry& e = find_or_add(key_of(room, address));
    if (e.locked_until_ms > now_ms) {
        ++m_refused;
        return e.locked_until_ms - now_ms;
    }
    if (e.locked_until_ms != 0 || now_ms - e.last_failure_ms >= m_limits.lockout_ms) {
        e.locked_until_ms = 0;  // a lockout over, or failures long ago: a clean slate
        e.failures = 0;
    }
    if (e.failures + e.pending >= m_limits.failures) {
        ++m_refused;
        return kPendingRetryMs;
    }
    ++e.pending;
    return 0;
}

void JoinLockout::finish(const std::string& room, const std::string& address, std::int64_t now_ms,
                         bool right) {
    std::lock_guard lock(m_mutex);
    const std::string key = key_of(room, address);
    if (right) {
        // Evicted meanwhile or not: nothing to remember about this pair but pending checks.
        if (Entry* e = find(key)) {
            e->failures = 0;
            e->pending = std::max(0, e->pending - 1);
            if (e->pending == 0 && e->locked_until_ms == 0) erase(key);
        }
        return;
    }
    Entry& e = find_or_add(key);
    e.pending = std::max(0, e.pending - 1);
    e.last_failure_ms = now_ms;
    if (++e.failures >= m_limits.failures) {
        e.locked_until_ms = now_ms + m_limits.lockout_ms;
        e.failures = 0;
    }
}

void JoinLockout::cancel(const std::string& room, const std::string& address) {
    std::lock_guard lock(m_mutex);
    if (Entry* e = find(key_of(room, address))) e->pending = std::max(0, e->pending - 1);
}

std::size_t JoinLockout::size() const {
    std::lock_guard lock(m_mutex);
    return m_entries.size();
}

std::uint64_t JoinLockout::refused() const {
    std::lock_guard lock(m_mutex);
    return m_refused;
}

}  // namespace framelock::lobby
