// What happens to one datagram in one direction: lost, delivered once, or delivered twice,
// and how long each copy is held. Decisions come from a seeded generator, so a run is
// reproducible for a given sequence of datagrams.
#pragma once

#include <array>
#include <cstdint>

namespace framelock::netem {

// Impairment of ONE direction. Delays are one-way: a round trip through the proxy gains
// up.delay_ms + down.delay_ms on top of whatever the server itself takes.
struct Impairment {
    double delay_ms = 0.0;       // fixed hold time, >= 0
    double jitter_ms = 0.0;      // +/- spread around delay_ms, >= 0 (see ImpairmentModel)
    double loss_pct = 0.0;       // chance a datagram is dropped, 0..100
    double duplicate_pct = 0.0;  // chance a delivered datagram is sent a second time, 0..100
};

// xoshiro256** seeded through splitmix64: small, fast, and the same on every platform
// (the standard distributions are implementation-defined, which would break --seed).
class Random {
  public:
    explicit Random(std::uint64_t seed);
    std::uint64_t next();
    double unit();  // uniform in [0, 1)

  private:
    std::array<std::uint64_t, 4> m_s{};
};

struct Decision {
    int copies = 1;                         // 0 = lost, 1 = delivered, 2 = plus a duplicate
    std::array<std::int64_t, 2> hold_ns{};  // hold time of each copy, in nanoseconds
};

// Hold times are uniform in [max(0, delay - jitter), delay + jitter]: jitter never makes a
// delay negative, and when jitter <= delay the mean stays exactly delay. A duplicate gets
// its own hold time, so it may arrive before the original. Every decision consumes the
// same number of random draws, so changing the loss rate does not reshuffle the delays.
class ImpairmentModel {
  public:
    ImpairmentModel(const Impairment& impairment, std::uint64_t seed);
    Decision decide();

  private:
    std::int64_t hold_ns(double u) const;

    Impairment m_impairment;
    Random m_random;
};

}  // namespace framelock::netem
