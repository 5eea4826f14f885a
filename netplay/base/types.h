// Small value types shared by the whole netplay engine.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>

namespace framelock::netplay {

// At most eight players share a session, one pad word each.
inline constexpr int kMaxPlayers = 8;
// Rollback sessions take at most four (each prediction may cost a re-run).
inline constexpr int kMaxRollbackPlayers = 4;

// One RetroPad: bit N is RETRO_DEVICE_ID_JOYPAD_N (B=0, Y=1, SELECT=2, START=3,
// UP=4, DOWN=5, LEFT=6, RIGHT=7, A=8, X=9, L=10, R=11, L2=12, R2=13, L3=14, R3=15).
using InputWord = std::uint16_t;

// Every player's pad for one frame. Ports beyond the session's players stay 0.
struct InputFrame {
    std::array<InputWord, kMaxPlayers> pads{};
    friend bool operator==(const InputFrame&, const InputFrame&) = default;
};

// A frame number that keeps comparing correctly when the 32-bit counter wraps.
// Two frames compare by their signed distance, so ordering is only meaningful for
// frames less than 2^31 apart -- about 414 days at 60 fps, far beyond any session.
class Frame {
  public:
    constexpr Frame() = default;
    constexpr explicit Frame(std::uint32_t value) : m_value(value) {}

    constexpr std::uint32_t value() const { return m_value; }

    // Signed distance this - other, correct across wraparound.
    constexpr std::int32_t operator-(Frame other) const {
        return static_cast<std::int32_t>(m_value - other.m_value);
    }
    constexpr Frame operator+(std::int32_t delta) const {
        return Frame(m_value + static_cast<std::uint32_t>(delta));
    }
    constexpr Frame operator-(std::int32_t delta) const {
        return Frame(m_value - static_cast<std::uint32_t>(delta));
    }
    constexpr Frame& operator++() {
        ++m_value;
        return *this;
    }
    constexpr bool operator==(const Frame&) const = default;
    constexpr std::strong_ordering operator<=>(Frame other) const { return (*this - other) <=> 0; }

  private:
    std::uint32_t m_value = 0;
};

// Who a connection is: a player, or a spectator who only watches.
enum class Role : std::uint8_t {
    kPlayer = 0,
    kSpectator = 1,  // receives the confirmed inputs, never sends any
};

// [offset, offset + length) of a byte string (a state): where two differ, what a load moved.
struct ByteRange {
    std::size_t offset = 0;
    std::size_t length = 0;
    friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

}  // namespace framelock::netplay
