// The delay's measurements: what the server measures of each member's link and feeds the
// DelayController. The server's own round trips (echoes of its updates, each checked against
// what it sent), the clients' round-trip reports checked against them and against how late
// the frames they cover were confirmed, hiccup claims checked against when the input arrived,
// loss either way and the redundant copies it turns on, the path floor, and each client's
// clock against the server's (ClientStats). Every claim a client makes is checked against what
// the server saw itself; one the server's own figures contradict is refused, counted
// (SlotStats) and named in the log (at most once a minute for each kind and client).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/server/delay_schedule.h"
#include "netplay/server/input_book.h"
#include "netplay/server/server_config.h"
#include "netplay/server/server_events.h"
#include "netplay/server/server_slot.h"
#include "netplay/server/slot_stats.h"
#include "netplay/timing/delay_controller.h"
#include "netplay/timing/frame_time.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class DelayMeasurements {
  public:
    // Every reference outlives the part (the Server's own).
    DelayMeasurements(const ServerConfig& config, ServerEvents& events);

    // The session's frame rate is known (its first Hello): the controller starts anew with it.
    void restart_controller(const DelayPolicy& policy) { m_delay = DelayController(policy); }
    // A player's new slot (it joined before the start): nothing measured yet, its clock
    // checked from here.
    void new_link(LinkRecord& link) const;
    // A player took its slot back from a new process: what was measured of the old connection
    // (its updates, loss, reports, clock) does not carry over; the round trips do.
    void new_connection(LinkRecord& link) const;

    // A ClientInput of the member in `slot_number` (0: a spectator) called `name`: counted, its
    // loss noted, and (when it is the newest) its echo of an update checked and taken as a
    // round trip, unless `transfer_on_link` (a state fills the link before the start: the echo
    // measures the transfer, not the path). An echo is refused when it names an update not
    // among the kEchoLookback newest sent to this client, older than one it echoed before, or
    // (once running, `ack_end`: the confirmed frames it says it holds) older than the first
    // update that carried the newest frame it acknowledges; or a hold longer than since the
    // update went out, or than since its previous datagram (plus the uplink's spread). Whether
    // it is the newest.
    bool note_datagram(LinkRecord& link, int slot_number, const std::string& name,
                       const ClientInput& input, std::optional<std::uint32_t> ack_end, Micros now,
                       bool transfer_on_link);
    // The client's report of its round trip for the confirmed frames it received since its
    // previous datagram (up to `ack_end`): used for the delay when it fits what the server
    // measured itself, counted as inflated or as a hiccup when not (inflated ones named in the
    // log once they are kNameInflatedReports and more than 1 % of the client's).
    void note_report(LinkRecord& link, int slot_number, const std::string& name,
                     const ClientInput& input, std::uint32_t ack_end,
                     const ConfirmationLog& confirmations, Micros now);
    // The client holds confirmed frames [0, ack_end): its next report covers frames from there.
    void note_acked(LinkRecord& link, std::uint32_t ack_end, std::uint32_t confirmed_end);
    // Whether the input's arrival backs the client's claim that its process sampled it late
    // (ClientInput::late_ms: a hiccup of that process, whose frames do not raise the delay).
    // The inputs it adds from `new_from` (the end of those held; its first is for `first`)
    // must have arrived at `now` at least the claimed lateness after this link's fastest input
    // lately (else the claim is refused, counted and named), and later than the network alone
    // brought any input lately (else the lateness may as well be the network's, and counts).
    bool hiccup(LinkRecord& link, int slot_number, const std::string& name,
                const ClientInput& input, std::uint32_t first, std::uint32_t new_from,
                const DelaySchedule& schedule, Micros now);
    // Its inputs for [from, end) arrived at `now` (no hiccup): how late after their
    // sampling, the client's uplink (an input earlier than its sampling counts as on time).
    void note_uplink(LinkRecord& link, std::uint32_t from, std::uint32_t end,
                     const DelaySchedule& schedule, Micros now);
    // A player's ClientInput, its first input for `first`: the scheduled sampling of its newest
    // input, against its arrival at `now`, measures the player's pace (clock_check.h) from what
    // the server sees; a player off pace in no-wait mode is named. Returns why the player is to
    // be removed (kick_off_pace), if it is.
    std::optional<std::string> note_pace(LinkRecord& link, int slot_number, const std::string& name,
                                         const ClientInput& input, std::uint32_t first,
                                         const DelaySchedule& schedule, Micros now,
                                         std::uint32_t confirmed_end);
    // A ClientStats: the client's own measurements, its downlink's loss, and its clock reading
    // (refused, or measured; a player whose clock is off pace in no-wait mode is named).
    // `transfer_on_link`: a state on its way to or from it delays what it sends. Returns why
    // the player is to be removed (kick_off_pace), if it is.
    std::optional<std::string> note_stats(LinkRecord& link, int slot_number,
                                          const std::string& name, const ClientStats& stats,
                                          Micros now, bool transfer_on_link, bool started,
                                          std::uint32_t confirmed_end);

    // An update's link fields: its sequence number, the server's time, the echo of the
    // client's newest datagram, whether it goes twice, the path floor.
    void stamp(LinkRecord& link, ServerUpdate& update, Micros now);
    // The update went out, carrying confirmed frames [carried.first, carried.second): kept for
    // its echo, and as the copy to send again a moment later on a lossy link.
    void sent(LinkRecord& link, const ServerUpdate& update,
              std::pair<std::uint32_t, std::uint32_t> carried, std::vector<std::uint8_t> bytes,
              Micros now);
    // The copy of the last update, once it is due (then no longer).
    const std::vector<std::uint8_t>* due_copy(LinkRecord& link, Micros now);
    // Before the start: how often a member gets a heartbeat (often until its first round
    // trips are measured).
    Micros lobby_period(const LinkRecord& link) const;

    // Before the start: every player has measured its round trip; the slowest (SRTT plus one
    // deviation); the first delay for it.
    bool measured(std::span<const ServerSlot> players) const;
    Micros safe_rtt_worst(std::span<const ServerSlot> players) const;
    // In the hybrid, within the re-run costs the players reported so far (decide()).
    int initial_delay(Micros safe_rtt_worst, std::span<const ServerSlot> players,
                      FrameTime frame_time) {
        if (m_delay.policy().hybrid) fit_prediction(players, frame_time);
        return m_delay.initial(safe_rtt_worst);
    }
    // At the start: every report covers frames from `confirmed_end` on.
    void start(std::span<ServerSlot> players, std::uint32_t confirmed_end);
    // A keyframe's delay, from `current`: each player's reports (a player whose round trip as
    // the server measures it moved by a quarter starts its own reports anew), never below the
    // frames that cover the shortest round trip the server measured itself lately to the
    // slowest player present. In the hybrid, first the frames prediction may cover: as many
    // as the slowest player's corrections fit in half a frame (prediction_budget.h; a change
    // is said in the log, kPrediction, naming that player).
    int decide(Micros now, int current, std::span<ServerSlot> players, FrameTime frame_time);
    // The hybrid: the frames prediction covers now (0 outside it).
    int predicted_frames() const { return m_delay.predicted_frames(); }
    // The session left the hybrid for the frame lock (Server: a desync).
    void end_hybrid() { m_delay.end_hybrid(); }
    // The path floor estimated at the last keyframe with players (0 before any): see
    // Server::path_floor().
    int path_floor() const { return m_path_floor; }

    // A player's statistics: the measurements' share.
    void fill(const LinkRecord& link, SlotStats& stats, Micros now) const;

  private:
    static void note_loss(LinkRecord& link, Micros now);
    bool redundant(const LinkRecord& link, Micros now) const;
    // ServerUpdate::copies for this link now: 1, 2 when redundant, 3 when bursty lately.
    std::uint8_t copies(const LinkRecord& link, Micros now) const;
    void note_echo(LinkRecord& link, int slot_number, const std::string& name,
                   const ClientInput& input, std::optional<std::uint32_t> ack_end, Micros now,
                   Micros previous_at, bool transfer_on_link);
    // How many updates back (0: the newest) the first of the newest run of updates that
    // carried `frame` went; -1: none of the kEchoLookback newest did.
    static int first_carrier(const LinkRecord& link, std::uint32_t frame);
    // Names a player off pace (its clock readings or its inputs) once, in no-wait mode after
    // the start; why it is to be removed, with kick_off_pace.
    std::optional<std::string> name_off_pace(LinkRecord& link, int slot_number,
                                             const std::string& name, bool started,
                                             std::uint32_t confirmed_end);
    // Names a refused claim (`what`, the `count`-th of its kind) unless one of its kind was
    // named within kNameRefusalsUs (`named_at`).
    void name_refusal(Micros& named_at, int slot_number, std::uint32_t frame, Micros now,
                      std::string what, std::uint64_t count);
    // How long after the first update carrying `frame` to this client the next one carried
    // it again, when the client never echoed the first (0: it did, or no second one yet).
    static Micros resend_gap(const LinkRecord& link, std::uint32_t frame);
    // The shortest round trip the server measured itself to each player present over the last
    // kCheckWindowUs, the largest of those (0: none): no frame's input comes back sooner.
    Micros shortest_worst(std::span<const ServerSlot> players, Micros now) const;
    // Each player's path floor (LinkRecord::m_path_floor): the slowest player's way up plus
    // its own way down, from the one-way trips the players measured (one_way_trips.h); the
    // largest (0: no round trip measured yet).
    int estimate_path_floor(std::span<ServerSlot> players, Micros now, FrameTime frame_time) const;
    // A client's one-way trips count this long after its last ClientStats (sent every second).
    static constexpr Micros kTripsFreshUs = 3'000'000;
    // The hybrid's prediction for the players' re-run costs (decide()), said when it changes.
    void fit_prediction(std::span<const ServerSlot> players, FrameTime frame_time);

    const ServerConfig& m_config;
    ServerEvents& m_events;
    DelayController m_delay;
    int m_path_floor = 0;
    // Frames [0, this) were confirmed at the start: every member knows them from the Start,
    // not from an update (no proof of which update it holds).
    std::uint32_t m_start_confirmed = 0;
};

}  // namespace framelock::netplay
