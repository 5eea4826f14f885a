// framelock-lobby: the lobby service alone, for a server that does not want the player.
// The same options as `framelock lobby serve` (lobby/serve_command.h).
#include <CLI/CLI.hpp>

#include "lobby/serve_command.h"

int main(int argc, char** argv) {
    CLI::App app{"framelock-lobby: the matchmaking lobby (HTTP JSON API and web page)"};
    framelock::lobby::ServeOptions options;
    framelock::lobby::add_serve_options(app, options);
    CLI11_PARSE(app, argc, argv);
    return framelock::lobby::run_serve(options);
}
