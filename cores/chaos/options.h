// The chaos core's core options: the faults they select, and the CPU time a frame spends.
//
// Options are declared through the v0 interface (RETRO_ENVIRONMENT_SET_VARIABLES) on purpose:
// it is the oldest and simplest path, and a real core using it keeps the host's v0 code tested.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

struct retro_variable;

namespace framelock::cores::chaos {

enum class Fault {
    kNone,       // fully deterministic
    kWallclock,  // from frame F on, real time is written into CLOCK every frame
    kUninit,     // at frame F, simulated leftover memory is copied into SCRATCH
    kUnsaved,    // from frame F on, savestates carry zeros for HIDDEN and loading keeps it
    kVarsize,    // from frame F on, the savestate grows by 16 bytes every 100 frames
    kNostate,    // from frame F on, savestates are unsupported (size 0, calls fail)
    kCrash,      // the retro_run of frame F crashes the process
    // At power-on, real time goes into the savestate (after everything else) and nowhere
    // else: the game never reads it and no memory region shows it, and a load takes it over.
    // Two processes' states differ from frame 0 while their games agree (F is not used).
    kLoadstamp,
    // Every load puts real time into the savestate (after everything else, where loadstamp
    // keeps its stamp) and nowhere else: saving right after a load gives other bytes than the
    // state loaded, while the game never reads them (F is not used; 0 at power-on).
    kReloadstamp,
};

struct FaultConfig {
    Fault fault = Fault::kNone;
    // Frame number (as stored in MAIN: retro_run calls completed since power-on) at which the
    // fault starts.
    std::uint32_t frame = 60;
    // Beside the fault: the retro_run of this frame flips every bit of one SCRATCH byte
    // (kFlipOffset) after it ran (each time it runs). Set from the environment (kFlipEnv), not
    // a core option: players with different options are refused a session (their options hash
    // differs), and a desync needs one process to differ, as a stray write or a bad RAM cell
    // would make it.
    std::optional<std::uint32_t> flip_frame;
};

// FRAMELOCK_CHAOS_FLIP_FRAME=N: the flip at frame N, in this process only.
inline constexpr const char* kFlipEnv = "FRAMELOCK_CHAOS_FLIP_FRAME";
// The byte flipped: SCRATCH's, at this offset (address kScratch.start + kFlipOffset).
inline constexpr std::size_t kFlipOffset = 0x15;

inline constexpr const char* kFaultKey = "chaos_fault";
inline constexpr const char* kFaultFrameKey = "chaos_fault_frame";
// Milliseconds of CPU time each retro_run spends on busy work before it returns (0: none):
// a heavy core's emulation time, for the tests that must see what it costs the netplay path.
// The work touches nothing of the machine, so determinism is unchanged.
inline constexpr const char* kCpuMsKey = "chaos_cpu_ms_per_frame";

// The option values exactly as offered to the host; nullopt for anything else.
std::optional<Fault> parse_fault(std::string_view value);
std::optional<std::uint32_t> parse_fault_frame(std::string_view value);
std::optional<std::uint32_t> parse_cpu_ms(std::string_view value);

// The option value naming the fault, e.g. "wallclock". Static storage.
const char* fault_name(Fault fault);

// The RETRO_ENVIRONMENT_SET_VARIABLES array, terminated by {nullptr, nullptr}. Static storage.
const retro_variable* option_definitions();

}  // namespace framelock::cores::chaos
