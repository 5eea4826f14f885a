// `framelock server`: netplay sessions on consecutive ports, headless, in one loop; with
// --lobby, registered as relay servers the lobby assigns rooms to.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/relay_key.h"
#include "common/stop_signal.h"
#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"
#include "frontend/app/lobby_adapter.h"
#include "frontend/app/server_args.h"
#include "frontend/files/atomic_file.h"
#include "frontend/lobby_client/lobby_client.h"
#include "frontend/session/realtime_loop.h"
#include "frontend/session/server_runner.h"
#include "frontend/session/session_summary.h"
#include "netplay/io/real_clock.h"

namespace framelock::frontend {
namespace {

int cmd_server(const ServerArgs& args) {
    set_log_level(args.verbose ? LogLevel::kDebug
                  : args.quiet ? LogLevel::kError
                               : LogLevel::kInfo);
    if (Status valid = args.validate(); !valid) return fail(valid.error());
    std::string relay_key;
    if (!args.lobby_url.empty()) {
        auto key = load_relay_key(args.relay_key_file);
        if (!key) return fail(key.error());
        if (key.value().empty()) {
            return fail(make_error(
                ErrorCode::kUsage,
                fmt::format("--lobby registers these sessions as relays, which needs the lobby "
                            "operator's relay key: --relay-key-file FILE or {}",
                            kRelayKeyEnv)));
        }
        relay_key = std::move(key).value();
    }
    install_stop_signal_handlers();
    netplay::SteadyClock clock;
    ServerRunConfig config = args.to_config();
    // A relay's sessions serve one game after another, whoever ended the last.
    config.reuse_sessions = args.reuse_sessions || !args.lobby_url.empty();
    config.idle_reset_s = args.idle_reset;
    if (!config.mode_reason.empty()) log_info("mode {}", config.mode_reason);
    auto server = ServerRunner::open(config, clock);
    if (!server) return fail(server.error());
    if (!args.port_file.empty()) {
        std::string ports;
        for (const auto port : server.value()->ports()) ports += std::to_string(port) + "\n";
        if (Status s = write_file_atomic(args.port_file, ports); !s) return fail(s.error());
    }
    std::unique_ptr<lobby_client::ServerAnnouncer> announcer;
    if (!args.lobby_url.empty()) {
        std::vector<std::string> addresses;
        const std::string host = args.public_host.empty() ? "127.0.0.1" : args.public_host;
        for (const auto port : server.value()->ports())
            addresses.push_back(host + ":" + std::to_string(port));
        announcer = std::make_unique<lobby_client::ServerAnnouncer>(
            args.lobby_url, addresses, args.region,
            netplay::server_key_text(server.value()->server_key()), relay_key);
    }
    LobbyFeed feed(nullptr, clock);
    feed.announcer = announcer.get();
    feed.server = server.value().get();
    run_realtime(server.value().get(), nullptr, clock, 0, announcer ? &feed : nullptr);
    if (announcer) announcer->close();
    const auto sessions = server.value()->summary();
    print_server_summary(stdout, sessions);
    std::fflush(stdout);
    if (!args.stats_json.empty()) {
        if (Status s = write_file_atomic(args.stats_json, server_summary_json(sessions)); !s)
            return fail(s.error());
    }
    return 0;
}

}  // namespace

Subcommand add_server_command(CLI::App& app) {
    auto args = std::make_shared<ServerArgs>();
    CLI::App* server = app.add_subcommand(
        "server", "run netplay sessions (headless): collect inputs, pick the delay, relay");
    args->add_to(*server, true);
    return {server, [args] { return cmd_server(*args); }};
}

}  // namespace framelock::frontend
