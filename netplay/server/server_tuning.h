// The server's tuning: how often it sends, how long its measurements reach, when it gives
// up. One description each, for the Server and every part of it (server.h lists them).
#pragma once

#include <cstddef>
#include <cstdint>

#include "netplay/interfaces/clock.h"

namespace framelock::netplay::server_tuning {

// While running, every confirmed frame goes out at once; without news, an update still goes
// this often (acknowledgements, the schedule, a resend of what may have been lost). Sooner
// would double the downstream datagrams whenever a frame's last input is a little late.
inline constexpr int kQuietUpdateFrames = 3;
inline constexpr std::size_t kMaxEvents = 4096;
// Chat (chat_room.h): a member may say this many messages at once, and one more each
// kChatRefillUs after; beyond, its messages are dropped, and it hears why at most once each
// kChatRefillUs.
inline constexpr int kChatBurst = 5;
inline constexpr Micros kChatRefillUs = 2'000'000;
// Round trips reported this long after a player went away or came back are not network
// measurements (Roster::unsettled).
inline constexpr Micros kAbsenceSettleUs = 1'000'000;
// A sample taken this late by the client's own process (ClientInput::late_ms) is a hiccup of
// that process (scheduler, disk, a window dragged), not the network: frames it held up do
// not raise the delay. Below it, the lateness is the loop's own timing and counts.
inline constexpr int kStalledMs = 8;
// A hiccup claim must show in its input's arrival: at least the claimed lateness after the
// link's fastest input lately, less this (late_ms is whole milliseconds, and the sample's own
// timing); and it excuses frames only when the input came later than the network alone brought
// any lately, by this much.
inline constexpr Micros kHiccupSlackUs = 2'000;
// An echo (ClientInput::echo_seq) must name one of this many newest updates sent to the client
// (half the 8-bit sequence: never ambiguous). An honest client echoes the newest it holds, a
// round trip's worth of updates back: at an update a frame, 2 s.
inline constexpr int kEchoLookback = 128;
// A client's refused claims are named in the log at most this often for each kind (echoes,
// hiccups); all of them are counted (SlotStats).
inline constexpr Micros kNameRefusalsUs = 60'000'000;
// Round-trip reports beyond what the server measured are named once this many of a client's,
// and more than 1 % of them, were (an honest client's are a few in thousands: a late frame the
// server's figures do not explain).
inline constexpr std::uint64_t kNameInflatedReports = 100;
// How far back the server's own measurements of a link reach when it checks a report, and
// the slack it allows (the client's loop timing, a second copy's spacing).
inline constexpr Micros kCheckWindowUs = 10'000'000;
inline constexpr Micros kCheckSlackUs = 3'000;
// How many of a client's newest updates resend_gap() looks through (a frame goes out at once
// and again with each update until the client acknowledges it: a round trip or two in frame
// lock; a frame whose first update lies further back gets no allowance).
inline constexpr int kResendLookback = 64;
// Confirmed frames whose timing is kept for checking reports.
inline constexpr std::size_t kInfoFrames = 600;
// A link that lost a datagram (either way) this recently sends everything twice; a lossy
// link (its last loss event came within kLossyGapUs of the loss before it) for longer. The
// copies hide the loss that turned them on, so on a steadily lossy link a short memory falls
// back to single datagrams between losses, and the first loss after each fall-back costs a
// frame (bench_netplay_delay at 1% loss: half a frame to 0.7 more mean delay with 10 s for
// every link, docs/netplay.md); a lost datagram now and then on a clean link keeps the
// short memory, which costs fewer bytes.
inline constexpr Micros kLossMemoryUs = 10'000'000;
inline constexpr Micros kLossyMemoryUs = 60'000'000;
inline constexpr Micros kLossyGapUs = 2 * kLossyMemoryUs;  // a fall-back's first loss still counts
// A link on which every copy of two client datagrams in a row was lost this recently (a burst
// took them: independent losses of 2 % do that once in six million datagrams) sends each
// datagram three times both ways, the third half a frame later (protocol.h, kCopyOffsetsUs).
// Seen upstream only: the client's statistics count the updates it lost, not their runs.
inline constexpr Micros kBurstMemoryUs = 10'000'000;
// Datagrams lost within this of each other are one loss event (a burst): longer than the
// interval of the client's statistics, which report its downlink's losses.
inline constexpr Micros kLossEventUs = 3'000'000;
// The handshake's round trips the first delay needs from every player.
inline constexpr long kStartRttSamples = 8;
// A mask widened mid-session applies this many frames after the newest confirmed one: time
// for it to reach every player before they run that far.
inline constexpr std::uint32_t kMaskLeadFrames = 30;
// Mask generations remembered (their first frames): reports older than these are long done.
inline constexpr std::size_t kMaskHistory = 16;
// Settled votes on snapshot frames remembered, to check the states uploaded of them: a cached
// state serves joiners for 4 snapshot intervals.
inline constexpr std::size_t kSettledVotesKept = 8;
// Before the start, a player with fewer round-trip samples than that gets a heartbeat this
// often (each answered at once), so the first delay is measured within a round trip or two.
inline constexpr Micros kLobbyMeasureUs = 10'000;

}  // namespace framelock::netplay::server_tuning
