// The subcommands of `framelock` (frontend/app/cli.h dispatches to them), one file each:
//
//   run       cmd_run.cpp       play a core alone, in a window or headless
//   server    cmd_server.cpp    run netplay sessions (headless)
//   join      cmd_join.cpp      play in a session
//   browse    cmd_browse.cpp    pick a lobby's room in the window, then play in it
//   host      cmd_host.cpp      run a session's server and play in it
//   replay    cmd_replay.cpp    play a recorded session again, --verify its hashes
//     export  cmd_replay_export.cpp  a recorded session as a video (FFmpeg)
//   synctest  cmd_synctest.cpp  check that a core is deterministic
//   demo      cmd_demo.cpp      two bots through a delaying proxy
//   atlas     cmd_atlas.cpp     measure every installed core for netplay
//
// (`framelock lobby` is the lobby's own: frontend/lobby_client/lobby_cli.h.)
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace framelock::frontend {

// A subcommand added to the app: its node (parsed() once the command line chose it) and
// what runs it then, returning the process's exit code. The options it parses into are
// owned by `run`.
struct Subcommand {
    CLI::App* command = nullptr;
    std::function<int()> run;
};

Subcommand add_run_command(CLI::App& app);
Subcommand add_server_command(CLI::App& app);
Subcommand add_join_command(CLI::App& app);
Subcommand add_browse_command(CLI::App& app);
Subcommand add_host_command(CLI::App& app);
// `replay play` and `replay export` (add_replay_export_command, under `replay`).
Subcommand add_replay_command(CLI::App& app);
Subcommand add_replay_export_command(CLI::App& replay);
// A synctest runs its checks in workers: this executable again, with `argv`'s arguments.
Subcommand add_synctest_command(CLI::App& app, int argc, char** argv);
Subcommand add_demo_command(CLI::App& app);
Subcommand add_atlas_command(CLI::App& app);

}  // namespace framelock::frontend
