// The `framelock` command line: the app, its subcommands (frontend/app/commands.h, one file
// each), and the dispatch to the one the command line chose.
#include "frontend/app/cli.h"

#include <CLI/CLI.hpp>

#include <string>

#include "frontend/app/commands.h"
#include "frontend/lobby_client/lobby_cli.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

int run_cli(int argc, char** argv) {
    CLI::App app{"framelock: frame-locked netplay for libretro cores"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("framelock ") + FRAMELOCK_VERSION);

    // In the order `framelock --help` lists them.
    const Subcommand commands[] = {
        add_run_command(app),
        add_server_command(app),
        add_join_command(app),
        add_browse_command(app),
        add_host_command(app),
        add_replay_command(app),
        add_synctest_command(app, argc, argv),
        add_demo_command(app),
        add_atlas_command(app),
    };
    lobby_client::LobbyCommand lobby_command;
    lobby_client::add_lobby_command(app, lobby_command);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : static_cast<int>(ErrorCode::kUsage);
    }
    for (const Subcommand& command : commands) {
        if (command.command->parsed()) return command.run();
    }
    if (const int code = lobby_client::run_lobby_command(lobby_command); code >= 0) return code;
    return 0;
}

}  // namespace framelock::frontend
