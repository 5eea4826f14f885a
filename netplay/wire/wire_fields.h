// One description of a wire record, walked both ways. A record's fields are listed once, in
// wire order, with their wire types and what a receiver accepts, in a function
//
//     void fields(auto& io, Is<Start> auto& m) {
//         io.tag(MsgId::kStart);
//         io.i64(m.start_time_us).within(-kMaxClockUs, kMaxClockUs);
//         io.u32(m.frame_time_ns).within(1'000'000, 1'000'000'000);
//         io.u8(m.delay);
//         io.u8(m.players).within(1, kMaxPlayers);
//     }
//
// that FieldWriter (encoding) and FieldReader (decoding) both walk. The reader is as
// bounds-checked as the WireReader under it: a short or malformed record turns it failed and
// it stays failed (every later read gives 0, every list is empty); what a field list says a
// receiver accepts (`.within`, `.at_most`, `io.check`, a list's bound) fails it too. The
// writer checks nothing and writes each field as given (cast to its wire type): a receiver's
// checks are the ones that refuse a bad record.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "netplay/wire/wire.h"

namespace framelock::netplay {

// A record of type T as its field list sees it: const when written, mutable when read.
template <class M, class T>
concept Is = std::same_as<std::remove_const_t<M>, T>;

// A list's elements by their own field lists (found by argument-dependent lookup).
struct ByFields {
    void operator()(auto& io, auto& element) const { fields(io, element); }
};

// What the writer makes of what a field list says a receiver accepts: nothing.
struct Unchecked {
    constexpr const Unchecked& at_least(const auto&) const { return *this; }
    constexpr const Unchecked& at_most(const auto&) const { return *this; }
    constexpr const Unchecked& within(const auto&, const auto&) const { return *this; }
    constexpr const Unchecked& is(const auto&) const { return *this; }
};

// Encodes a record by walking its field list onto a WireWriter (which it does not own).
class FieldWriter {
  public:
    explicit FieldWriter(WireWriter& w) : m_w(w) {}

    // Fixed-width little-endian integers (wire.h); an enum travels as its value. One call may
    // list several fields of one wire type; a call of one field may go on with what the
    // reader accepts of it (`io.u8(m.players).within(1, kMaxPlayers)`).
    auto u8(const auto&... v) { return field<std::uint8_t>(v...); }
    auto u16(const auto&... v) { return field<std::uint16_t>(v...); }
    auto u32(const auto&... v) { return field<std::uint32_t>(v...); }
    auto u64(const auto&... v) { return field<std::uint64_t>(v...); }
    auto i64(const auto&... v) { return field<std::int64_t>(v...); }
    // A u8 that names what follows (a message id): always `value`.
    void tag(auto value) { m_w.u8(static_cast<std::uint8_t>(value)); }
    // A u8, 0 or 1.
    void flag(bool v) { m_w.u8(v ? 1 : 0); }
    // Flags packed in one u8, the first in bit 0; the other bits are 0.
    void bits(const auto&... flags) {
        unsigned byte = 0, bit = 1;
        ((byte |= flags ? bit : 0, bit <<= 1), ...);
        m_w.u8(static_cast<std::uint8_t>(byte));
    }
    // A u16 length, then the bytes: at most `max` (the writer cuts a longer string).
    void string(const std::string& s, std::size_t max) { m_w.string(s, max); }
    // Exactly N bytes.
    template <std::size_t N>
    void bytes(const std::array<std::uint8_t, N>& b) {
        m_w.bytes(b);
    }
    // A flag (present or not), then the N bytes when present.
    template <std::size_t N>
    void optional(const std::optional<std::array<std::uint8_t, N>>& b) {
        flag(b.has_value());
        if (b) m_w.bytes(*b);
    }
    // A u8 count, then each element by `element(io, e)` (by default its field list). The
    // reader refuses more than `most`; the writer sends every element it is given.
    template <class T, class Element = ByFields>
    void list(const std::vector<T>& v, std::size_t, Element element = {}) {
        m_w.u8(static_cast<std::uint8_t>(v.size()));
        for (const T& e : v) element(*this, e);
    }
    // The same, but the writer sends the first `most` elements only.
    template <class T, class Element = ByFields>
    void capped_list(const std::vector<T>& v, std::size_t most, Element element = {}) {
        const std::size_t n = std::min(v.size(), most);
        m_w.u8(static_cast<std::uint8_t>(n));
        for (std::size_t i = 0; i < n; ++i) element(*this, v[i]);
    }
    // A field with a coding of its own: `codec.write(WireWriter&, const T&)` and
    // `bool codec.read(WireReader&, T&)` (false: malformed).
    template <class T, class Codec>
    void custom(const T& v, const Codec& codec) {
        codec.write(m_w, v);
    }
    // What the reader accepts of the fields so far, taken together (a field's own check goes
    // with the field).
    void check(bool) {}
    // The reader reads the record no further when `condition` holds (the fields after stay
    // as constructed); the writer writes every field.
    bool end_here_if(bool) { return false; }

