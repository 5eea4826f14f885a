// What happens to one datagram in one direction: lost (by chance or in a blackout window),
// delivered once or twice, corrupted or not, and how long each copy is held. Decisions come
// from a seeded generator, so a run is reproducible for a given sequence of datagrams.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace framelock::netem {

// Impairment of ONE direction. Delays are one-way: a round trip through the proxy gains
// up.delay_ms + down.delay_ms on top of whatever the server itself takes.
struct Impairment {
    double delay_ms = 0.0;       // fixed hold time, >= 0
    double jitter_ms = 0.0;      // +/- spread around delay_ms, >= 0 (see ImpairmentModel)
    double loss_pct = 0.0;       // chance a datagram is dropped, 0..100
    double duplicate_pct = 0.0;  // chance a delivered datagram is sent a second time, 0..100
    double corrupt_pct = 0.0;    // chance a delivered datagram has one bit flipped, 0..100
};

// A window in which every datagram is dropped, both directions: [start_s, start_s + length_s)
// measured from the proxy's start.
struct Blackout {
    double start_s = 0.0;   // >= 0
    double length_s = 0.0;  // > 0
};

// True when `elapsed_ns` (since the proxy's start) lies inside one of `windows`.
bool in_blackout(const std::vector<Blackout>& windows, std::int64_t elapsed_ns);

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
    bool blackout = false;                  // lost because it came inside a blackout window
    std::int64_t corrupt_bit = -1;          // bit to flip (byte = bit / 8, LSB first), or -1
    std::array<std::int64_t, 2> hold_ns{};  // hold time of each copy, in nanoseconds
};

// Flips bit `bit` of `payload` (bit / 8 is the byte, bit % 8 the bit in it, LSB = 0).
// `bit` must be below payload.size() * 8.
void flip_bit(std::span<std::uint8_t> payload, std::int64_t bit);

// Hold times are uniform in [max(0, delay - jitter), delay + jitter]: jitter never makes a
// delay negative, and when jitter <= delay the mean stays exactly delay. A duplicate gets
// its own hold time, so it may arrive before the original. A corrupted datagram has exactly
// one bit flipped, chosen uniformly among its bits (an empty datagram is never corrupted),
// and both copies of a duplicated one carry the same flip. Every decision consumes the same
// number of random draws, so changing the loss rate or a blackout window does not reshuffle
// the delays or the corruption of the other datagrams.
class ImpairmentModel {
  public:
    ImpairmentModel(const Impairment& impairment, std::uint64_t seed,
                    std::vector<Blackout> blackouts = {});
    // The fate of a datagram of `size` bytes that arrived `elapsed_ns` after the start.
    Decision decide(std::size_t size, std::int64_t elapsed_ns);

  private:
    std::int64_t hold_ns(double u) const;

    Impairment m_impairment;
    std::vector<Blackout> m_blackouts;
    Random m_random;
};

}  // namespace framelock::netem
