// One player's options: `framelock join` and `browse`, and the player half of
// `framelock host`; turned into a ClientRunConfig (frontend/session/client_runner.h).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/app/host_args.h"
#include "frontend/session/client_runner.h"

namespace framelock::frontend {

struct JoinArgs {
    HostArgs host;
    std::string address;  // HOST:PORT (join only), or the room code with --lobby
    std::string lobby_url;
    int slot = 0;
    // `host` without --slot: slot 1 on its own server; on a relay (assigned, or the room
    // moved there) any free one, since a joiner may get there first.
    bool host_default_slot = false;
    std::string name;
    std::string input_script;
    std::uint64_t random_seed = 0;
    CLI::Option* random_opt = nullptr;
    std::uint64_t frames = 0;
    std::string hash_log;
    std::string stats_json;
    std::int64_t screenshot_frame = -1;
    std::string screenshot;
    std::string record;
    std::string desync_bundle;  // "": the user's data dir's desyncs/
    std::string window_screenshot;
    bool sram = false;
    bool spectate = false;
    std::string password;
    std::string rejoin_file;
    // `join HOST:PORT`: the key the server there must hold (as `host` or `server` prints it).
    std::string server_key;
    // Chat: names whose lines are not shown (--mute), lines said once a frame has run (--say).
    std::vector<std::string> mute;
    std::vector<std::string> say;

    // `joining`: `framelock join` (a spectator, a password); `host` plays slot 1 itself and
    // shares the server's --password.
    void add_to(CLI::App& app, bool joining);

    // A usage error when --screenshot-frame has no file to write, --name is not safe text,
    // --server-key is not a key, or a --say is not FRAME:TEXT.
    Status validate() const;
    // The runner's config for playing on `server_address` (HOST:PORT).
    ClientRunConfig to_config(const std::string& server_address) const;

    // $USER, else "player".
    static std::string default_player_name();
};

}  // namespace framelock::frontend
