// `framelock browse`: pick a room of a lobby in the player's window, then play in it there
// as `framelock join` would.
#include <memory>
#include <string>

#include "common/log.h"
#include "common/stop_signal.h"
#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"
#include "frontend/app/join_args.h"
#include "frontend/app/play_netplay.h"
#include "frontend/app/window_setup.h"
#include "frontend/lobby_client/room_browser.h"
#include "frontend/player/player_window.h"
#include "netplay/io/real_clock.h"

namespace framelock::frontend {
namespace {

int cmd_browse(JoinArgs args, const std::string& lobby_url) {
    args.host.apply_log_level();
    // The core and content are checked before the window opens: a typo should not wait
    // for a room to be chosen.
    if (auto host = args.host.to_host_config(); !host) return fail(host.error());
    if (args.host.video == VideoMode::kNone)
        return fail(make_error(ErrorCode::kUsage, "browse needs a window (--video none given)"));
    if (std::string why; !display_available(&why))
        return fail(make_error(ErrorCode::kUsage, "browse needs a window: " + why +
                                                      " (`lobby list` and `join` work without)"));
    PlayerWindowConfig window_config;
    window_config.title = "framelock - rooms";
    auto window = open_window(args.host, std::move(window_config));
    if (!window) return fail(window.error());

    install_stop_signal_handlers();
    netplay::SteadyClock clock;
    const auto choice =
        lobby_client::run_room_browser(*window.value(), lobby_url, clock, args.spectate);
    if (!choice) return 0;  // the player left the browser
    // Joined as `join --lobby URL CODE` would: with relay probes, and a host behind a router
    // reached through it (or the room moved to a relay).
    args.address = choice->code;
    args.lobby_url = lobby_url;
    if (!choice->password.empty()) args.password = choice->password;
    return play_netplay(args, nullptr, std::move(window).value());
}

}  // namespace

Subcommand add_browse_command(CLI::App& app) {
    auto args = std::make_shared<JoinArgs>();
    CLI::App* browse = app.add_subcommand(
        "browse", "pick a room of a lobby in the player's window, then play in it");
    args->add_to(*browse, true);  // its --lobby is the lobby to browse
    return {browse, [args] {
                if (Status valid = args->validate(); !valid) return fail(valid.error());
                // The same default as `lobby list`.
                const std::string url =
                    args->lobby_url.empty() ? "http://127.0.0.1:8470" : args->lobby_url;
                return cmd_browse(*args, url);
            }};
}

}  // namespace framelock::frontend
