// The chaos core's machine: a tiny deterministic "game" plus switchable determinism faults.
//
// With Fault::kNone every output (memory, savestate, video, audio) is a pure function of the pad
// words fed to run_frame since power-on. Each fault breaks that in one documented way, starting
// at a chosen frame, so framelock's determinism tools can be shown to catch it and to name the
// frame and the region. Knows nothing about libretro callbacks; libretro_entry.cpp adapts it.
//
// Not thread-safe: libretro calls a core from one thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "options.h"
#include "regions.h"

namespace framelock::cores::chaos {

inline constexpr unsigned kWidth = 160;
inline constexpr unsigned kHeight = 120;
inline constexpr unsigned kPorts = 2;
inline constexpr double kFps = 60.0;
inline constexpr unsigned kSampleRate = 32000;
inline constexpr std::size_t kMaxAudioFrames = 534;

// Savestate: 8-byte header (magic "FLCH", u32 LE version) followed by the block (then the
// varsize fault's chunks, then the (re)loadstamp fault's u64).
inline constexpr std::size_t kStateHeaderSize = 8;
inline constexpr std::size_t kBaseStateSize = kStateHeaderSize + kBlockSize;
// The varsize fault appends one chunk of this many bytes per kGrowthPeriod frames.
inline constexpr std::size_t kGrowthChunkSize = 16;
inline constexpr std::uint32_t kGrowthPeriod = 100;

// Buttons of one RetroPad: bit n set when RETRO_DEVICE_ID_JOYPAD n is held.
using PadWord = std::uint16_t;

class ChaosMachine {
  public:
    ChaosMachine();

    // Back to the power-on state (frame 0). The fault configuration is kept.
    void power_on();

    // Takes effect from the next call; state-shaped faults (unsaved, varsize, nostate) compare F
    // against the frame counter in MAIN, so they may apply at once.
    void set_faults(const FaultConfig& faults) { m_faults = faults; }
    const FaultConfig& faults() const { return m_faults; }

    // retro_run calls completed since power-on, as stored in MAIN.
    std::uint32_t frame() const;

    // True when the next run_frame is the one the crash fault kills, so the caller can log first.
    bool crash_due() const;

    // Emulates one frame from the given pads, then renders video and audio for it.
    void run_frame(const std::array<PadWord, kPorts>& pads);

    // RGB565 pixels of the last rendered frame, kWidth * kHeight, pitch kWidth * 2 bytes.
    std::span<const std::uint16_t> video() const { return m_video; }
    // Interleaved stereo samples produced by the last run_frame (533 or 534 frames).
    std::span<const std::int16_t> audio() const {
        return std::span<const std::int16_t>(m_audio).first(m_audio_frames * 2);
    }

    // The whole block (kBlockSize bytes, regions at the offsets in regions.h). The pointer stays
    // valid and fixed for the machine's lifetime, as memory-map descriptors require.
    std::span<std::uint8_t> memory() { return m_block; }

    // Bytes retro_serialize needs now; 0 when savestates are unsupported.
    std::size_t state_size() const;
    // Writes state_size() bytes and zero-fills any rest of `out`. False when `out` is too small
    // or savestates are unsupported.
    bool serialize(std::span<std::uint8_t> out) const;
    // Accepts exactly what serialize produced (same options). False, with the machine left
    // untouched, on a bad size, magic, version or growth chunk.
    bool unserialize(std::span<const std::uint8_t> in);

  private:
    std::span<std::uint8_t> region(const Region& r) {
        return std::span<std::uint8_t>(m_block).subspan(r.offset, r.size);
    }
    std::span<const std::uint8_t> region(const Region& r) const {
        return std::span<const std::uint8_t>(m_block).subspan(r.offset, r.size);
    }
    std::uint32_t main_u32(std::size_t field) const;
    void set_main_u32(std::size_t field, std::uint32_t value);

    bool state_fault_active(Fault fault, std::uint32_t at_frame) const;
    bool stamped() const;  // the state ends with m_load_stamp (loadstamp, reloadstamp)
    std::size_t growth_chunks(std::uint32_t at_frame) const;
    std::size_t state_size_at(std::uint32_t at_frame) const;

    void move_sprites(const std::array<PadWord, kPorts>& pads);
    void evolve_hidden(std::uint32_t frame, const std::array<PadWord, kPorts>& pads);
    void inject_faults(std::uint32_t frame);
    void synthesize_audio(std::uint32_t frame);
    void render();

    FaultConfig m_faults;
    std::array<std::uint8_t, kBlockSize> m_block{};
    std::array<std::uint16_t, kWidth * kHeight> m_video{};
    std::array<std::int16_t, kMaxAudioFrames * 2> m_audio{};
    std::size_t m_audio_frames = 0;
    std::uint64_t m_load_stamp = 0;  // (re)loadstamp: the reading of real time kept
};

}  // namespace framelock::cores::chaos
