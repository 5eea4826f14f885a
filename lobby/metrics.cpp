#include "lobby/metrics.h"

#include <fmt/format.h>

namespace framelock::lobby {

void Metrics::observe(const std::string& route, int status, double latency_ms) {
    ++m_requests[{route, status}];
    if (status >= 400) ++m_errors;
    ++m_count;
    m_sum_ms += latency_ms;
    for (std::size_t i = 0; i < kBucketsMs.size(); ++i) {
        if (latency_ms <= kBucketsMs[i]) ++m_buckets[i];
    }
}

std::string Metrics::render(const std::map<std::string, double>& gauges) const {
    std::string out;
    for (const auto& [name, value] : gauges) {
        out += fmt::format("# TYPE {} gauge\n{} {}\n", name, name, value);
    }
    out += "# HELP framelock_lobby_requests_total HTTP requests by route and status.\n";
    out += "# TYPE framelock_lobby_requests_total counter\n";
    for (const auto& [key, n] : m_requests) {
        out += fmt::format("framelock_lobby_requests_total{{route=\"{}\",status=\"{}\"}} {}\n",
                           key.first, key.second, n);
    }
    out += "# HELP framelock_lobby_errors_total Requests answered with a 4xx or 5xx status.\n";
    out += fmt::format(
        "# TYPE framelock_lobby_errors_total counter\nframelock_lobby_errors_total {}\n", m_errors);
    out += "# HELP framelock_lobby_request_seconds Time to answer a request.\n";
    out += "# TYPE framelock_lobby_request_seconds histogram\n";
    // Cumulative by construction: observe() counts a request in every bucket it fits.
    for (std::size_t i = 0; i < kBucketsMs.size(); ++i) {
        out += fmt::format("framelock_lobby_request_seconds_bucket{{le=\"{}\"}} {}\n",
                           kBucketsMs[i] / 1000.0, m_buckets[i]);
    }
    out += fmt::format("framelock_lobby_request_seconds_bucket{{le=\"+Inf\"}} {}\n", m_count);
    out += fmt::format("framelock_lobby_request_seconds_sum {}\n", m_sum_ms / 1000.0);
    out += fmt::format("framelock_lobby_request_seconds_count {}\n", m_count);
    return out;
}

}  // namespace framelock::lobby
