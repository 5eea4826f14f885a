#include "frontend/app/play_netplay.h"

#include <fmt/core.h>

#include <cstdio>
#include <optional>
#include <string>

#include "common/log.h"
#include "common/stop_signal.h"
#include "frontend/app/command_error.h"
#include "frontend/app/determinism_lab.h"
#include "frontend/app/lobby_adapter.h"
#include "frontend/app/mode_choice.h"
#include "frontend/app/room_session.h"
#include "frontend/app/window_setup.h"
#include "frontend/files/atomic_file.h"
#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/lobby_client/lobby_client.h"
#include "frontend/player/netplay_view.h"
#include "frontend/player/windowed_run.h"
#include "frontend/reach/host_rendezvous.h"
#include "frontend/reach/upnp_request.h"
#include "frontend/session/client_runner.h"
#include "frontend/session/realtime_loop.h"
#include "frontend/session/server_runner.h"
#include "frontend/session/session_summary.h"
#include "netplay/io/real_clock.h"

namespace framelock::frontend {

int play_netplay(const JoinArgs& args, const ServerArgs* server_args,
                 std::unique_ptr<PlayerWindow> browser_window) {
    args.host.apply_log_level();
    auto host = args.host.to_host_config();
    if (!host) return fail(host.error());
    // Save RAM that differs between peers desyncs them from frame 0 (the arcade game latches
    // its high score at power-on): loaded only on request, never written.
    host.value().load_sram = args.sram && !args.host.no_sram;
    host.value().write_sram = false;

    auto input = make_input_source(
        args.input_script,
        args.random_opt->count() ? std::optional(args.random_seed) : std::nullopt, 1);
    if (!input) return fail(input.error());
    auto windowed = browser_window ? Result<bool>(true) : want_window(args.host.video);
    if (!windowed) return fail(windowed.error());
    if (!windowed.value() && !args.window_screenshot.empty())
        return fail(make_error(ErrorCode::kUsage, "--window-screenshot needs a window"));
    auto emulator = RetroEmulator::create(host.value());
    if (!emulator) return fail(emulator.error());

    // In a window, the local pad is the keyboard and controllers of port 1, with the
    // script or bot (if any) OR-ed in.
    std::unique_ptr<PlayerWindow> window;
    std::unique_ptr<MergedInput> merged;
    std::unique_ptr<WindowCaptureAt> capture;
    InputSource* local = input.value().get();
    netplay::SteadyClock clock;
    if (browser_window) {
        // Opened before the core was known: give it the core's picture and sound now.
        window = std::move(browser_window);
        const retro_system_av_info& av = emulator.value()->av_info();
        window->set_geometry(av.geometry.base_width, av.geometry.base_height,
                             av.geometry.aspect_ratio);
        window->set_sample_rate(av.timing.sample_rate);
        window->set_title(window_title(args.host, *emulator.value()));
    } else if (windowed.value()) {
        auto opened = open_window(args.host, *emulator.value());
        if (!opened) return fail(opened.error());
        window = std::move(opened).value();
    }
    if (window) {
        emulator.value()->set_video_sink(&window->video());
        emulator.value()->set_audio_sink(window->audio());
        if (!args.window_screenshot.empty()) {
            capture = std::make_unique<WindowCaptureAt>(
                *window, *emulator.value(), clock,
                static_cast<std::uint64_t>(args.screenshot_frame), args.window_screenshot);
            emulator.value()->set_video_sink(capture.get());
        }
        merged = std::make_unique<MergedInput>(window->input(), *input.value());
        local = merged.get();
    }

    install_stop_signal_handlers();
    std::unique_ptr<ServerRunner> server;
    std::unique_ptr<UpnpRequest> upnp;  // declared after the server: removed before it closes
    std::string address = args.address;
    std::unique_ptr<netplay::EnetTransport> socket;  // the way to the host was opened from it
    // The key the server at `address` must hold: the lobby's word for it, else --server-key.
    std::optional<netplay::ServerKey> server_key;
    if (!server_args && !args.lobby_url.empty()) {
        // `join --lobby URL CODE`: the lobby turns the code into a session we can reach.
        auto found = find_room_session(args);
        if (!found) return fail(found.error());
        address = found.value().address;
        socket = std::move(found.value().socket);
        server_key = found.value().server_key;
    }
    // The host's flags with the mode it plays (auto decided): what the lobby's room says.
    ServerArgs resolved;
    if (server_args) {
        resolved = *server_args;
        // On an assigned relay the relay's operator chose the mode.
        if (!server_args->run_server && resolved.mode == "auto") resolved.mode = "framelock";
        server_args = &resolved;
    }
    if (server_args && server_args->run_server) {
        ServerRunConfig server_config;
        auto chosen = choose_mode(*server_args, host.value(), server_config);
        if (!chosen) return fail(chosen.error());
        log_info("mode {}", chosen.value().reason);
        resolved.mode = chosen.value().mode;
        auto opened = ServerRunner::open(server_config, clock);
        if (!opened) return fail(opened.error());
        server = std::move(opened).value();
        // The router is asked to forward the port meanwhile (a room announces the mapping
        // once it exists); without one, players come in by hole punching or a relay.
        if (server_args->upnp) {
            upnp =
                std::make_unique<UpnpRequest>(server->ports().front(), server_args->upnp_options());
        }
        address = "127.0.0.1:" + std::to_string(server->ports().front());
        server_key = server->server_key();
        if (!server_args->port_file.empty()) {
            Status written = write_file_atomic(server_args->port_file,
                                               std::to_string(server->ports().front()) + "\n");
            if (!written) return fail(written.error());
        }
    }
    std::unique_ptr<lobby_client::RoomKeeper> keeper;
    std::string room_id;  // the room this host opened in the lobby
    std::unique_ptr<HostRendezvous> rendezvous;
    std::string playing_on = address;  // the session this player is in, as the lobby names it
    if (server_args && !server_args->lobby_url.empty()) {
        // Our own server is announced by the name players reach it by; without one the
        // lobby picks a free relay session and this player joins it like any other.
        const std::string announced =
            server ? (server_args->public_host.empty() ? "127.0.0.1" : server_args->public_host) +
                         ":" + std::to_string(server->ports().front())
                   : "";
        // With the host's round trips to the live relays: the lobby puts the room on the one
        // that suits its players (now, or when this host cannot be reached directly).
        const nlohmann::json body = lobby_client::with_probes(
            room_body(args, *server_args, *emulator.value(), announced,
                      server ? netplay::server_key_text(server->server_key()) : std::string()),
            lobby_client::probe_relays_json(server_args->lobby_url),
            emulator.value()->frames_per_second());
        auto room = lobby_client::create_room(server_args->lobby_url, body);
        if (!room) return fail(room.error());
        if (!server) {
            // The relay the lobby assigned: its key as the lobby has it.
            address = room.value().server_address;
            auto key = lobby_server_key(room.value().server_key, address, "");
            if (!key) return fail(key.error());
            server_key = key.value();
        }
        room_id = room.value().id;
        fmt::print("room code {}\n", room.value().code);
        std::fflush(stdout);
        log_info("lobby: room {} at {}, playing on {}", room.value().code, server_args->lobby_url,
                 room.value().server_address);
        playing_on = room.value().server_address;
        keeper =
            std::make_unique<lobby_client::RoomKeeper>(server_args->lobby_url, room.value(), body);
        // The room's socket registers with the lobby's rendezvous: players behind other
        // routers punch through to it, and the lobby can move the room to a relay.
        if (!room.value().rendezvous_key.empty()) {
            if (auto lobby_udp = lobby_client::rendezvous_endpoint(server_args->lobby_url)) {
                rendezvous = std::make_unique<HostRendezvous>(
                    lobby_udp.value(), [k = keeper.get()] { return k->rendezvous_key(); });
            } else {
                log_warn("{}; players behind other routers may not reach this host",
                         lobby_udp.error().message);
            }
        }
    }

    // Until the session starts the lobby may move the room to a relay (a player could not
    // reach this host); the player then follows it there and plays as it would have here.
    std::unique_ptr<ClientRunner> client;
    std::unique_ptr<NetplayView> view;
    for (;;) {
        ClientRunConfig config = args.to_config(address);
        if (server_key) config.server_key = server_key;
        if (!config.spectate) {
            // A server without a core plays the hybrid only while its players vouch for their
            // own savestates (netplay/server/hybrid_guard.h).
            config.savestate_check = [checked = host.value()] {
                return rollback_trusted_for_auto(checked, netplay::kHybridPredictionWindow);
            };
        }
        if (!server && args.host_default_slot) config.slot = 0;  // on a relay: any free slot
        auto created =
            ClientRunner::create(*emulator.value(), *local, clock, config, std::move(socket));
        if (!created) {
            if (keeper) keeper->close();  // a room nobody can play in should not stay listed
            return fail(created.error());
        }
        client = std::move(created).value();
        if (window) {
            view = std::make_unique<NetplayView>(*window, *client, server.get(), clock,
                                                 emulator.value()->frames_per_second());
        }
        LobbyFeed feed(view.get(), clock);
        feed.keeper = keeper.get();
        feed.client = client.get();
        feed.rendezvous = rendezvous.get();
        // On the host's own server's socket (its thread serves it meanwhile), else the player's.
        feed.rendezvous_server = server.get();
        feed.rendezvous_socket = server ? nullptr : &client->transport();
        feed.playing_on = playing_on;
        feed.upnp = upnp.get();
        run_realtime(server.get(), client.get(), clock, 0,
                     keeper ? static_cast<RealtimeObserver*>(&feed) : view.get());
        if (feed.moved_to().empty() || stop_requested()) break;
        log_info(
            "lobby: room moved to the relay {} (a player could not reach this host "
            "directly): playing there",
            feed.moved_to());
        view.reset();
        client.reset();
        upnp.reset();  // nobody plays on this host's own server any more
        server.reset();
        address = playing_on = feed.moved_to();
        // The relay's key, from the lobby: the host joins only the relay holding it.
        auto place = lobby_client::room_place(server_args->lobby_url, room_id);
        if (!place) return fail(place.error());
        if (place.value().server_address != address) {
            return fail(make_error(ErrorCode::kProtocol, "the room moved to " + address +
                                                             " but the lobby says it plays on " +
                                                             place.value().server_address +
                                                             "; host it again"));
        }
        auto key = lobby_server_key(place.value().server_key, address, "");
        if (!key) return fail(key.error());
        server_key = key.value();
    }
    // Leaving in an orderly way (done, refused, interrupted): the room goes at once rather
    // than after the lobby's TTL.
    if (keeper) keeper->close();
    // Refused or cut off: leave the reason on the screen for a moment.
    if (view && !window->quit_requested() && !stop_requested() && !client->summary().completed) {
        view->linger(3'000'000);
    }

    const Status finished = client->finish();
    const ClientRunSummary summary = client->summary();
    print_client_summary(stdout, summary);
    if (window) {
        print_audio_report(*window);
        if (Status captured = window->capture_status(); !captured) return fail(captured.error());
        if (capture && !capture->done()) {
            return fail(make_error(ErrorCode::kIo, "no window picture of frame " +
                                                       std::to_string(args.screenshot_frame) +
                                                       ": the session ended before it"));
        }
    }
    if (!args.stats_json.empty()) {
        if (Status s = write_file_atomic(args.stats_json, client_summary_json(summary)); !s)
            return fail(s.error());
    }
    if (server) {
        const auto sessions = server->summary();
        print_server_summary(stdout, sessions);
        if (!server_args->stats_json.empty()) {
            Status s = write_file_atomic(server_args->stats_json, server_summary_json(sessions));
            if (!s) return fail(s.error());
        }
    }
    std::fflush(stdout);
    if (!finished) return fail(finished.error());
    if (!summary.completed) {
        return fail(make_error(ErrorCode::kProtocol,
                               summary.rejected
                                   ? summary.end_reason
                                   : "the session ended early: " + summary.end_reason));
    }
    return 0;
}

}  // namespace framelock::frontend
