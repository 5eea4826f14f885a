// Explicit little-endian field encoding. Every read is bounds-checked: a reader that runs
// past its end, or meets a length it cannot honour, turns failed and stays failed, and
// the decoder that owns it returns an error. Never a memcpy of a struct.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/safe_text.h"

namespace framelock::netplay {

class WireWriter {
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
    void u64(std::uint64_t v) {
        u32(static_cast<std::uint32_t>(v));
        u32(static_cast<std::uint32_t>(v >> 32));
    }
    void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
    void i16(std::int16_t v) { u16(static_cast<std::uint16_t>(v)); }
    // u16 length, then the bytes; a longer string is cut to `max` bytes on a character's
    // boundary (cut_text, netplay/base/safe_text.h).
    void string(const std::string& s, std::size_t max = 255) {
        const std::string cut = s.size() <= max ? std::string() : cut_text(s, max);
        const std::string& sent = s.size() <= max ? s : cut;
        u16(static_cast<std::uint16_t>(sent.size()));
        m_bytes.insert(m_bytes.end(), sent.begin(), sent.end());
    }
    void bytes(std::span<const std::uint8_t> b) {
        m_bytes.insert(m_bytes.end(), b.begin(), b.end());
    }

    std::vector<std::uint8_t>& data() { return m_bytes; }
    std::vector<std::uint8_t> take() { return std::move(m_bytes); }

  private:
    std::vector<std::uint8_t> m_bytes;
};

class WireReader {
  public:
    explicit WireReader(std::span<const std::uint8_t> bytes) : m_bytes(bytes) {}

    std::uint8_t u8() {
        if (!need(1)) return 0;
        return m_bytes[m_pos++];
    }
    std::uint16_t u16() {
        const std::uint16_t lo = u8();
        return static_cast<std::uint16_t>(lo | (u8() << 8));
    }
    std::uint32_t u32() {
        const std::uint32_t lo = u16();
        return lo | (static_cast<std::uint32_t>(u16()) << 16);
    }
    std::uint64_t u64() {
        const std::uint64_t lo = u32();
        return lo | (static_cast<std::uint64_t>(u32()) << 32);
    }
    std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
    std::int16_t i16() { return static_cast<std::int16_t>(u16()); }
    std::string string(std::size_t max = 255) {
        const std::size_t n = u16();
        if (n > max) m_failed = true;
        if (m_failed || !need(n)) return {};
        std::string s(reinterpret_cast<const char*>(m_bytes.data() + m_pos), n);
        m_pos += n;
        return s;
    }
    std::span<const std::uint8_t> bytes(std::size_t n) {
        if (!need(n)) return {};
        auto out = m_bytes.subspan(m_pos, n);
        m_pos += n;
        return out;
    }

    bool failed() const { return m_failed; }
    // True when every byte was consumed and nothing failed: trailing garbage is malformed too.
    bool done() const { return !m_failed && m_pos == m_bytes.size(); }
    std::size_t remaining() const { return m_failed ? 0 : m_bytes.size() - m_pos; }
    void fail() { m_failed = true; }

  private:
    bool need(std::size_t n) {
        if (m_failed || m_bytes.size() - m_pos < n) {
            m_failed = true;
            return false;
        }
        return true;
    }

    std::span<const std::uint8_t> m_bytes;
    std::size_t m_pos = 0;
    bool m_failed = false;
};

}  // namespace framelock::netplay
