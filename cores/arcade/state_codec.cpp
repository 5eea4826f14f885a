#include "state_codec.h"

#include <cstring>
#include <type_traits>

#include "game.h"

namespace framelock::cores::arcade {
namespace {

constexpr uint8_t kStateMagic[5] = {'F', 'L', 'A', 'R', 'C'};
constexpr uint8_t kFormatVersion = 1;
static_assert(kStatePayloadBytes <= UINT16_MAX);

// One list of fields drives encoding, decoding and the size check. `S` is the struct or its
// const version, so the same function serves reading and writing.
template <class V, class S>
constexpr void visit_system(V& v, S& s) {
    v(s.rng);
    v(s.content_hash);
    v(s.frame);
    v(s.hi_score);
    v(s.seed);
    v(s.spawn_timer);
    v(s.hs_session);
    v(s.waves);
    v(s.players);
    v(s.difficulty);
    v(s.hs_latched);
    v(s.level);
    v(s.input_digest);
}

template <class V, class S>
constexpr void visit_ship(V& v, S& s) {
    v(s.x);
    v(s.y);
    v(s.score);
    v(s.next_bomb_at);
    v(s.pad);
    v(s.prev_pad);
    v(s.shield);
    v(s.timer);
    v(s.bomb_age);
    v(s.bomb_x);
    v(s.bomb_y);
    v(s.start_held);
    v(s.state);
    v(s.lives);
    v(s.bombs);
    v(s.shot_mode);
    v(s.cool_a);
    v(s.cool_b);
    v(s.cool_side);
    v(s.continues);
}

template <class V, class S>
constexpr void visit_shot(V& v, S& s) {
    v(s.x);
    v(s.y);
    v(s.vx);
    v(s.vy);
    v(s.active);
    v(s.owner);
    v(s.kind);
    v(s.damage);
}

template <class V, class S>
constexpr void visit_enemy(V& v, S& s) {
    v(s.x);
    v(s.y);
    v(s.base_x);
    v(s.vx);
    v(s.vy);
    v(s.timer);
    v(s.active);
    v(s.kind);
    v(s.hp);
    v(s.flash);
    v(s.phase);
    v(s.amp);
    v(s.hover);
    v(s.bomb_hits);
    for (auto& b : s.reserved) v(b);
}

template <class V, class S>
constexpr void visit_bullet(V& v, S& s) {
    v(s.x);
    v(s.y);
    v(s.vx);
    v(s.vy);
    v(s.active);
    v(s.age);
    for (auto& b : s.reserved) v(b);
}

template <class V, class S>
constexpr void visit_explosion(V& v, S& s) {
    v(s.x);
    v(s.y);
    v(s.active);
    v(s.age);
    v(s.color);
    v(s.size);
}

template <class V, class S>
constexpr void visit_voice(V& v, S& s) {
    v(s.phase);
    v(s.step);
    v(s.sweep);
    v(s.lfsr);
    v(s.remaining);
    v(s.length);
    v(s.volume);
    v(s.kind);
    v(s.pan);
}

template <class V, class R>
constexpr void visit_ram(V& v, R& ram) {
    visit_system(v, ram.sys);
    for (auto& s : ram.ships) visit_ship(v, s);
    for (auto& s : ram.objects.shots) visit_shot(v, s);
    for (auto& e : ram.objects.enemies) visit_enemy(v, e);
    for (auto& b : ram.objects.bullets) visit_bullet(v, b);
    for (auto& e : ram.objects.explosions) visit_explosion(v, e);
    for (auto& voice : ram.audio.voices) visit_voice(v, voice);
    v(ram.audio.bass_phase);
    v(ram.audio.sample_clock);
    for (auto& b : ram.audio.reserved) v(b);
}

struct ByteCounter {
    size_t bytes = 0;
    template <class T>
    constexpr void operator()(const T&) {
        bytes += sizeof(T);
    }
};

struct Writer {
    uint8_t* out;
    template <class T>
    void operator()(const T& value) {
        const auto bits = static_cast<std::make_unsigned_t<T>>(value);
        for (size_t i = 0; i < sizeof(T); ++i) *out++ = static_cast<uint8_t>(bits >> (8 * i));
    }
};

struct Reader {
    const uint8_t* in;
    template <class T>
    void operator()(T& value) {
        using Bits = std::make_unsigned_t<T>;
        Bits bits = 0;
        for (size_t i = 0; i < sizeof(T); ++i) bits |= static_cast<Bits>(Bits{*in++} << (8 * i));
        value = static_cast<T>(bits);
    }
};

constexpr size_t visited_bytes() {
    const Ram ram{};
    ByteCounter counter;
    visit_ram(counter, ram);
    return counter.bytes;
}
static_assert(visited_bytes() == kStatePayloadBytes,
              "every Ram field must appear exactly once in visit_ram");

}  // namespace

void encode_state(const Ram& ram, uint8_t* out) {
    std::memcpy(out, kStateMagic, sizeof(kStateMagic));
    out[5] = kFormatVersion;
    out[6] = static_cast<uint8_t>(kStatePayloadBytes);
    out[7] = static_cast<uint8_t>(kStatePayloadBytes >> 8);
    Writer writer{out + kStateHeaderBytes};
    visit_ram(writer, ram);
}

bool decode_state(const uint8_t* data, size_t size, Ram& out) {
    if (data == nullptr || size != kStateBytes) return false;
    if (std::memcmp(data, kStateMagic, sizeof(kStateMagic)) != 0 || data[5] != kFormatVersion ||
        (data[6] | data[7] << 8) != static_cast<int>(kStatePayloadBytes)) {
        return false;
    }
    Ram decoded;
    std::memset(&decoded, 0, sizeof(decoded));
    Reader reader{data + kStateHeaderBytes};
    visit_ram(reader, decoded);
    if (!is_consistent(decoded)) return false;
    out = decoded;
    return true;
}

}  // namespace framelock::cores::arcade
