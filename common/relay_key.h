// The relay key: the lobby operator's secret that a relay server shows to register with the
// lobby (POST /api/servers, docs/lobby.md "Security"). Both ends read it the same way: from a
// file named on the command line (`lobby serve --relay-key-file`, `server --relay-key-file`),
// else from the environment (FRAMELOCK_RELAY_KEY). It is never logged nor put in an answer.
#pragma once

#include <cstddef>
#include <string>

#include "netplay/base/result.h"

namespace framelock {

inline constexpr const char* kRelayKeyEnv = "FRAMELOCK_RELAY_KEY";
// Shorter keys are refused: a key is guessed online against the lobby's rate limits, and
// 16 random characters put that out of reach.
inline constexpr std::size_t kRelayKeyMinLength = 16;

// The key in `file` (its first line, trailing whitespace dropped) when `file` is not empty,
// else the environment's FRAMELOCK_RELAY_KEY, else "" (none given). kUsage when the file
// cannot be read or the key is shorter than kRelayKeyMinLength or holds a space or a control
// character; the message names the file or the variable, never the key.
Result<std::string> load_relay_key(const std::string& file);

}  // namespace framelock
