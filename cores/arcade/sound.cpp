#include "sound.h"

#include <algorithm>

namespace framelock::cores::arcade {
namespace {

struct SfxSpec {
    VoiceKind kind;
    uint16_t start_hz;  // square: pitch; noise: shift-register clock
    uint16_t end_hz;
    uint16_t ms;
    int16_t volume;
};

// Indexed by Sfx.
constexpr SfxSpec kSfx[] = {
    {kVoiceSquare, 1400, 700, 40, 900},    // kTwin
    {kVoiceSquare, 1000, 1600, 50, 900},   // kSpread
    {kVoiceSquare, 180, 520, 160, 1500},   // kMissile
    {kVoiceSquare, 2000, 1500, 30, 800},   // kSide
    {kVoiceSquare, 320, 200, 30, 900},     // kHit
    {kVoiceNoise, 6000, 1500, 180, 2600},  // kPop
    {kVoiceNoise, 3000, 400, 450, 4000},   // kBoom
    {kVoiceNoise, 2500, 250, 700, 4500},   // kShipLost
    {kVoiceNoise, 1500, 150, 900, 4500},   // kBomb
    {kVoiceSquare, 120, 100, 40, 1400},    // kDud
    {kVoiceSquare, 300, 900, 80, 1100},    // kShield
    {kVoiceSquare, 2400, 2400, 40, 1200},  // kBlock
    {kVoiceSquare, 660, 990, 60, 1100},    // kSelect
    {kVoiceSquare, 1760, 1760, 50, 900},   // kBeacon
    {kVoiceSquare, 330, 320, 200, 1500},   // kHorn
    {kVoiceSquare, 440, 1760, 300, 1600},  // kContinue
    {kVoiceSquare, 880, 1320, 200, 1400},  // kExtraBomb
};
static_assert(sizeof(kSfx) / sizeof(kSfx[0]) == static_cast<size_t>(Sfx::kExtraBomb) + 1);

// A two-second bass loop (Hz, 0 = rest); quiet, so the game never sounds dead.
constexpr uint16_t kBassLine[16] = {55, 0, 55, 110, 65, 0, 65, 131, 73, 0, 73, 147, 82, 98, 110, 0};
constexpr uint32_t kBassStepSamples = kSampleRate / 8;
constexpr int32_t kBassVolume = 1300;

constexpr uint32_t hz_to_step(uint32_t hz) {
    return static_cast<uint32_t>((uint64_t{hz} << 32) / kSampleRate);
}

constexpr int16_t clamp16(int32_t v) {
    return static_cast<int16_t>(std::clamp<int32_t>(v, INT16_MIN, INT16_MAX));
}

}  // namespace

void play_sfx(Ram& ram, Sfx sfx, int player) {
    const SfxSpec& spec = kSfx[static_cast<size_t>(sfx)];
    Voice* chosen = &ram.audio.voices[0];
    for (Voice& v : ram.audio.voices) {
        if (v.remaining < chosen->remaining) chosen = &v;
        if (v.remaining == 0) break;
    }
    Voice& v = *chosen;
    const uint32_t length = uint32_t{spec.ms} * (kSampleRate / 1000);
    const int64_t start = hz_to_step(spec.start_hz);
    const int64_t end = hz_to_step(spec.end_hz);
    v.phase = 0;
    v.step = static_cast<uint32_t>(start);
    v.sweep = static_cast<int32_t>((end - start) / static_cast<int64_t>(length));
    v.lfsr = 0xACE1u ^ static_cast<uint32_t>(sfx);  // fixed start: each burst sounds the same
    v.remaining = static_cast<uint16_t>(length);
    v.length = static_cast<uint16_t>(length);
    v.volume = spec.volume;
    v.kind = spec.kind;
    v.pan = player < 0 ? 128 : static_cast<uint8_t>(24 + player * 30);
}

void mix_audio(Ram& ram, int16_t* out, int frames) {
    Audio& audio = ram.audio;
    for (int i = 0; i < frames; ++i) {
        int32_t left = 0;
        int32_t right = 0;
        for (Voice& v : audio.voices) {
            if (v.remaining == 0) continue;
            const int32_t amp = v.volume * v.remaining / v.length;
            const uint32_t before = v.phase;
            v.phase += v.step;
            int32_t s;
            if (v.kind == kVoiceSquare) {
                s = (v.phase & 0x80000000u) ? amp : -amp;
            } else {
                // The register clocks each time the accumulator wraps.
                if (v.phase < before) {
                    const uint32_t bit =
                        (v.lfsr ^ (v.lfsr >> 2) ^ (v.lfsr >> 3) ^ (v.lfsr >> 5)) & 1u;
                    v.lfsr = ((v.lfsr >> 1) | (bit << 15)) & 0xFFFFu;
                }
                s = (v.lfsr & 1u) ? amp : -amp;
            }
            const int64_t next = int64_t{v.step} + v.sweep;
            v.step = static_cast<uint32_t>(std::clamp<int64_t>(next, 1, INT32_MAX));
            --v.remaining;
            left += (s * (255 - v.pan)) >> 8;
            right += (s * v.pan) >> 8;
        }

        const uint32_t step_pos = audio.sample_clock % kBassStepSamples;
        const uint16_t note = kBassLine[(audio.sample_clock / kBassStepSamples) % 16];
        if (note != 0) {
            audio.bass_phase += hz_to_step(note);
            const uint32_t p = audio.bass_phase;
            const int32_t tri = static_cast<int32_t>(((p & 0x80000000u) ? ~p : p) >> 15) - 32768;
            const int32_t env = kBassVolume * static_cast<int32_t>(kBassStepSamples - step_pos) /
                                static_cast<int32_t>(kBassStepSamples);
            const int32_t bass = (tri * env) >> 15;
            left += bass;
            right += bass;
        }
        ++audio.sample_clock;

        if (out != nullptr) {
            out[2 * i] = clamp16(left);
            out[2 * i + 1] = clamp16(right);
        }
    }
}

}  // namespace framelock::cores::arcade
