// A whole frame-lock session in one process on a simulated network with a virtual
// clock: a server and 1-8 clients, each client running a HashingEmulator. Tests and
// benchmarks use it to play minutes of netplay in milliseconds, deterministically.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "netplay/client/client.h"
#include "netplay/interfaces/emulator.h"
#include "netplay/server/server.h"
#include "netplay/sim/sim_network.h"

namespace framelock::netplay {

// A deterministic stand-in for a game: its state is a hash chain over every frame's
// inputs, so two instances agree iff they ran the same inputs in the same order.
class HashingEmulator final : public Emulator {
  public:
    void run_frame(const InputFrame& inputs, bool present) override;
    std::uint64_t frame_count() const override { return m_frames; }
    bool save_state(std::vector<std::uint8_t>& out) override;
    bool load_state(std::span<const std::uint8_t> state) override;
    std::uint64_t state_hash() override;
    std::vector<MemoryRegion> memory_regions() override;
    void rewind_to(std::uint64_t next_frame) override { m_frames = next_frame; }
    double frames_per_second() const override { return m_fps; }

    void set_fps(double fps) { m_fps = fps; }
    // Test hook: frame `at_frame` runs differently here (once; the state chain keeps it).
    void set_divergence(std::uint64_t at_frame) { m_diverge_at = at_frame; }
    // Makes every saved state `bytes` longer with data derived from the state (and as
    // incompressible as random data): a stand-in for a big core's state.
    void set_state_padding(std::size_t bytes) { m_padding = bytes; }
    // A value taken when the content loads that the game never reads (a real core's clock
    // reading at load, leftover memory), kept in the saved state and in its hash, and taken
    // over by a load: two processes' states then differ while their games agree. 0: none.
    void set_load_stamp(std::uint64_t stamp) { m_stamp = stamp; }
    std::uint64_t load_stamp() const { return m_stamp; }
    // Like a load stamp, but every load takes a new value instead of the loaded one (a core
    // reading the clock when a state is loaded): saving right after a load differs from the
    // state loaded. The value at power-on is 1 in every instance; loads draw from `seed`.
    void set_reload_stamps(std::uint64_t seed) {
        m_reload_seed = seed;
        m_stamp = 1;
    }
    // Logs keep one hash every `stride` frames (frame f at index f / stride, for the frames
    // with f % stride == stride - 1) and no inputs when stride > 1: an hour-long soak keeps
    // its memory for the engine. The state is a hash chain, so a sparse log still catches
    // every divergence, only later.
    void set_log_stride(std::uint32_t stride) { m_stride = stride == 0 ? 1 : stride; }
    // Room for `frames` frames' log up front: a soak's memory samples see the engine only.
    void reserve_log(std::uint64_t frames) { m_log.reserve(frames / m_stride + 1); }
    const std::vector<std::uint64_t>& hash_log() const { return m_log; }
    const std::vector<InputFrame>& input_log() const { return m_inputs; }
    std::uint64_t presented() const { return m_presented; }

