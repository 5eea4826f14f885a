# Build glue for external dependencies. Everything comes from Debian packages;
# this file only finds them and exposes one imported target per dependency.
# No third-party source is kept in this repository.

# libretro.h ships in retroarch-dev under /usr/include/libretro-common.
find_path(FRAMELOCK_LIBRETRO_INCLUDE_DIR libretro.h
          PATH_SUFFIXES libretro-common
          DOC "directory holding libretro.h (Debian: retroarch-dev)")
if(NOT FRAMELOCK_LIBRETRO_INCLUDE_DIR)
    message(FATAL_ERROR "libretro.h not found: install retroarch-dev (apt-get install retroarch-dev)")
endif()
add_library(framelock_libretro_api INTERFACE)
# SYSTEM: the header is not ours; keep its warnings out of -Werror builds.
target_include_directories(framelock_libretro_api SYSTEM INTERFACE ${FRAMELOCK_LIBRETRO_INCLUDE_DIR})
add_library(framelock::libretro ALIAS framelock_libretro_api)

find_package(PkgConfig REQUIRED)
pkg_check_modules(FRAMELOCK_XXHASH REQUIRED IMPORTED_TARGET libxxhash>=0.8)
add_library(framelock::xxhash ALIAS PkgConfig::FRAMELOCK_XXHASH)

pkg_check_modules(FRAMELOCK_ENET REQUIRED IMPORTED_TARGET libenet>=1.3.14)
add_library(framelock::enet ALIAS PkgConfig::FRAMELOCK_ENET)

# The lobby's storage (lobby/): SQLite for one process with a file, PostgreSQL
# (through libpqxx 6, which ships a pkg-config file and no CMake config) for several
# lobby processes sharing one database.
find_package(SQLite3 3.24 REQUIRED)
pkg_check_modules(FRAMELOCK_PQXX REQUIRED IMPORTED_TARGET libpqxx>=6.4)
add_library(framelock::pqxx ALIAS PkgConfig::FRAMELOCK_PQXX)
# The lobby's HTTP server: GNU libmicrohttpd (event-driven, per-address connection limits,
# suspend/resume for requests served on threads of our own; lobby/http_server.h).
pkg_check_modules(FRAMELOCK_MICROHTTPD REQUIRED IMPORTED_TARGET libmicrohttpd>=0.9.75)
add_library(framelock::microhttpd ALIAS PkgConfig::FRAMELOCK_MICROHTTPD)
# HTTP clients (the player's lobby client, tests, benchmarks): cpp-httplib (Debian builds it
# as a library, with OpenSSL, zlib and Brotli; its pkg-config file carries the matching
# defines). libsodium for password hashing and random tokens.
pkg_check_modules(FRAMELOCK_HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib>=0.11)
add_library(framelock::httplib ALIAS PkgConfig::FRAMELOCK_HTTPLIB)
pkg_check_modules(FRAMELOCK_SODIUM REQUIRED IMPORTED_TARGET libsodium>=1.0.18)
add_library(framelock::sodium ALIAS PkgConfig::FRAMELOCK_SODIUM)
# `framelock host` asks the home router for a UDP port mapping over UPnP IGD (frontend/reach/):
# libminiupnpc 2.x (Debian: libminiupnpc-dev; 2.2.4 in bookworm, API version 17).
pkg_check_modules(FRAMELOCK_MINIUPNPC REQUIRED IMPORTED_TARGET miniupnpc>=2.1)
add_library(framelock::miniupnpc ALIAS PkgConfig::FRAMELOCK_MINIUPNPC)

# `replay export` writes videos through FFmpeg's libraries (frontend/video/): Debian's
# libavcodec-dev, libavformat-dev, libswscale-dev, libswresample-dev, libavutil-dev (FFmpeg
# 5.1 in bookworm: the AVChannelLayout API, hence the minimum versions).
pkg_check_modules(FRAMELOCK_LIBAV REQUIRED IMPORTED_TARGET
                  libavcodec>=59.37 libavformat>=59.27 libswscale>=6.7 libswresample>=4.7
                  libavutil>=57.28)
add_library(framelock::libav ALIAS PkgConfig::FRAMELOCK_LIBAV)

find_package(ZLIB REQUIRED)
# PNG files (screenshots, determinism reports): libpng 1.6 (Debian: libpng-dev).
pkg_check_modules(FRAMELOCK_PNG REQUIRED IMPORTED_TARGET libpng>=1.6)
add_library(framelock::png ALIAS PkgConfig::FRAMELOCK_PNG)
find_package(fmt 9 REQUIRED CONFIG)
find_package(CLI11 2.1 REQUIRED CONFIG)
find_package(nlohmann_json 3.10 REQUIRED CONFIG)
find_package(tomlplusplus 3 REQUIRED CONFIG)

# The player's window (FRAMELOCK_SDL): SDL2 for video, sound and controllers (2.24+ for
# virtual controllers in tests), SDL2_ttf for the overlay's text, libsamplerate for the
# sound's dynamic rate control.
if(FRAMELOCK_SDL)
    find_package(SDL2 2.24 REQUIRED CONFIG)
    find_package(SDL2_ttf 2.0.15 REQUIRED CONFIG)
    pkg_check_modules(FRAMELOCK_SAMPLERATE REQUIRED IMPORTED_TARGET samplerate>=0.1.9)
    add_library(framelock::samplerate ALIAS PkgConfig::FRAMELOCK_SAMPLERATE)
endif()

if(FRAMELOCK_TESTS)
    find_package(Catch2 2.13 REQUIRED CONFIG)
endif()

# cc65 builds the NES and PC Engine test ROMs from tests/roms at build time; sdcc's Game Boy
# assembler, linker and ROM writer the Game Boy one.
find_program(FRAMELOCK_CL65 cl65 DOC "cc65 compiler driver (Debian: cc65)")
find_program(FRAMELOCK_SDASGB sdasgb DOC "sdcc's Game Boy assembler (Debian: sdcc)")
find_program(FRAMELOCK_SDLDGB sdldgb DOC "sdcc's Game Boy linker (Debian: sdcc)")
find_program(FRAMELOCK_MAKEBIN makebin DOC "sdcc's ROM writer (Debian: sdcc)")
# The SNES ROM: ca65 and ld65 of cc65 (65816). The WonderSwan ROM: nasm (80186 code). The
# Game Boy Advance ROM: the ARM assembler, linker and objcopy of binutils-arm-none-eabi.
find_program(FRAMELOCK_CA65 ca65 DOC "cc65's assembler (Debian: cc65)")
find_program(FRAMELOCK_LD65 ld65 DOC "cc65's linker (Debian: cc65)")
find_program(FRAMELOCK_NASM nasm DOC "the Netwide Assembler (Debian: nasm)")
find_program(FRAMELOCK_ARM_AS arm-none-eabi-as DOC "ARM assembler (Debian: binutils-arm-none-eabi)")
find_program(FRAMELOCK_ARM_LD arm-none-eabi-ld DOC "ARM linker (Debian: binutils-arm-none-eabi)")
find_program(FRAMELOCK_ARM_OBJCOPY arm-none-eabi-objcopy DOC "ARM objcopy (Debian: binutils-arm-none-eabi)")
# The Virtual Boy ROM: no V810 assembler is packaged, tests/roms/vb/v810asm.py runs on python3.
find_program(FRAMELOCK_PYTHON3 python3 DOC "Python 3, for the V810 assembler (Debian: python3)")
