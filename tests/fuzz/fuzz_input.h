// Reading a fuzz input as a stream of small fields: every read is bounded and an exhausted
// input reads as zeros, so any byte string is a valid program for a target's harness.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace framelock::fuzz {

class FuzzInput {
  public:
    FuzzInput(const std::uint8_t* data, std::size_t size) : m_bytes(data, size) {}

    bool empty() const { return m_pos >= m_bytes.size(); }
    std::size_t remaining() const { return m_bytes.size() - m_pos; }
    std::uint8_t u8() { return empty() ? 0 : m_bytes[m_pos++]; }
    std::uint16_t u16() {
        const std::uint16_t lo = u8();
        return static_cast<std::uint16_t>(lo | (u8() << 8));
    }
    std::uint32_t u32() {
        const std::uint32_t lo = u16();
        return lo | (static_cast<std::uint32_t>(u16()) << 16);
    }
    // Up to `n` bytes (fewer at the end of the input).
    std::span<const std::uint8_t> bytes(std::size_t n) {
        n = std::min(n, remaining());
        const auto out = m_bytes.subspan(m_pos, n);
        m_pos += n;
        return out;
    }
    // A u16 length, then that many bytes (a datagram in the harnesses' op streams).
    std::vector<std::uint8_t> blob() {
        const auto b = bytes(u16());
        return {b.begin(), b.end()};
    }

  private:
    std::span<const std::uint8_t> m_bytes;
    std::size_t m_pos = 0;
};

// Writes what FuzzInput reads (the corpus capture program builds seeds with it).
class FuzzOutput {
  public:
    void u8(std::uint8_t v) { m_bytes.push_back(v); }
    void u16(std::uint16_t v) {
        u8(static_cast<std::uint8_t>(v));
        u8(static_cast<std::uint8_t>(v >> 8));
    }
    void u32(std::uint32_t v) {
        u16(static_cast<std::uint16_t>(v));
        u16(static_cast<std::uint16_t>(v >> 16));
    }
    void blob(std::span<const std::uint8_t> b) {
        u16(static_cast<std::uint16_t>(b.size()));
        m_bytes.insert(m_bytes.end(), b.begin(), b.end());
    }
    std::vector<std::uint8_t>& data() { return m_bytes; }

  private:
    std::vector<std::uint8_t> m_bytes;
};

}  // namespace framelock::fuzz
