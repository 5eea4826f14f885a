// Wrong room passwords, budgeted: a guesser gets a few guesses a minute at a room from any
// number of addresses, and cannot spend what a player at its own address needs.
//
// Every check of a room's password that comes out wrong counts, for `window_ms`, at three
// levels: the room (from anywhere), the address it came from, and the client (that address
// and the client key the join carried, "" when none). A check runs only while every level is
// under its limit, counting the checks still running (so guesses sent at once gain nothing);
// otherwise the attempt is refused unchecked, since checking it would tell a guesser the
// answer, with the time until the level that refused it has room again. A right password
// counts nowhere.
//
// Why three: the room's budget caps the guesses from any number of addresses; the address's
// share, below the room's, keeps one address from spending all of it; the client's share,
// below the address's, leaves a player behind the same router, NAT or proxy as a guesser
// tries of its own, as long as the guesser keeps one client key. One that forges a key per
// guess spends its address's share, and then joins from that address wait: before its check
// nothing but the password tells two strangers at one address apart (docs/lobby.md,
// "Security").
//
// Memory is bounded: at most `max_entries` entries per level, the least recently used
// forgotten first. Times are passed in (milliseconds); thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace framelock::lobby {

struct PasswordBudgetLimits {
    std::int64_t window_ms = 60'000;
    int room = 10;    // wrong passwords per window at one room, from all addresses
    int address = 5;  // of those, from one address
    int client = 3;   // of those, from one client (an address and its client key)
    std::size_t max_entries = 100'000;  // per level
};

class PasswordBudget {
  public:
    enum class Level { kRoom = 0, kAddress = 1, kClient = 2 };
    // An attempt refused unchecked: the level whose limit it met, its wrong passwords in the
    // window now, and the milliseconds until it has room again.
    struct Wait {
        Level level;
        int wrong;
        std::int64_t ms;
    };

    explicit PasswordBudget(PasswordBudgetLimits limits) : m_limits(limits) {}

    // Before checking a password of `room` from `address` with `client_key`: nullopt when the
    // check may run (then finish() or cancel() must follow), else why it may not, and for how
    // long.
    std::optional<Wait> begin(const std::string& room, const std::string& address,
                              const std::string& client_key, std::int64_t now_ms);
    // The check's outcome. A wrong one that filled a level returns the widest level it
    // filled (to name the guesser in the log once).
    std::optional<Level> finish(const std::string& room, const std::string& address,
                                const std::string& client_key, std::int64_t now_ms, bool right);
    // The check did not run (the workers were busy).
    void cancel(const std::string& room, const std::string& address, const std::string& client_key);

    // Entries remembered now, at all levels.
    std::size_t size() const;
    // Attempts refused unchecked, and checks that came out wrong, since the start.
    std::uint64_t refused() const;
    std::uint64_t wrong() const;

    const PasswordBudgetLimits& limits() const { return m_limits; }

  private:
    struct Entry {
        std::deque<std::int64_t> wrong_ms;  // within the window, oldest first
        int pending = 0;                    // checks running
        std::list<std::string>::iterator lru;
    };
    struct Table {
        std::unordered_map<std::string, Entry> entries;
        std::list<std::string> lru;  // keys, the most recently used first
    };
    using Keys = std::array<std::string, 3>;  // by Level

    Entry* find(Table& table, const std::string& key, std::int64_t now_ms);
    Entry& find_or_add(Table& table, const std::string& key, std::int64_t now_ms);
    void erase_if_idle(Table& table, const std::string& key);
    int limit(Level level) const;

    const PasswordBudgetLimits m_limits;
    mutable std::mutex m_mutex;
    std::array<Table, 3> m_tables;  // by Level
    std::uint64_t m_refused = 0;
    std::uint64_t m_wrong = 0;
};

}  // namespace framelock::lobby
