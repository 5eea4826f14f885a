// Per-client request budget: a token bucket per IP address (refill `rate` per second up to
// `burst`), with the clock passed in. Idle buckets are forgotten so a flood of addresses
// cannot grow it without bound.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace framelock::lobby {

class RateLimiter {
  public:
    RateLimiter(double rate_per_s, double burst, std::size_t max_clients = 100'000)
        : m_rate(rate_per_s), m_burst(burst), m_max(max_clients) {}

    // Takes one request's worth; false when `client` is over its budget.
    bool allow(const std::string& client, std::int64_t now_ms) {
        if (m_buckets.size() >= m_max) prune(now_ms);
        auto [it, fresh] = m_buckets.try_emplace(client, Bucket{m_burst, now_ms});
        Bucket& b = it->second;
        if (!fresh) {
            b.tokens = std::min(m_burst, b.tokens + (now_ms - b.at_ms) * m_rate / 1000.0);
            b.at_ms = now_ms;
        }
        if (b.tokens < 1.0) return false;
        b.tokens -= 1.0;
        return true;
    }
    std::size_t clients() const { return m_buckets.size(); }

  private:
    struct Bucket {
        double tokens;
        std::int64_t at_ms;
    };
    void prune(std::int64_t now_ms) {
        // A bucket full again is the same as no bucket.
        const double full_after_ms = m_burst / m_rate * 1000.0;
        for (auto it = m_buckets.begin(); it != m_buckets.end();) {
            it = now_ms - it->second.at_ms > full_after_ms ? m_buckets.erase(it) : std::next(it);
        }
        if (m_buckets.size() >= m_max) m_buckets.clear();  // a flood of addresses: start over
    }
    double m_rate, m_burst;
    std::size_t m_max;
    std::unordered_map<std::string, Bucket> m_buckets;
};

}  // namespace framelock::lobby
