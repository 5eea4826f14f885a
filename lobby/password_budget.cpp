#include "lobby/password_budget.h"

#include <algorithm>

namespace framelock::lobby {
namespace {

// The answer while checks that would meet a limit are still running: they take well under a
// second.
constexpr std::int64_t kPendingRetryMs = 1000;

constexpr std::array<PasswordBudget::Level, 3> kLevels = {
    PasswordBudget::Level::kRoom, PasswordBudget::Level::kAddress, PasswordBudget::Level::kClient};

std::array<std::string, 3> keys_of(const std::string& room, const std::string& address,
                                   const std::string& client_key) {
    // None of them holds a newline (the API checked them).
    return {room, room + '\n' + address, room + '\n' + address + '\n' + client_key};
}

std::size_t at(PasswordBudget::Level level) {
    return static_cast<std::size_t>(level);
}

}  // namespace

int PasswordBudget::limit(Level level) const {
    switch (level) {
        case Level::kRoom:
            return m_limits.room;
        case Level::kAddress:
            return m_limits.address;
        case Level::kClient:
            return m_limits.client;
    }
    return 0;
}

PasswordBudget::Entry* PasswordBudget::find(Table& table, const std::string& key,
                                            std::int64_t now_ms) {
    auto it = table.entries.find(key);
    if (it == table.entries.end()) return nullptr;
    table.lru.splice(table.lru.begin(), table.lru, it->second.lru);
    auto& wrong = it->second.wrong_ms;
    while (!wrong.empty() && now_ms - wrong.front() >= m_limits.window_ms) wrong.pop_front();
    return &it->second;
}

PasswordBudget::Entry& PasswordBudget::find_or_add(Table& table, const std::string& key,
                                                   std::int64_t now_ms) {
    if (Entry* e = find(table, key, now_ms)) return *e;
    if (table.entries.size() >= std::max<std::size_t>(m_limits.max_entries, 1)) {
        table.entries.erase(table.lru.back());
        table.lru.pop_back();
    }
    table.lru.push_front(key);
    Entry& e = table.entries[key];
    e.lru = table.lru.begin();
    return e;
}

void PasswordBudget::erase_if_idle(Table& table, const std::string& key) {
    auto it = table.entries.find(key);
    if (it == table.entries.end() || it->second.pending > 0 || !it->second.wrong_ms.empty()) return;
    table.lru.erase(it->second.lru);
    table.entries.erase(it);
}

std::optional<PasswordBudget::Wait> PasswordBudget::begin(const std::string& room,
                                                          const std::string& address,
                                                          const std::string& client_key,
                                                          std::int64_t now_ms) {
    std::lock_guard lock(m_mutex);
    const auto keys = keys_of(room, address, client_key);
    std::optional<Wait> wait;
    for (const Level level : kLevels) {
        // Looked up, not added: a refused attempt leaves nothing behind.
        const Entry* e = find(m_tables[at(level)], keys[at(level)], now_ms);
        if (e == nullptr) continue;
        const int wrong = static_cast<int>(e->wrong_ms.size());
        const int over = wrong + e->pending - limit(level);
        if (over < 0) continue;
        // Room again once `over + 1` of the failures left the window; failures alone cannot
        // make room when checks still running fill the level.
        const std::int64_t ms =
            over < wrong ? e->wrong_ms[static_cast<std::size_t>(over)] + m_limits.window_ms - now_ms
                         : kPendingRetryMs;
        if (!wait || ms > wait->ms) wait = Wait{level, wrong, std::max<std::int64_t>(ms, 1)};
    }
    if (wait) {
        ++m_refused;
        return wait;
    }
    for (const Level level : kLevels)
        ++find_or_add(m_tables[at(level)], keys[at(level)], now_ms).pending;
    return std::nullopt;
}

std::optional<PasswordBudget::Level> PasswordBudget::finish(const std::string& room,
                                                            const std::string& address,
                                                            const std::string& client_key,
                                                            std::int64_t now_ms, bool right) {
    std::lock_guard lock(m_mutex);
    const auto keys = keys_of(room, address, client_key);
    std::optional<Level> filled;
    if (!right) ++m_wrong;
    for (const Level level : kLevels) {
        Table& table = m_tables[at(level)];
        // Evicted meanwhile: a wrong one is remembered again, a right one needs nothing.
        Entry* e = right ? find(table, keys[at(level)], now_ms)
                         : &find_or_add(table, keys[at(level)], now_ms);
        if (e == nullptr) continue;
        e->pending = std::max(0, e->pending - 1);
        if (right) {
            erase_if_idle(table, keys[at(level)]);
            continue;
        }
        e->wrong_ms.push_back(now_ms);
        if (!filled && static_cast<int>(e->wrong_ms.size()) == limit(level)) filled = level;
    }
    return filled;
}

void PasswordBudget::cancel(const std::string& room, const std::string& address,
                            const std::string& client_key) {
    std::lock_guard lock(m_mutex);
    const auto keys = keys_of(room, address, client_key);
    for (const Level level : kLevels) {
        Table& table = m_tables[at(level)];
        auto it = table.entries.find(keys[at(level)]);
        if (it == table.entries.end()) continue;
        it->second.pending = std::max(0, it->second.pending - 1);
        erase_if_idle(table, keys[at(level)]);
    }
}

std::size_t PasswordBudget::size() const {
    std::lock_guard lock(m_mutex);
    std::size_t n = 0;
    for (const Table& t : m_tables) n += t.entries.size();
    return n;
}

std::uint64_t PasswordBudget::refused() const {
    std::lock_guard lock(m_mutex);
    return m_refused;
}

std::uint64_t PasswordBudget::wrong() const {
    std::lock_guard lock(m_mutex);
    return m_wrong;
}

}  // namespace framelock::lobby
