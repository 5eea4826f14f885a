// `framelock join` and the player half of `framelock host`: one player's session, a
// RetroEmulator run by netplay::Client over ENet, the local pad from an InputSource, and what
// the player keeps of it (hash log, replay, screenshot; frontend/session/recording_emulator.h). Run
// by run_realtime (frontend/session/realtime_loop.h); its statistics are summarized at the end
// (frontend/session/session_summary.h). Threading: none.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/files/rejoin_file.h"
#include "frontend/files/replay_file.h"
#include "frontend/host/headless.h"
#include "frontend/host/io.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/session/session_chat.h"
#include "frontend/session/session_summary.h"
#include "frontend/session/view_events.h"
#include "frontend/terminal/progress.h"
#include "netplay/base/result.h"
#include "netplay/client/client.h"
#include "netplay/interfaces/clock.h"
#include "netplay/io/enet_transport.h"

namespace framelock::frontend {

class DesyncBundles;
class RecordingEmulator;

struct ClientRunConfig {
    std::string server_address;  // "host:port"
    int slot = 0;                // 1..8, 0: any free slot
    std::string player_name;
    std::string content_name;  // for the server's messages ("game.nes")
    unsigned ports = 2;        // controller ports the emulator has (HostConfig::ports)
    // Leave once the session's frame `frames` has run (counted from the session's frame 0,
    // a late joiner's too); 0: until the session ends.
    std::uint64_t frames = 0;
    std::string hash_log;     // "FRAME HASH" per frame, as `framelock run --hash-log`
    std::string record_path;  // replay file (frontend/files/replay_file.h); empty: none
    std::optional<std::uint64_t> screenshot_frame;  // picture after this frame ran ...
    std::string screenshot_path;                    // ... written here as PNG
    netplay::Micros server_timeout_us = netplay::kPeerSilenceTimeoutUs;
    bool spectate = false;  // watch: no slot, no input
    std::string password;   // the session's (or its spectators') password
    // The key the server must hold (netplay/crypto/server_identity.h): the lobby's room says
    // it, or --server-key. nullopt: any server's (the key it holds is logged).
    std::optional<netplay::ServerKey> server_key;
    // Where a player keeps its rejoin token (rejoin_file.h): "" for the default file of this
    // server and name, "-" for nowhere (memory only).
    std::string rejoin_file;
    // The rollback check of this player's core and content (mode_choice.h), for a server that
    // asks the players to vouch for their savestates: run once, on a thread of its own, when
    // the server asks. Unset: the player says it cannot tell.
    std::function<Status()> savestate_check;
    // Where a desync's bundle goes (frontend/session/desync_bundles.h); empty: none is written.
    std::string desync_bundle_dir;
    // Chat (frontend/session/session_chat.h): senders whose lines are not shown (--mute), and
    // lines said once a frame has run (--say).
    std::vector<std::string> muted;
    std::vector<ScriptedChat> say;
};

class ClientRunner {
  public:
    // Opens the hash log, creates the ENet client and says Hello. `emulator` and `input`
    // are borrowed for the runner's lifetime; the emulator's video sink is replaced when
    // a screenshot is asked for. Port 0 of each InputFrame from `input` is this player's pad.
    // `socket`: connect from this one (a way through the routers was opened from it,
    // frontend/reach/reach_host.h); null: a new one.
    static Result<std::unique_ptr<ClientRunner>> create(
        RetroEmulator& emulator, InputSource& input, const netplay::Clock& clock,
        const ClientRunConfig& config, std::unique_ptr<netplay::EnetTransport> socket = nullptr);
    ~ClientRunner();

    // Processes the network, runs the frames that are due, logs events. Never blocks.
    void step();
    // True once the session is over for this player (frames done, or rejected/disconnected)
    // and the goodbye had time to go out.
    bool finished() const;
    // When step() next has work to do: the next frame, or a few ms while waiting for inputs.
    netplay::Micros next_wakeup() const;
    // Sleeps up to `max_wait` or until traffic arrives.
    bool wait(netplay::Micros max_wait);
    // The session's socket, for the datagrams beside ENet (frontend/reach/host_rendezvous.h).
    netplay::EnetTransport& transport() { return *m_transport; }
    // Leaves the session now (SIGINT), if still in it.
    void leave(const std::string& reason);

    // Closes the hash log and writes the screenshot. Call once, after the loop.
    Status finish();
    ClientRunSummary summary() const;

    // For a player's window: the session as it stands, and the events step() logged (the
    // newest 64 are kept).
    const netplay::Client& client() const { return *m_client; }
    const ClientRunConfig& config() const { return m_config; }
    std::optional<netplay::ClientEvent> poll_view_event() { return m_view_events.poll(); }
    // The session's chat as this player sees it, and a line the player typed (said, or a
    // command run): the answer to show, empty when said (SessionChat::submit).
    const SessionChat& chat() const { return m_chat; }
    std::string say(const std::string& typed) { return m_chat.submit(*m_client, typed); }

  private:
    ClientRunner(RetroEmulator& emulator, InputSource& input, const netplay::Clock& clock,
                 ClientRunConfig config);
    void handle_event(const netplay::ClientEvent& event);
    void note_delay(int delay);
    void end_of_play(netplay::Micros now);
    void open_replay(std::uint32_t start_frame, std::vector<std::uint8_t> start_state);
    // While joining: the state transfer's progress (the client's own unless given).
    void show_transfer_progress(std::optional<double> fraction = std::nullopt);

    RetroEmulator& m_emulator;
    InputSource& m_input;
    const netplay::Clock& m_clock;
    ClientRunConfig m_config;
    std::unique_ptr<HashLogWriter> m_hash_log;
    std::unique_ptr<ReplayWriter> m_replay;
    HeadlessVideo m_video;  // the screenshot's copy; passes pictures on to the emulator's sink
    std::unique_ptr<DesyncBundles> m_bundles;  // null: none written
    std::unique_ptr<RecordingEmulator> m_recording;
    std::unique_ptr<netplay::EnetTransport> m_transport;
    std::unique_ptr<netplay::Client> m_client;
    std::optional<RejoinFile> m_rejoin_file;
    std::future<Status> m_savestate_check;  // started when the server asks

    int m_last_ran = 0;
    bool m_delay_seen = false;
    bool m_left = false;                  // this side ended its part (leave or end)
    netplay::Micros m_linger_until = -1;  // after leaving: keep polling until then
    netplay::Micros m_started_at = -1, m_ended_at = -1;
    netplay::Micros m_created_at = 0;
    bool m_transfer_on_tty = false;               // a bar for the state transfer ...
    std::unique_ptr<ProgressBar> m_transfer_bar;  // ... once its first bytes are in
    int m_transfer_quarter = 0;                   // else: quarters logged so far
    std::vector<std::uint8_t> m_common_start;     // the session's start state, for a replay
    netplay::PeerStats m_traffic_at_start, m_traffic_at_end;
    ClientRunSummary m_summary;
    ViewEvents<netplay::ClientEvent> m_view_events;
    SessionChat m_chat;
};

}  // namespace framelock::frontend
