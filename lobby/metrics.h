// The lobby's counters in Prometheus' text format: requests by route and status, errors,
// a request latency histogram, and gauges filled in at scrape time.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace framelock::lobby {

class Metrics {
  public:
    static constexpr std::array<double, 10> kBucketsMs = {0.5, 1, 2, 5, 10, 25, 50, 100, 250, 1000};

    void observe(const std::string& route, int status, double latency_ms);
    // The whole exposition; `gauges` are name -> value lines added as they are.
    std::string render(const std::map<std::string, double>& gauges) const;

  private:
    std::map<std::pair<std::string, int>, std::uint64_t> m_requests;
    std::array<std::uint64_t, kBucketsMs.size()> m_buckets{};
    std::uint64_t m_count = 0, m_errors = 0;
    double m_sum_ms = 0;
};

}  // namespace framelock::lobby