  private:
    template <class W, class... T>
    auto field(const T&... v) {
        (put(static_cast<W>(v)), ...);
        if constexpr (sizeof...(T) == 1) return Unchecked{};
    }
    void put(std::uint8_t v) { m_w.u8(v); }
    void put(std::uint16_t v) { m_w.u16(v); }
    void put(std::uint32_t v) { m_w.u32(v); }
    void put(std::uint64_t v) { m_w.u64(v); }
    void put(std::int64_t v) { m_w.i64(v); }

    WireWriter& m_w;
};

template <class T>
class Accept;

// Decodes a record by walking its field list over a WireReader (which it does not own).
class FieldReader {
  public:
    explicit FieldReader(WireReader& r) : m_r(r) {}

    auto u8(auto&... v) { return field<std::uint8_t>(v...); }
    auto u16(auto&... v) { return field<std::uint16_t>(v...); }
    auto u32(auto&... v) { return field<std::uint32_t>(v...); }
    auto u64(auto&... v) { return field<std::uint64_t>(v...); }
    auto i64(auto&... v) { return field<std::int64_t>(v...); }
    void tag(auto value) {
        if (m_r.u8() != static_cast<std::uint8_t>(value)) fail();
    }
    void flag(bool& v) {
        const std::uint8_t byte = m_r.u8();
        if (byte > 1) fail();
        v = byte == 1;
    }
    void bits(auto&... flags) {
        const unsigned byte = m_r.u8();
        unsigned bit = 1;
        ((flags = (byte & bit) != 0, bit <<= 1), ...);
        if (byte >= bit) fail();
    }
    void string(std::string& s, std::size_t max) { s = m_r.string(max); }
    template <std::size_t N>
    void bytes(std::array<std::uint8_t, N>& b) {
        const auto in = m_r.bytes(N);
        if (in.size() == N) std::copy(in.begin(), in.end(), b.begin());
    }
    template <std::size_t N>
    void optional(std::optional<std::array<std::uint8_t, N>>& b) {
        bool present = false;
        flag(present);
        b.reset();
        if (present) bytes(b.emplace());
    }
    template <class T, class Element = ByFields>
    void list(std::vector<T>& v, std::size_t most, Element element = {}) {
        const std::size_t n = m_r.u8();
        v.clear();
        if (n > most) fail();
        if (failed()) return;
        v.resize(n);
        for (T& e : v) {
            element(*this, e);
            if (failed()) return;
        }
    }
    template <class T, class Element = ByFields>
    void capped_list(std::vector<T>& v, std::size_t most, Element element = {}) {
        list(v, most, element);
    }
    template <class T, class Codec>
    void custom(T& v, const Codec& codec) {
        if (!codec.read(m_r, v)) fail();
    }
    void check(bool condition) {
        if (!condition) fail();
    }
    bool end_here_if(bool condition) {
        if (failed()) return true;
        m_ended = condition;
        return condition;
    }

    void fail() { m_r.fail(); }
    bool failed() const { return m_r.failed(); }
    // The record was read whole (to its last byte, or to an end_here_if) and nothing failed.
    bool complete() const { return !failed() && (m_ended || m_r.done()); }

  private:
    template <class W, class... T>
    auto field(T&... v) {
        ((v = static_cast<T>(get(W{}))), ...);
        if constexpr (sizeof...(T) == 1) return Accept<T...>(*this, v...);
    }
    std::uint8_t get(std::uint8_t) { return m_r.u8(); }
    std::uint16_t get(std::uint16_t) { return m_r.u16(); }
    std::uint32_t get(std::uint32_t) { return m_r.u32(); }
    std::uint64_t get(std::uint64_t) { return m_r.u64(); }
    std::int64_t get(std::int64_t) { return m_r.i64(); }

    WireReader& m_r;
    bool m_ended = false;
};

// What the reader accepts of the field just read (an integer, or an enum against values of
// its own type); the reader fails on anything else.
template <class T>
class Accept {
  public:
    Accept(FieldReader& io, const T& value) : m_io(io), m_value(value) {}
    const Accept& at_least(const auto& low) const { return holds(!less(m_value, low)); }
    const Accept& at_most(const auto& high) const { return holds(!less(high, m_value)); }
    const Accept& within(const auto& low, const auto& high) const {
        return at_least(low).at_most(high);
    }
    const Accept& is(const auto& value) const { return within(value, value); }

  private:
    template <class A, class B>
    static constexpr bool less(const A& a, const B& b) {
        if constexpr (std::is_enum_v<A> || std::is_enum_v<B>) {
            return a < b;
        } else {
            return std::cmp_less(a, b);  // of any signedness, without a sign-compare trap
        }
    }
    const Accept& holds(bool condition) const {
        if (!condition) m_io.fail();
        return *this;
    }

    FieldReader& m_io;
    const T& m_value;
};

// A whole record's bytes, by its field list (found by argument-dependent lookup).
template <class T>
std::vector<std::uint8_t> write_record(const T& record) {
    WireWriter w;
    w.data().reserve(64);  // the size of most records: one allocation, not one per doubling
    FieldWriter io(w);
    fields(io, record);
    return w.take();
}

// The record in `bytes`, or nullopt unless they are exactly one well-formed record.
template <class T>
std::optional<T> read_record(std::span<const std::uint8_t> bytes) {
    WireReader r(bytes);
    FieldReader io(r);
    T record{};
    fields(io, record);
    if (!io.complete()) return std::nullopt;
    return record;
}

}  // namespace framelock::netplay
