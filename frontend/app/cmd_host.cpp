// `framelock host`: run a session's server in this process and play in it as player 1;
// with --lobby --public, open a room for it (without --port, on a relay server the lobby
// assigns, and no server runs here).
#include <memory>

#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"
#include "frontend/app/join_args.h"
#include "frontend/app/play_netplay.h"
#include "frontend/app/server_args.h"

namespace framelock::frontend {

Subcommand add_host_command(CLI::App& app) {
    struct HostCommandArgs {
        JoinArgs join;
        ServerArgs server;
    };
    auto args = std::make_shared<HostCommandArgs>();
    CLI::App* host =
        app.add_subcommand("host", "run a session's server and play in it as player 1");
    args->server.add_to(*host, false);
    // Without --port a lobby room gets a relay server assigned; otherwise a port is a must.
    args->join.add_to(*host, false);
    return {host, [args, host] {
                if (Status valid = args->join.validate(); !valid) return fail(valid.error());
                if (host->get_option("--port")->count() == 0 && args->server.lobby_url.empty()) {
                    return fail(make_error(ErrorCode::kUsage,
                                           "host needs --port (or --lobby URL --public to play "
                                           "on a relay server the lobby assigns)"));
                }
                args->server.run_server = host->get_option("--port")->count() > 0;
                if (args->join.slot == 0) {
                    args->join.host_default_slot = true;
                    if (args->server.run_server) args->join.slot = 1;
                }
                // Its own server: a tie of hash reports follows its player's state.
                if (args->server.run_server) args->server.host_slot = args->join.slot;
                args->join.password = args->server.password;
                return play_netplay(args->join, &args->server);
            }};
}

}  // namespace framelock::frontend
