// What the netplay engine needs from an emulator. frontend/ implements it on a
// libretro core; tests implement it on small pure-logic fakes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/types.h"

namespace framelock::netplay {

// A named block of emulated memory (a core's memory map entry, or its system RAM).
// The bytes stay owned by the emulator and are valid until the next call on it.
struct MemoryRegion {
    std::string name;
    std::uint64_t start = 0;  // address in the core's own address space, for reports
    std::span<const std::uint8_t> bytes;
};

class Emulator {
  public:
    virtual ~Emulator() = default;

    // Runs exactly one frame with `inputs` as every port's pad for that frame.
    // present=false means nobody will look at this frame (fast-forward, rollback
    // re-simulation): picture and sound may be skipped, the state advances identically.
    virtual void run_frame(const InputFrame& inputs, bool present) = 0;

    // Frames run since power-on (or since the frame count was set by load_state's caller).
    virtual std::uint64_t frame_count() const = 0;

    // Serialized state. save_state resizes `out`; both return false when the core
    // cannot (no savestate support, or it refused the data).
    virtual bool save_state(std::vector<std::uint8_t>& out) = 0;
    virtual bool load_state(std::span<const std::uint8_t> state) = 0;

    // Called right after a load_state with the number of the frame the loaded state was
    // saved before (the next frame to run), so frame_count() follows (rollback).
    virtual void rewind_to(std::uint64_t next_frame) { (void)next_frame; }

    // Hash of the serialized state (0 when the core has no savestates).
    virtual std::uint64_t state_hash() = 0;

    // The memory regions the core exposes, for per-region hashes and diff reports.
    virtual std::vector<MemoryRegion> memory_regions() = 0;

    // Emulated frames per second (e.g. 60.0988 for NTSC NES).
    virtual double frames_per_second() const = 0;
};

}  // namespace framelock::netplay
