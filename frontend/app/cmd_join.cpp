// `framelock join`: play in a session, given the server's address or a lobby room's code.
#include <memory>

#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"
#include "frontend/app/join_args.h"
#include "frontend/app/play_netplay.h"

namespace framelock::frontend {

Subcommand add_join_command(CLI::App& app) {
    auto args = std::make_shared<JoinArgs>();
    CLI::App* join = app.add_subcommand("join", "play in a session");
    join->add_option("address", args->address,
                     "the server's HOST:PORT, or with --lobby the room's code")
        ->required();
    args->add_to(*join, true);
    return {join, [args] {
                if (Status valid = args->validate(); !valid) return fail(valid.error());
                return play_netplay(*args, nullptr);
            }};
}

}  // namespace framelock::frontend
