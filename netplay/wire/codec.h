// Field codecs shared by the wire protocol and the replay format (protocol.cpp).
#pragma once

#include <vector>

#include "netplay/wire/protocol.h"
#include "netplay/wire/wire.h"

namespace framelock::netplay {

void write_identity(WireWriter& w, const SessionIdentity& id);
SessionIdentity read_identity(WireReader& r);

// Run-length coding of one player's words: run count (<= 255), then (word, length 1..255)
// pairs. read_runs fails unless the runs add up to exactly `count` words.
void write_runs(WireWriter& w, const std::vector<InputWord>& words);
bool read_runs(WireReader& r, std::size_t count, std::vector<InputWord>& out);

}  // namespace framelock::netplay
