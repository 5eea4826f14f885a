// A client's link to its server: everything that goes up, and what the way back measures.
//
// Up: each ClientInput datagram, numbered and echoing the newest ServerUpdate with how long
// it was held, sent again kCopyOffsetsUs later (twice) when the server says the link loses
// datagrams; reliable reports queued to leave in the same flush as the next datagram; the
// statistics once a second. Down: the round trip and the clock offset from the server's
// echoes of those datagrams, the loss of its updates, and its silence.
//
// The one holder of the Transport and the server's PeerId: a message reaches the server
// through here or not at all. After the Welcome, sealed (netplay/wire/sealed_transport.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/client/client_types.h"
#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/timing/clock_sync.h"
#include "netplay/timing/loss_counter.h"
#include "netplay/timing/one_way_trips.h"
#include "netplay/timing/rtt_estimator.h"
#include "netplay/wire/protocol.h"
#include "netplay/wire/sealed_transport.h"

namespace framelock::netplay {

class ClientLink {
  public:
    ClientLink(Transport& transport, const Clock& clock);

    // Starts connecting to `address` (a kConnected or kDisconnected event follows); counts
    // as hearing from the server at `now`. An error says why not.
    Status connect(const std::string& address, Micros now);
    // The server's next transport event (other peers' are dropped).
    std::optional<TransportEvent> poll();
    void heard(Micros now) { m_last_heard = now; }
    // The Hello is sent: the server's messages on kInput and kBulk, sealed already, wait for
    // the Welcome's keys. seal(): from now on everything both ways is sealed with `keys`.
    void await_seal() { m_transport.hold_until_sealed(m_server); }
    void seal(const SealKeys& keys) { m_transport.seal(m_server, keys); }
    SealedTransport& sealed_transport() { return m_transport; }
    Micros silent_for(Micros now) const { return now - m_last_heard; }

    // The Welcome's server time, received at `now`: the first clock offset.
    void seed_clock(Micros server_time, Micros now);
    Micros clock_offset() const { return m_sync.offset(); }  // server time - local time
    // Takes an update's measurements: its seq (loss), the echo of this client's datagram
    // (round trip, clock offset), the copies the server asks for. True when it is the newest
    // update so far (a second copy, or a late one, is no news). `answer_at_once`: before the
    // start, where each update is echoed right away (heartbeat_due()). `late_tick`: this
    // process was stalled (a late tick), so the update waited on it, not on the network: its
    // echo measures no one-way trip.
    bool on_update(const ServerUpdate& update, Micros now, bool answer_at_once,
                   bool late_tick = false);

    // A message that goes now (control or bulk channel).
    void send(Channel channel, std::span<const std::uint8_t> message);
    // A reliable message that rides with the next input datagram (send_input()).
    void queue_control(std::vector<std::uint8_t> message);
    // One more pad sampled: true when `send_interval` have been since the last datagram.
    bool count_sample(int send_interval) { return ++m_samples_since_send >= send_interval; }
    // No datagram sent yet, or none for `period`.
    bool send_due(Micros now, Micros period) const {
        return m_last_send < 0 || now - m_last_send >= period;
    }
    // Before the start: a datagram is due every `period`, and at once after each update
    // (the server's round-trip samples for the first delay). Takes the "at once".
    bool heartbeat_due(Micros now, Micros period);
    bool stats_due(Micros now) const;
    // The statistics report, with the counts of frames run and stalled.
    // `rerun_frame_us`: what re-running a frame costs this client (0: not a rollback client, or
    // not known yet).
    void send_stats(std::uint32_t frames_run, std::uint32_t stall_frames, Micros rerun_frame_us);
    // The queued control messages, then `input` (this client's part filled in: confirmations,
    // own inputs, latencies) numbered and carrying the echo. When `running` on a lossy link its
    // copies follow kCopyOffsetsUs later (send_copy()).
    void send_input(ClientInput input, Micros now, bool running);
    // The last datagram's next copy, once its time has come.
    void send_copy(Micros now);
    // When there is next something to send or to check: a datagram `send_period` after the
    // last, a copy, or the server's silence reaching `timeout`.
    Micros next_wakeup(Micros send_period, Micros timeout) const;
    void flush() { m_transport.flush(); }
    // Says goodbye (reliable) and closes.
    void close(const std::string& reason);

    // The link's share of the statistics: round trip, one-way trips, clock offset, update
    // loss, copies, the path floor the server last said, traffic.
    void fill(ClientStatsSnapshot& stats) const;

  private:
    SealedTransport m_transport;
    const Clock& m_clock;
    PeerId m_server = 0;
    Micros m_last_heard = 0;

    RttEstimator m_rtt;
    ClockSync m_sync;
    OneWayTrips m_trips;  // the echoes' ways up and down, on the synchronised clocks
    // The server clock minus this one's as the Welcome said, never corrected: what
    // ClientStats::clock_us reports this clock in.
    Micros m_welcome_offset = 0;
    LossCounter m_update_loss;
    std::uint64_t m_updates_redundant = 0;
    int m_path_floor = 0;  // as the server last said (ServerUpdate::path_floor)

    std::uint8_t m_seq = 0;
    // When each datagram seq was last sent (-1: never), to time the server's echoes of them.
    std::array<Micros, 256> m_sent_at;
    int m_samples_since_send = 0;
    Micros m_last_send = -1;
    Micros m_last_stats = 0;
    std::vector<std::vector<std::uint8_t>> m_control_out;  // queue_control()
    // The newest update (its seq) and when it arrived, echoed so the server measures its own
    // round trip; how many copies of each datagram to send, and the copy still to go.
    bool m_have_echo = false;
    bool m_answer_update = false;  // before the start: echo the newest update at once
    std::uint8_t m_echo_seq = 0;
    Micros m_echo_at = 0;
    std::uint8_t m_copies = 1;
    std::vector<std::uint8_t> m_copy;
    Micros m_copy_sent_at = 0;     // when the datagram m_copy repeats was first sent
    std::size_t m_copy_next = 0;   // the copy still to go: kCopyOffsetsUs[m_copy_next]
    std::size_t m_copy_count = 1;  // times that datagram goes (m_copies when it was sent)
    Micros m_copy_at = -1;
    std::uint64_t m_copies_sent = 0;
};

}  // namespace framelock::netplay
