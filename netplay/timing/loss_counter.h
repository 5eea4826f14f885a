// Datagram loss from the 8-bit sequence numbers of unreliable messages.
//
// A datagram that arrives after a newer one (jitter reorders datagrams sent a few
// milliseconds apart) was counted lost when the newer one showed the gap; it counts as
// arrived once it turns up, and a duplicate counts once. Without that, jitter alone reads as
// loss, and loss buys a frame of input delay (DelayController::observe_loss).
#pragma once

#include <cstdint>

namespace framelock::netplay {

class LossCounter {
  public:
    // Records a datagram; true when it is the newest so far (its contents supersede).
    bool record(std::uint8_t seq);

    std::uint64_t received() const { return m_received; }  // distinct datagrams
    std::uint64_t lost() const { return m_lost; }          // gaps not filled (yet)
    // lost / (received + lost), 0 before anything was lost.
    double rate() const;

  private:
    bool m_any = false;
    std::uint8_t m_newest = 0;
    std::uint64_t m_seen = 0;  // bit i: datagram m_newest - i arrived (i < 64)
    std::uint64_t m_received = 0;
    std::uint64_t m_lost = 0;
};

}  // namespace framelock::netplay
