// The fuzz targets' entry points (docs/fuzzing.md). Each takes one input and returns 0;
// a broken invariant calls fuzz_fail(). The same functions are the libFuzzer entry points
// (fuzz_main.cpp, one executable per target) and what test_fuzz_inputs runs every committed
// seed and regression input through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace framelock::fuzz {

int fuzz_protocol(const std::uint8_t* data, std::size_t size);        // every wire decoder
int fuzz_server(const std::uint8_t* data, std::size_t size);          // a Server and its peers
int fuzz_client(const std::uint8_t* data, std::size_t size);          // a Client and its server
int fuzz_state_transfer(const std::uint8_t* data, std::size_t size);  // StateReceiver, inflate
int fuzz_replay(const std::uint8_t* data, std::size_t size);          // parse_replay
int fuzz_config(const std::uint8_t* data, std::size_t size);          // the TOML config
int fuzz_input_script(const std::uint8_t* data, std::size_t size);    // input scripts
int fuzz_lobby(const std::uint8_t* data, std::size_t size);           // LobbyApi::handle
int fuzz_desync_bundle(const std::uint8_t* data, std::size_t size);   // decode_desync_bundle

using FuzzFunction = int (*)(const std::uint8_t*, std::size_t);
struct FuzzTarget {
    std::string_view name;  // tests/fuzz/corpus/<name>, regressions/<name>, fuzz_<name>
    FuzzFunction function;
};
inline constexpr FuzzTarget kFuzzTargets[] = {
    {"protocol", fuzz_protocol},
    {"server", fuzz_server},
    {"client", fuzz_client},
    {"state_transfer", fuzz_state_transfer},
    {"replay", fuzz_replay},
    {"config", fuzz_config},
    {"input_script", fuzz_input_script},
    {"lobby", fuzz_lobby},
    {"desync_bundle", fuzz_desync_bundle},
};

// A broken invariant: in a fuzzer, prints and aborts (libFuzzer keeps the input); in
// test_fuzz_inputs, throws so the test names the input (fuzz_fail.cpp, fuzz_main.cpp).
[[noreturn]] void fuzz_fail(const char* what, const char* file, int line);

}  // namespace framelock::fuzz

#define FUZZ_CHECK(cond) \
    ((cond) ? (void)0 : ::framelock::fuzz::fuzz_fail(#cond, __FILE__, __LINE__))
