// Wrong room passwords, counted per (room, client address): after `failures` wrong ones the
// address may not try that room again for `lockout_ms`. Other addresses are not affected,
// so a guesser cannot lock the players out. Attempts still being checked count too, so
// sending many at once gains nothing. The memory is bounded: past `max_entries` pairs the
// least recently used is forgotten. Times are passed in (milliseconds); thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>

namespace framelock::lobby {

struct LockoutLimits {
    int failures = 5;                  // wrong passwords before the lockout
    std::int64_t lockout_ms = 60'000;  // how long it lasts; older failures are forgotten too
    std::size_t max_entries = 100'000;
};

class JoinLockout {
  public:
    explicit JoinLockout(LockoutLimits limits) : m_limits(limits) {}

    // Before checking a password of `room` from `address`: 0 when the check may run (then
    // finish() or cancel() must follow), else the milliseconds until this address may try
    // the room again.
    std::int64_t begin(const std::string& room, const std::string& address, std::int64_t now_ms);
    // The check's outcome: a right password clears the address's failures on the room.
    void finish(const std::string& room, const std::string& address, std::int64_t now_ms,
                bool right);
    // The check did not run (the workers were busy).
    void cancel(const std::string& room, const std::string& address);

    // (room, address) pairs remembered now.
    std::size_t size() const;
    // Attempts refused by a lockout, since the start.
    std::uint64_t refused() const;

    const LockoutLimits& limits() const { return m_limits; }

  private:
    struct Entry {
        int failures = 0;  // within lockout_ms of the last one
        int pending = 0;   // attempts being checked
        std::int64_t last_failure_ms = 0;
        std::int64_t locked_until_ms = 0;
        std::list<std::string>::iterator lru;  // its place in m_lru
    };
    Entry* find(const std::string& key);
    Entry& find_or_add(const std::string& key);
    void erase(const std::string& key);  // a key present

    const LockoutLimits m_limits;
    mutable std::mutex m_mutex;
    std::unordered_map<std::string, Entry> m_entries;
    std::list<std::string> m_lru;  // keys, the most recently used first
    std::uint64_t m_refused = 0;
};

}  // namespace framelock::lobby
