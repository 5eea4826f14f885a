// Which message counters of one direction arrived already: the newest one, and a window of the
// 64 before it. A counter is fresh when it is newer than the newest or inside the window and
// not seen; anything older than the window is refused (a datagram reordered that far behind
// is as good as lost). The receiving half of datagram_seal.h's replay protection.
#pragma once

#include <cstdint>

namespace framelock::netplay {

class ReplayWindow {
  public:
    static constexpr std::uint64_t kSize = 64;

    // The full counter whose low 8 bits are `low`, nearest to the newest seen (within 128;
    // the first message counts from 0), then `ahead` more: the same low bits 256, 512, ...
    // further on (a message after a gap of more than 128). Wrap-safe: the sender's counters
    // run on past 255.
    std::uint64_t expand(std::uint8_t low, unsigned ahead = 0) const;
    // Not seen and not older than the window.
    bool fresh(std::uint64_t counter) const;
    // Marks `counter` seen (call only for a fresh counter whose message opened).
    void accept(std::uint64_t counter);

  private:
    std::uint64_t m_next = 0;  // the newest counter seen + 1; 0: none yet
    std::uint64_t m_seen = 0;  // bit i: counter m_next - 1 - i was seen
};

}  // namespace framelock::netplay
