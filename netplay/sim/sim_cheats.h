// Test clients that lie to the server about what the delay is measured from (issue 31): each
// is a SimScenario::tamper that rewrites the client's ClientInput datagrams as they leave. A
// session with one of them must play as the same session with an honest client in its place,
// and the server must name it (tests/unit/delay_grief_test.cpp).
#pragma once

#include <cstdint>
#include <functional>

#include "netplay/wire/protocol.h"

namespace framelock::netplay {

using InputTamper = std::function<void(ClientInput&)>;

// Echoes one of the oldest updates the server may still remember (240-255 updates back, about
// 4 s while running), as if held for no time, and reports input round trips of at least 4 s:
// a server that takes echoes at their word measures a 4 s round trip to it, and the reports
// fit that.
InputTamper inflating_echoes();

// Says in every datagram that its process sampled `late_ms` late (a hiccup): a server that
// takes the claim at its word leaves every frame this client's input completed out of the
// delay, and no report of any player reaches the controller.
InputTamper hiccup_claims(std::uint8_t late_ms);

// Flips its echo at every keyframe (every 30 frames of its own inputs): honest for one, then
// an update 12 older than the newest it holds (200 ms more at 60 fps), as if held for no time:
// a server that takes echoes at their word sees this client's round trip jump by more than a
// quarter twice a second.
InputTamper oscillating_echoes();

// Sends its inputs at `rate` times the session's pace (1.05: 5 % fast), numbered by a count of
// its own that starts `lead` frames ahead of the honest one, while its clock, and every clock
// reading it sends, stays honest: a speed hack that fakes its readings (rate), or a client
// whose inputs all arrive early, as if its clock ran ahead (lead). Each datagram carries its
// honest pad for the newest 16 frames so counted.
InputTamper fast_inputs(double rate, std::uint32_t lead = 0);

}  // namespace framelock::netplay