  private:
    std::uint64_t m_state = 0x6a09e667f3bcc908ull;
    std::uint64_t m_frames = 0;
    std::uint64_t m_presented = 0;
    std::uint64_t m_diverge_at = ~0ull;
    std::size_t m_padding = 0;
    std::uint64_t m_stamp = 0;
    std::uint64_t m_reload_seed = 0;
    std::uint64_t m_loads = 0;
    std::uint32_t m_stride = 1;
    std::array<std::uint8_t, 8> m_ram{};  // the state word, as the "CHAIN" memory region
    double m_fps = 60.0;
    std::vector<std::uint64_t> m_log;
    std::vector<InputFrame> m_inputs;
};

struct SimLinkChange {
    Micros at = 0;
    LinkParams params;
    int client = 0;  // 1..N, or 0 for every client (both directions)
};

struct SimScenario {
    int players = 2;  // players from the start
    // > 0: the last of those players connects this long after the others (its result's
    // connected_at_us says when).
    Micros last_player_after_us = 0;
    int slots = 0;  // player slots in the session (more than players: room to join late)
    std::uint64_t seed = 1;
    std::uint32_t frames = 3600;
    double fps = 60.0;
    LinkParams link;                       // every client <-> server link, both directions
    std::vector<LinkParams> client_links;  // per client override (index = client - 1), optional
    std::vector<SimLinkChange> changes;
    ServerConfig server;
    std::uint32_t warmup_frames = 120;  // stalls before this frame are reported apart
    // > 0: the run ends early once a client has stalled more frames than this (a benchmark
    // comparing fixed delays needs no more of a delay that stalls all the time).
    std::uint32_t max_stall_frames = 0;
    // The bots: each holds a random pad for hold_min..hold_max frames (1..8: twitchier than
    // any person, the hardest case for prediction).
    int hold_min = 1, hold_max = 8;
    InputWord bot_buttons = 0xffff;  // the buttons bots press (bit n: RETRO_DEVICE_ID_JOYPAD n)
    int diverging_client = 0;        // 1..N: that client's emulator diverges at diverge_frame
    std::uint64_t diverge_frame = 0;
    // Each player's answer to a server that asks it to vouch for its savestates
    // (ClientConfig::savestate_check), by client number (1..N, then joiners): unset, every
    // one passes at once.
    std::function<std::optional<Status>(int client)> savestate_check;
    int drop_client = 0;  // 1..N: that client stops (process gone) at drop_frame
    std::uint32_t drop_frame = 0;
    // Emulators other than HashingEmulator (real cores, from a test that can host them):
    // called once per client (1..N, then joiners and a rejoined client by their numbers).
    // Their per-frame hashes are not logged; compare through the server's hash reports
    // instead (server.hash_interval = 1), and their final_state_hash.
    std::function<std::unique_ptr<Emulator>(int client)> make_emulator;
    // A test client that does something to its state (a cheat): called once per client with
    // its HashingEmulator (which keeps logging the frames it runs), it returns the emulator
    // that client runs over it, or nullptr for the HashingEmulator itself.
    std::function<std::unique_ptr<Emulator>(int client, HashingEmulator& inner)> wrap_emulator;
    int freeze_client = 0;           // 1..N: that client hangs (stops ticking) at freeze_frame;
    std::uint32_t freeze_frame = 0;  // its connection stays open
    Micros freeze_for_us = -1;       // >= 0: it goes on after this long (a stalled process)
    // 1..N: that client's input datagrams are rewritten on their way out (a client that lies
    // in what it reports), by `tamper`.
    int tamper_client = 0;
    std::function<void(ClientInput&)> tamper;
    // And its uploads (the states the server asks of it) are rewritten on their way out, each
    // by `tamper_upload` (given the state's frame and its bytes): the client hashes and keeps
    // one state, and sends another.
    std::function<void(std::uint32_t frame, std::vector<std::uint8_t>& state)> tamper_upload;
    // And its ClientStats, by `tamper_stats`: what a client reports of itself, such as what
    // re-running a frame costs it (the simulator's emulators run in no time, so a heavy core
    // is a client that says what it would measure), or a client that lies about it.
    std::function<void(ClientStats&)> tamper_stats;
    Micros rejoin_after_us = -1;    // >= 0: the dropped client restarts this long after
    bool rejoin_with_token = true;  // false: the restarted process lost its rejoin token
    // Per client (index = client - 1): its clock's rate against the server's (1.05: 5 %
    // fast; 1 or missing: the same).
    std::vector<double> clock_rates;
    // Late joiners: they connect once client 1 has run at_frame frames. Their results
    // follow the players' in SimResult::clients (then a rejoined client's, if any).
    struct Joiner {
        std::uint32_t at_frame = 0;
        bool spectator = false;
        int slot = 0;  // players: the slot asked for (0: any free)
    };
    std::vector<Joiner> joiners;
    std::size_t state_padding = 0;  // bytes added to every HashingEmulator state
    bool load_stamps = false;       // each HashingEmulator gets its own load stamp
    bool reload_stamps = false;     // ... or its own reload stamps
    int reload_stamp_client = 0;    // 1..: only that client (a joiner too) has reload stamps
    // Long runs: clients' hash logs keep one frame in `log_stride` (SimClientResult::hashes
    // then holds frame i * log_stride + log_stride - 1 at index i), and neither inputs nor
    // sampled pads are logged. Hash reports still go to the server every hash interval.
    std::uint32_t log_stride = 1;
    // Called each time client 1 has run another `progress_frames` frames (0: never), with
    // its frame count: a soak samples its memory there.
    std::uint32_t progress_frames = 0;
    std::function<void(std::uint32_t frame)> on_progress;
    // false: events are taken from the server and clients as they happen and only counted
    // (SimResult::server_event_counts), so nothing the test keeps grows with the run.
    bool keep_events = true;
    SimNetwork::Tap tap;  // sees every message sent (SimNetwork::set_tap): sealed after a Welcome
    // Sees every message a client is handed, as it opened it (SealedTransport::watch_received):
    // the server's traffic above the seal, when it arrives, from "server" to the client's
    // endpoint. For capturing what a client reads (tests/fuzz/capture_corpus.cpp).
    SimNetwork::Tap received;
};

struct SimClientResult {
    std::vector<std::uint64_t> hashes;  // after each frame run (one in log_stride frames)
    std::uint32_t log_stride = 1;       // SimScenario::log_stride
    std::vector<InputFrame> inputs;     // the confirmed inputs each frame ran with
    std::vector<InputWord> sampled;     // this client's own pad, by the frame it was sampled at
    std::uint32_t stall_frames = 0;
    std::uint32_t stall_frames_after_warmup = 0;
    std::uint32_t frames_fast_forwarded = 0;
    ClientStatsSnapshot stats;
    std::vector<ClientEvent> events;
    std::uint32_t first_frame = 0;  // a late joiner's: its logs start here
    int slot = 0;                   // 0 for spectators
    Micros connected_at_us = -1;    // a late joiner: when it connected (simulated time)
    Micros running_at_us = -1;      // ... and when it started running frames
    std::uint8_t present = 0;       // Client::present_slots() at the end
    std::uint64_t load_stamp = 0;   // its HashingEmulator's at the end (SimScenario::load_stamps)
    std::uint64_t final_state_hash = 0;  // its emulator's state_hash() at the end
    // Ticks after which it asked to be woken again at once, while running: each is a turn of
    // a busy loop in a real process (a client catching up has a few; one with nothing to do
    // has none).
    std::uint32_t busy_wakeups = 0;
};

struct SimResult {
    std::vector<SimClientResult> clients;
    std::vector<ScheduleEntry> schedule;
    std::vector<ServerEvent> server_events;               // empty unless keep_events
    std::array<std::uint32_t, 24> server_event_counts{};  // by ServerEvent::Type, always
    std::uint32_t server_events_of(ServerEvent::Type type) const {
        return server_event_counts[static_cast<std::size_t>(type)];
    }
    Micros simulated_us = 0;
    Micros start_offset_us = 0;  // frame 0's time, from the beginning of the simulation
    double fps = 60.0;
    std::uint32_t frame_at(Micros t) const;  // the frame due at time t from the beginning
    bool hashes_identical = false;           // every client's log equal over their common length
    int min_delay = 0, max_delay = 0;
    double mean_delay = 0;  // over frames, from the schedule
    double mean_delay_after_warmup = 0;
    std::uint32_t total_stalls_after_warmup = 0;  // summed over clients
    bool cut_short = false;                       // SimScenario::max_stall_frames was passed
    std::uint32_t server_busy_wakeups = 0;        // as SimClientResult::busy_wakeups
    std::uint64_t hash_frames_matched = 0;        // Server::hash_frames_matched()
    std::vector<SlotStats> slots;                 // Server::slot_stats() at the end
    // The path floor on this trace, from the warm-up on: the smallest delay with which an
    // ideal pipeline (every input sent the moment it is sampled, forwarded the moment the
    // last one arrives, no processing, no loss) never stalls. For each frame and client i:
    // the slowest player's one-way trip to the server plus the server's trip to i, on the
    // very rolls this trace gives those links (SimNetwork::path_delay). The first players'
    // links only.
    int path_floor = 0;
    Micros path_round_trip_max = 0;  // the largest such trip, us
    // The same within a stall budget of 0.1 %: the smallest delay with which that ideal
    // pipeline stalls each client on at most 0.1 % of its frames, when each frame's input
    // also rides in the next 7 frames' datagrams both ways (as every unconfirmed input does)
    // and arrives with the first of them to come that no burst took (LinkParams::burst_loss;
    // path_floor ignores loss). On a trace with rare spikes, far below path_floor, which waits
    // for the spike; on a bursty one, above it.
    int path_floor_budget = 0;
    int delay_at(std::uint32_t frame) const;
    // The first frame (from `from`, and from both clients' first frames on) whose hashes
    // differ between a and b, or -1 if none does over their common length. With a log
    // stride, the first logged frame that differs (both must have the same stride).
    static long first_difference(const SimClientResult& a, const SimClientResult& b,
                                 std::uint32_t from = 0);
};

SimResult run_scenario(const SimScenario& scenario);

}  // namespace framelock::netplay
