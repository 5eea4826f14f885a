// Where the build put what the tests run and read: the framelock and proxy executables, the
// cores and fixture cores, the test ROMs, the source tree. The values are compiled into one
// generated source (build_paths.cpp.in): as compile definitions on every test source they
// made each one a ccache miss in another checkout of the same commit.
#pragma once

namespace framelock::test::build_paths {

extern const char* const framelock_exe;
extern const char* const lobby_exe;  // framelock-lobby, the lobby service alone
extern const char* const netem_exe;  // "" when the impairment proxy is not built
extern const char* const source_dir;
extern const char* const readme;           // source_dir's README.md
extern const char* const core_dir;         // the project's own cores
extern const char* const system_core_dir;  // Debian's libretro cores
extern const char* const nes_rom;          // "" when cc65 is missing
extern const char* const pce_rom;          // "" when cc65 is missing
extern const char* const gb_rom;           // "" when sdcc is missing
extern const char* const snes_rom;         // "" when cc65 is missing
extern const char* const wswan_rom;        // "" when nasm is missing
extern const char* const gba_rom;          // "" when binutils-arm-none-eabi is missing
extern const char* const nds_rom;          // "" when binutils-arm-none-eabi is missing
extern const char* const vb_rom;           // "" when python3 is missing
// Fixture cores for the host's load-error paths (fixtures/fake_core.c).
extern const char* const fake_good_core;
extern const char* const fake_norun_core;
extern const char* const fake_api2_core;
extern const char* const fake_refuse_core;
extern const char* const fake_nostate_core;

}  // namespace framelock::test::build_paths
