#include "tools/netem/impairment.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

namespace framelock::netem {

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

}  // namespace

Random::Random(std::uint64_t seed) {
    for (auto& word : m_s) word = splitmix64(seed);
}

std::uint64_t Random::next() {
    const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    const std::uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
}

double Random::unit() {
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

bool in_blackout(const std::vector<Blackout>& windows, std::int64_t elapsed_ns) {
    const double elapsed_s = static_cast<double>(elapsed_ns) / 1e9;
    return std::any_of(windows.begin(), windows.end(), [&](const Blackout& window) {
        return elapsed_s >= window.start_s && elapsed_s < window.start_s + window.length_s;
    });
}

void flip_bit(std::span<std::uint8_t> payload, std::int64_t bit) {
    assert(bit >= 0 && static_cast<std::size_t>(bit) < payload.size() * 8);
    payload[static_cast<std::size_t>(bit / 8)] ^= static_cast<std::uint8_t>(1u << (bit % 8));
}

ImpairmentModel::ImpairmentModel(const Impairment& impairment, std::uint64_t seed,
                                 std::vector<Blackout> blackouts)
    : m_impairment(impairment),
      m_blackouts(std::move(blackouts)),
      m_random(seed),
      m_burst_random(seed ^ 0x6a09e667f3bcc909ULL) {}

std::int64_t ImpairmentModel::hold_ns(double u) const {
    const double low = std::max(0.0, m_impairment.delay_ms - m_impairment.jitter_ms);
    const double high = m_impairment.delay_ms + m_impairment.jitter_ms;
    return std::llround((low + u * (high - low)) * 1e6);
}

Decision ImpairmentModel::decide(std::size_t size, std::int64_t elapsed_ns) {
    // Six draws per datagram, always, whatever the outcome.
    const double loss = m_random.unit();
    const double duplicate = m_random.unit();
    const double first = m_random.unit();
    const double second = m_random.unit();
    const double corrupt = m_random.unit();
    const std::uint64_t bit = m_random.next();

    // Three more from the bursts' own generator, always.
    const double step = m_burst_random.unit();
    const double spike = m_burst_random.unit();
    const double spike_size = m_burst_random.unit();

    const double b = m_impairment.burst_loss_pct / 100.0;
    const double length = std::max(1.0, m_impairment.burst_length);
    const bool was_in_burst = m_in_burst;
    if (b <= 0)
        m_in_burst = false;
    else if (m_in_burst)
        m_in_burst = step < 1.0 - 1.0 / length;
    else
        m_in_burst = step < b / (length * (1.0 - b));
    m_burst_run = m_in_burst ? m_burst_run + 1 : 0;

    Decision decision;
    decision.blackout = in_blackout(m_blackouts, elapsed_ns);
    decision.burst = m_in_burst && !decision.blackout;
    decision.burst_began = decision.burst && !was_in_burst;
    decision.burst_run = decision.burst ? m_burst_run : 0;
    decision.copies = decision.blackout || decision.burst              ? 0
                      : loss * 100.0 < m_impairment.loss_pct           ? 0
                      : duplicate * 100.0 < m_impairment.duplicate_pct ? 2
                                                                       : 1;
    if (decision.copies > 0 && size > 0 && corrupt * 100.0 < m_impairment.corrupt_pct)
        decision.corrupt_bit = static_cast<std::int64_t>(bit % (size * 8));
    decision.hold_ns = {hold_ns(first), hold_ns(second)};
    if (decision.copies > 0 && m_impairment.spike_ms > 0 &&
        spike * 100.0 < m_impairment.spike_pct) {
        const double scale = std::min(std::pow(1.0 - spike_size, -1.0 / kSpikeShape), kSpikeCap);
        decision.spike_ns = std::llround(m_impairment.spike_ms * scale * 1e6);
        decision.hold_ns[0] += decision.spike_ns;
    }
    return decision;
}

}  // namespace framelock::netem
