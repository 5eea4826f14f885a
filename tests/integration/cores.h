// The real cores the end-to-end tests run, with what each needs.
#pragma once

#include <string>
#include <vector>

#include "support/build_paths.h"
#include "support/skip.h"

namespace framelock::test {

struct CoreCase {
    const char* name;
    std::string core;                // path
    std::string content;             // path or empty
    std::vector<std::string> extra;  // extra CLI arguments (options, ports)
    unsigned ports;                  // pads the content reads
    int input_lag;  // frames between a pad change and its first effect on the state
    const char* how_to_get;
};

inline std::vector<CoreCase> all_core_cases() {
    const std::string sys = build_paths::system_core_dir;
    return {
        {"arcade",
         std::string(build_paths::core_dir) + "/framelock_arcade_libretro.so",
         "",
         {"--option", "farcade_players=4"},
         4,
         0,
         "built by this project"},
        {"chaos",
         std::string(build_paths::core_dir) + "/framelock_chaos_libretro.so",
         "",
         {},
         2,
         0,
         "built by this project"},
        // Both test ROMs fold the pads into RAM in the frame they are read: no lag.
        {"nestopia",
         sys + "/nestopia_libretro.so",
         build_paths::nes_rom,
         {},
         2,
         0,
         "apt-get install libretro-nestopia cc65"},
        // Debian's mednafen_pce_fast has the multitap always on: ports 1-5 are pads 1-5.
        {"pce_fast",
         sys + "/mednafen_pce_fast_libretro.so",
         build_paths::pce_rom,
         {},
         5,
         0,
         "apt-get install libretro-beetle-pce-fast cc65"},
        // The Game Boy has one pad; the ROM reads it once a frame, in vertical blank.
        {"gambatte",
         sys + "/gambatte_libretro.so",
         build_paths::gb_rom,
         {},
         1,
         0,
         "apt-get install libretro-gambatte sdcc"},
        {"mgba_gb",
         sys + "/mgba_libretro.so",
         build_paths::gb_rom,
         {},
         1,
         0,
         "apt-get install libretro-mgba sdcc"},
        // The three bsnes-mercury profiles play the SNES ROM, which reads both pads in the
        // middle of the picture: in the same retro_run, no lag (tests/roms/README.md).
        {"bsnes_accuracy",
         sys + "/bsnes_mercury_accuracy_libretro.so",
         build_paths::snes_rom,
         {},
         2,
         0,
         "apt-get install libretro-bsnes-mercury-accuracy cc65"},
        {"bsnes_balanced",
         sys + "/bsnes_mercury_balanced_libretro.so",
         build_paths::snes_rom,
         {},
         2,
         0,
         "apt-get install libretro-bsnes-mercury-balanced cc65"},
        {"bsnes_performance",
         sys + "/bsnes_mercury_performance_libretro.so",
         build_paths::snes_rom,
         {},
         2,
         0,
         "apt-get install libretro-bsnes-mercury-performance cc65"},
        // The Game Boy Advance has one pad (ten keys); the ROM reads it once a frame, at the
        // start of vertical blank, and mgba runs it with its built-in BIOS.
        {"mgba_gba",
         sys + "/mgba_libretro.so",
         build_paths::gba_rom,
         {},
         1,
         0,
         "apt-get install libretro-mgba binutils-arm-none-eabi"},
        // The WonderSwan has one keypad (11 keys); the ROM reads it early in each call, in
        // vertical blank. The core exports no memory: the ROM's block is in its savestate.
        {"wswan",
         sys + "/mednafen_wswan_libretro.so",
         build_paths::wswan_rom,
         {},
         1,
         0,
         "apt-get install libretro-beetle-wswan nasm"},
        // The Nintendo DS has one set of twelve keys (X and Y through the ARM7); the ROM reads
        // them once a frame, at the start of vertical blank, and desmume boots it without BIOS
        // or firmware files.
        {"desmume",
         sys + "/desmume_libretro.so",
         build_paths::nds_rom,
         {},
         1,
         0,
         "apt-get install libretro-desmume binutils-arm-none-eabi"},
        // The Virtual Boy has one pad (14 buttons); the ROM reads it at the start of each
        // call, at the VIP's game frame start. The core exports no memory: the ROM's block is
        // in its savestate.
        {"vb",
         sys + "/mednafen_vb_libretro.so",
         build_paths::vb_rom,
         {},
         1,
         0,
         "apt-get install libretro-beetle-vb python3"},
    };
}

inline CoreCase core_case(const std::string& name) {
    for (auto& c : all_core_cases()) {
        if (name == c.name) return c;
    }
    return {};
}

inline void require_core_case(const CoreCase& c) {
    FRAMELOCK_SKIP_UNLESS_FILE(c.core, c.how_to_get);
    // The real cores play the project's ROMs: a ROM that was not built ("") skips too.
    if (!c.content.empty() || c.core.rfind(build_paths::system_core_dir, 0) == 0) {
        FRAMELOCK_SKIP_UNLESS_FILE(c.content, c.how_to_get);
    }
}

// The buttons random bots may press on a core whose savestates restore the game: all but
// nestopia's X and Y, its turbo A/B, whose pulse counter its savestates leave out (README.md,
// "synctest"), so a state loaded while one is held runs on differently.
inline std::uint16_t bot_buttons(const CoreCase& c) {
    constexpr unsigned kY = 1, kX = 9;  // RETRO_DEVICE_ID_JOYPAD_Y, _X
    if (std::string(c.name) == "nestopia")
        return static_cast<std::uint16_t>(~((1u << kX) | (1u << kY)));
    return 0xffff;
}

// framelock run with the case's core, content and options, plus `args`.
inline std::vector<std::string> run_args(const CoreCase& c, std::vector<std::string> args) {
    std::vector<std::string> all = {
        build_paths::framelock_exe, "run", "--core", c.core, "--no-sram", "-q"};
    if (!c.content.empty()) {
        all.push_back("--content");
        all.push_back(c.content);
    }
    all.push_back("--ports");
    all.push_back(std::to_string(c.ports));
    all.insert(all.end(), c.extra.begin(), c.extra.end());
    all.insert(all.end(), args.begin(), args.end());
    return all;
}

}  // namespace framelock::test
