// What happens to one datagram in one direction: lost (by chance, in a burst or in a blackout
// window), delivered once or twice, corrupted or not, and how long each copy is held (a rare
// spike included). Decisions come from seeded generators, so a run is reproducible for a given
// sequence of datagrams.
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
    // Bursty loss (ImpairmentModel): the share of datagrams lost in bursts, 0..<100, and the
    // mean number of datagrams a burst takes, >= 1 (when burst_loss_pct > 0). On top of loss_pct.
    double burst_loss_pct = 0.0;
    double burst_length = 0.0;
    // Spikes: the chance a delivered datagram is held longer, 0..100, by a Pareto draw (shape
    // kSpikeShape) from spike_ms up, at most kSpikeCap x spike_ms, on top of delay and jitter.
    double spike_pct = 0.0;
    double spike_ms = 0.0;
};

inline constexpr double kSpikeShape = 1.5;  // as the simulator's (netplay/sim/sim_network.h)
inline constexpr double kSpikeCap = 10.0;

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
    bool burst = false;                     // lost in a burst (and not in a blackout)
    bool burst_began = false;               // ... the first of its burst
    std::int64_t burst_run = 0;             // datagrams of its burst so far, this one included
    std::int64_t spike_ns = 0;              // the spike in hold_ns[0] (0: none)
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
//
// Bursts: a two-state (Gilbert) chain with one step per datagram, on its own generator (so
// turning bursts or spikes on changes none of the other draws). In the good state a datagram
// starts a burst with probability p = b / (L (1 - b)) (b = burst_loss_pct / 100, L =
// burst_length); in a burst the next datagram is lost too with probability 1 - 1 / L. Bursts
// then take L datagrams on average (geometric), and a share b of the datagrams in the long
// run. The chain steps in a blackout too; a datagram a blackout takes is counted there.
// Spikes: a delivered datagram's first copy is held spike_ns longer (a duplicate keeps its own
// hold): mostly none, heavy-tailed when there is one.
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
    Random m_burst_random;  // the chain's step and the spike: three draws per datagram
    bool m_in_burst = false;
    std::int64_t m_burst_run = 0;
};

}  // namespace framelock::netem
