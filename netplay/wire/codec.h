// Field codecs shared by the wire protocol and the replay format: the session identity
// (protocol.cpp, from its field list) and the run-length coding of input words (codec.cpp).
#pragma once

#include <cstddef>
#include <optional>
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
// The messages' coding: the runs of a count of words the reader knows already, without a run
// count (they end where they add up to it); reading `runs` pairs, or with nullopt until they
// add up to `count`. Both fail unless the runs add up to exactly `count` words.
void write_known_runs(WireWriter& w, const std::vector<InputWord>& words);
bool read_runs_up_to(WireReader& r, std::optional<std::size_t> runs, std::size_t count,
                     std::vector<InputWord>& out);

}  // namespace framelock::netplay
