// Bandwidth per player in each session mode, measured on real processes: a `framelock
// server`, two `framelock join` bots on the bundled arcade game and a spectator, on
// 127.0.0.1 through the impairment proxy (80 ms round trip by default; --rtt 0 connects
// directly). Each mode plays the same number of frames; the figures come from the
// clients' own --stats-json over their running phase (session start to last frame):
// bytes/s on the wire (every header down to IP included), datagrams/s, and how the bytes
// split into the game's payload, ENet's headers and UDP/IP's 28 bytes per datagram.
//
// The reference is RetroArch 1.14's netplay, measured on this kind of machine (2 players,
// nestopia, TCP, loopback, headers included): about 144 B per frame on the host<->client
// link, both directions together. Every mode sends every frame; each player's link, both
// directions together, per frame, is printed against that reference.
//
//   bench_bandwidth [--seconds 20] [--rtt 80] [--modes framelock,nowait,rollback] [--json F]
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_json.h"
#include "bench/session_processes.h"
#include "bench/sibling_exe.h"
#include "common/child_process.h"
#include "netplay/interfaces/transport.h"

namespace {

using namespace std::chrono_literals;
using framelock::ChildProcess;
using framelock::bench::Json;
using framelock::bench::SessionProcesses;
using framelock::bench::tail_of;
using Clock = std::chrono::steady_clock;

constexpr double kLinkReference = 144;           // B/frame, both directions (RetroArch 1.14)
constexpr double kFrameRate = 60;                // the arcade core's
constexpr std::uint64_t kIpUdpHeaderBytes = 28;  // IPv4 + UDP, per datagram

struct Options {
    double seconds = 20;
    double rtt_ms = 80;
    double jitter_ms = 5;
    std::vector<std::string> modes{"framelock", "nowait", "rollback"};
    bool spectator = true;
};

// One direction of one client's traffic, per second.
struct Flow {
    double bytes = 0, packets = 0, payload = 0;
    // Per second: ENet's headers (protocol commands, acknowledgements) and UDP/IP's.
    double udp_ip() const { return packets * kIpUdpHeaderBytes; }
    double enet() const { return bytes - payload - udp_ip(); }
};

struct ClientFigures {
    Flow up, down;
    unsigned stall_frames = 0;
    int delay_max = 0;
    double round_trip_median_ms = 0, round_trip_p99_ms = 0;  // input round trips
    // Totals from the start to the last frame, wire (UDP payload + 28 B per datagram).
    std::uint64_t datagrams_sent = 0, datagrams_received = 0;
    std::uint64_t wire_sent = 0, wire_received = 0;
};

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::optional<ClientFigures> read_client(const std::string& path) {
    try {
        const auto json = nlohmann::json::parse(read_text(path));
        ClientFigures f;
        f.up = {json.at("upstream_bytes_per_s").get<double>(),
                json.at("upstream_packets_per_s").get<double>(),
                json.at("upstream_payload_bytes_per_s").get<double>()};
        f.down = {json.at("downstream_bytes_per_s").get<double>(),
                  json.at("downstream_packets_per_s").get<double>(),
                  json.at("downstream_payload_bytes_per_s").get<double>()};
        f.stall_frames = json.at("stall_frames").get<unsigned>();
        f.delay_max = json.at("delay").at("max").get<int>();
        f.round_trip_median_ms = json.at("input_round_trip_ms").at("median").get<double>();
        f.round_trip_p99_ms = json.at("input_round_trip_ms").at("p99").get<double>();
        const auto& traffic = json.at("traffic");
        f.datagrams_sent = traffic.at("datagrams_sent").get<std::uint64_t>();
        f.datagrams_received = traffic.at("datagrams_received").get<std::uint64_t>();
        f.wire_sent = traffic.at("wire_bytes_sent").get<std::uint64_t>();
        f.wire_received = traffic.at("wire_bytes_received").get<std::uint64_t>();
        return f;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bandwidth: cannot read %s: %s\n", path.c_str(), e.what());
        return std::nullopt;
    }
}

Json flow_json(const Flow& f) {
    return {{"bytes_per_s", f.bytes},
            {"packets_per_s", f.packets},
            {"payload_bytes_per_s", f.payload},
            {"enet_header_bytes_per_s", f.enet()},
            {"udp_ip_header_bytes_per_s", f.udp_ip()}};
}

Flow mean(const Flow& a, const Flow& b) {
    return {(a.bytes + b.bytes) / 2, (a.packets + b.packets) / 2, (a.payload + b.payload) / 2};
}

// An independent count: every datagram the proxy forwarded, against the sum of all the
// clients' own counters (the clients stop counting at their last frame, so the goodbyes
// after it are the proxy's alone). Nothing, after a note, without the proxy's statistics.
std::optional<Json> cross_check(const std::string& netem_json,
                                const std::vector<ClientFigures>& clients) {
    std::uint64_t proxy_up = 0, proxy_down = 0, proxy_up_wire = 0, proxy_down_wire = 0;
    try {
        const auto proxy = nlohmann::json::parse(read_text(netem_json));
        const auto& up = proxy.at("up");
        const auto& down = proxy.at("down");
        proxy_up = up.at("datagrams_in").get<std::uint64_t>();
        proxy_down = down.at("datagrams_out").get<std::uint64_t>();
        proxy_up_wire = up.at("bytes_in").get<std::uint64_t>() + proxy_up * kIpUdpHeaderBytes;
        proxy_down_wire =
            down.at("bytes_out").get<std::uint64_t>() + proxy_down * kIpUdpHeaderBytes;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bandwidth: no proxy statistics in %s: %s\n", netem_json.c_str(),
                     e.what());
        return std::nullopt;
    }
    std::uint64_t sent = 0, received = 0, wire_sent = 0, wire_received = 0;
    for (const auto& c : clients) {
        sent += c.datagrams_sent;
        received += c.datagrams_received;
        wire_sent += c.wire_sent;
        wire_received += c.wire_received;
    }
    const auto ratio = [](std::uint64_t x, std::uint64_t y) {
        return y ? static_cast<double>(x) / static_cast<double>(y) : 0.0;
    };
    std::printf(
        "  %-9s  cross-check: the proxy forwarded %llu datagrams (%llu B on the wire) up, %llu "
        "(%llu B) down; the clients counted %.3f and %.3f of the datagrams, %.3f and %.3f of "
        "the bytes\n",
        "", static_cast<unsigned long long>(proxy_up),
        static_cast<unsigned long long>(proxy_up_wire), static_cast<unsigned long long>(proxy_down),
        static_cast<unsigned long long>(proxy_down_wire), ratio(sent, proxy_up),
        ratio(received, proxy_down), ratio(wire_sent, proxy_up_wire),
        ratio(wire_received, proxy_down_wire));
    return Json{
        {"proxy_up_datagrams", proxy_up},         {"proxy_up_wire_bytes", proxy_up_wire},
        {"proxy_down_datagrams", proxy_down},     {"proxy_down_wire_bytes", proxy_down_wire},
        {"clients_sent_datagrams", sent},         {"clients_sent_wire_bytes", wire_sent},
        {"clients_received_datagrams", received}, {"clients_received_wire_bytes", wire_received}};
}

// The impairment proxy's flags for `options`' round trip and jitter.
std::vector<std::string> impairment(const Options& options) {
    return {"--delay", std::to_string(options.rtt_ms / 2), "--jitter",
            std::to_string(options.jitter_ms)};
}

// The bundled arcade game for two players.
const std::vector<std::string> kGame = {"--core",  "arcade", "--option", "farcade_players=2",
                                        "--ports", "2"};

// One session in `mode`: the figures, or nothing after printing what went wrong.
std::optional<Json> measure(const Options& options, const std::string& mode) {
    SessionProcesses run("bandwidth", "bench-bandwidth-" + mode, kGame);
    const int frames = static_cast<int>(options.seconds * kFrameRate);
    const double limit_s = options.seconds + 40;
    const auto deadline =
        Clock::now() + std::chrono::milliseconds(static_cast<long>(limit_s * 1e3));
    const int seconds = static_cast<int>(limit_s);
    auto address = run.server(2, mode, seconds);
    if (!address) return std::nullopt;
    ChildProcess* server = run.server_process();
    if (options.rtt_ms > 0) {
        address = run.proxy(*address, impairment(options), seconds);
        if (!address) return std::nullopt;
    }
    ChildProcess* proxy = run.proxy_process();
    const auto join = [&](const std::string& name, std::vector<std::string> extra) {
        return run.join(*address, name, extra);
    };
    const auto& dir = run;
    const std::string frames_arg = std::to_string(frames);
    ChildProcess* one = join("bot1", {"--slot", "1", "--random", "11", "--frames", frames_arg});
    ChildProcess* two = join("bot2", {"--slot", "2", "--random", "22", "--frames", frames_arg});
    if (!one || !two) return std::nullopt;
    ChildProcess* watcher = nullptr;
    if (options.spectator) {
        // Once a player is in: the first player fixes the session's game, and a spectator
        // arriving before anyone is refused.
        const std::string log = dir.file("bot1.log");
        while (read_text(log).find("joined ") == std::string::npos) {
            if (!one->running() || Clock::now() > deadline) {
                std::fprintf(stderr, "bandwidth: bot1 never joined in %s mode\n%s", mode.c_str(),
                             tail_of(log).c_str());
                return std::nullopt;
            }
            std::this_thread::sleep_for(20ms);
        }
        watcher = join("spectator", {"--spectate"});
        if (!watcher) return std::nullopt;
    }
    for (auto [child, name] : {std::pair{one, "bot1"}, std::pair{two, "bot2"}}) {
        const auto status = child->wait_until(deadline);
        if (!status || !status->success()) {
            std::fprintf(stderr, "bandwidth: %s %s in %s mode\n%s", name,
                         status ? status->describe().c_str() : "timed out", mode.c_str(),
                         tail_of(dir.file(std::string(name) + ".log")).c_str());
            return std::nullopt;
        }
    }
    // The spectator leaves when the session ends; the server once everyone has left.
    if (watcher && !watcher->wait_until(Clock::now() + 10s)) watcher->stop(2s);
    if (!server->wait_until(Clock::now() + 10s)) server->stop(2s);

    const auto a = read_client(dir.file("bot1.json"));
    const auto b = read_client(dir.file("bot2.json"));
    if (!a || !b) return std::nullopt;
    const Flow up = mean(a->up, b->up), down = mean(a->down, b->down);
    Json out = {{"mode", mode},
                {"players", 2},
                {"frames", frames},
                {"player_up", flow_json(up)},
                {"player_down", flow_json(down)},
                {"players_up_bytes_per_s", {a->up.bytes, b->up.bytes}},
                {"payload_bytes_per_frame_up", up.payload / kFrameRate},
                {"link_bytes_per_frame", (up.bytes + down.bytes) / kFrameRate},
                {"link_vs_reference", (up.bytes + down.bytes) / kFrameRate / kLinkReference},
                {"stall_frames", {a->stall_frames, b->stall_frames}},
                {"delay_max", std::max(a->delay_max, b->delay_max)}};
    std::printf(
        "  %-9s  up   %6.0f B/s %5.1f pkt/s  (payload %5.0f + ENet %5.0f + UDP/IP %5.0f)"
        "  %4.1f B payload/frame\n",
        mode.c_str(), up.bytes, up.packets, up.payload, up.enet(), up.udp_ip(),
        up.payload / kFrameRate);
    std::printf("  %-9s  down %6.0f B/s %5.1f pkt/s  (payload %5.0f + ENet %5.0f + UDP/IP %5.0f)\n",
                "", down.bytes, down.packets, down.payload, down.enet(), down.udp_ip());
    std::printf("  %-9s  link %6.1f B/frame both directions, %.2fx RetroArch's %.0f B/frame\n", "",
                (up.bytes + down.bytes) / kFrameRate,
                (up.bytes + down.bytes) / kFrameRate / kLinkReference, kLinkReference);
    std::vector<ClientFigures> everyone{*a, *b};
    if (watcher) {
        if (const auto s = read_client(dir.file("spectator.json"))) {
            everyone.push_back(*s);
            out["spectator_down"] = flow_json(s->down);
            out["spectator_up"] = flow_json(s->up);
            std::printf("  %-9s  spectator down %6.0f B/s %5.1f pkt/s, up %5.0f B/s %5.1f pkt/s\n",
                        "", s->down.bytes, s->down.packets, s->up.bytes, s->up.packets);
        }
    }
    if (proxy) {
        proxy->stop(2s);  // it writes its statistics as it ends
        if (const auto check = cross_check(dir.file("netem.json"), everyone)) {
            out["cross_check"] = *check;
        }
    }
    std::fflush(stdout);
    return out;
}

// `framelock host` against a dedicated `framelock server` on the same trace: in both, the
// local player (the host's own, or bot1 on 127.0.0.1) and a remote one through the proxy.
// The remote player's input round trips (scheduled sample to confirmation) should not see
// the difference: a host must serve remote inputs the moment they arrive.
std::optional<Json> host_vs_dedicated(const Options& options) {
    const int frames = static_cast<int>(options.seconds * kFrameRate);
    const double limit_s = options.seconds + 40;
    const int seconds = static_cast<int>(limit_s);
    const std::string frames_arg = std::to_string(frames);
    Json out = Json::object();
    std::printf("  host vs dedicated server (frame lock; the remote player through the proxy):\n");
    double medians[2] = {0, 0};
    for (const bool host : {false, true}) {
        const char* kind = host ? "host" : "dedicated";
        SessionProcesses run("bandwidth", std::string("bench-host-latency-") + kind, kGame);
        const auto deadline =
            Clock::now() + std::chrono::milliseconds(static_cast<long>(limit_s * 1e3));
        ChildProcess* local = nullptr;
        ChildProcess* server = nullptr;
        std::optional<std::string> address;
        const std::vector<std::string> bot1 = {"--random", "11", "--frames", frames_arg};
        if (host) {
            std::vector<std::string> args = {framelock::bench::sibling_exe("framelock"),
                                             "host",
                                             "--port",
                                             "0",
                                             "--players",
                                             "2",
                                             "--port-file",
                                             run.file("bot1.port")};
            const auto game = run.game_args("bot1");
            args.insert(args.end(), game.begin(), game.end());
            args.insert(args.end(), bot1.begin(), bot1.end());
            local = run.spawn("bot1", args);
            if (!local) return std::nullopt;
            address = run.address_of("bot1", *local);
        } else {
            address = run.server(2, "framelock", seconds);
            if (!address) return std::nullopt;
            server = run.server_process();
            local = run.join(*address, "bot1", bot1);
        }
        if (!address || !local) return std::nullopt;
        const auto remote_address = run.proxy(*address, impairment(options), seconds);
        if (!remote_address) return std::nullopt;
        ChildProcess* remote =
            run.join(*remote_address, "bot2", {"--random", "22", "--frames", frames_arg});
        if (!remote) return std::nullopt;
        if (!run.finished(*local, "bot1", deadline) || !run.finished(*remote, "bot2", deadline))
            return std::nullopt;
        if (server && !server->wait_until(Clock::now() + 10s)) server->stop(2s);
        const auto a = read_client(run.file("bot1.json"));
        const auto b = read_client(run.file("bot2.json"));
        if (!a || !b) return std::nullopt;
        medians[host ? 1 : 0] = b->round_trip_median_ms;
        std::printf(
            "  %-9s  remote player's input round trip: median %.2f ms, p99 %.2f ms; local "
            "player's median %.2f ms; delay at most %d\n",
            kind, b->round_trip_median_ms, b->round_trip_p99_ms, a->round_trip_median_ms,
            std::max(a->delay_max, b->delay_max));
        out[kind] = {{"remote_round_trip_median_ms", b->round_trip_median_ms},
                     {"remote_round_trip_p99_ms", b->round_trip_p99_ms},
                     {"local_round_trip_median_ms", a->round_trip_median_ms},
                     {"delay_max", std::max(a->delay_max, b->delay_max)}};
    }
    const double difference = medians[1] - medians[0];
    std::printf("  %-9s  host - dedicated: %+.2f ms (target: within 1 ms)\n", "", difference);
    out["difference_ms"] = difference;
    std::fflush(stdout);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"bandwidth per player in each session mode (real processes on 127.0.0.1)"};
    Options options;
    std::string json_path;
    bool no_spectator = false;
    app.add_option("--seconds", options.seconds, "play time per mode (at 60 frames/s)")
        ->check(CLI::Range(1.0, 3600.0))
        ->capture_default_str();
    app.add_option("--rtt", options.rtt_ms,
                   "round trip through the impairment proxy, ms (0: connect directly)")
        ->check(CLI::Range(0.0, 1000.0))
        ->capture_default_str();
    app.add_option("--jitter", options.jitter_ms, "the proxy's jitter each way, +- ms")
        ->check(CLI::Range(0.0, 500.0))
        ->capture_default_str();
    app.add_option("--modes", options.modes, "session modes to measure")
        ->delimiter(',')
        ->check(CLI::IsMember({"framelock", "nowait", "rollback"}))
        ->capture_default_str();
    app.add_flag("--no-spectator", no_spectator, "leave out the spectator");
    bool host_compare = false;
    app.add_flag("--host-compare", host_compare,
                 "also compare `framelock host` with a dedicated server (frame lock)");
    app.add_option("--json", json_path, "also write the figures to this JSON file");
    CLI11_PARSE(app, argc, argv);
    options.spectator = !no_spectator;

    std::printf(
        "bandwidth per player: 2 bots + %s, arcade core, %.0f s per mode, 127.0.0.1 %s; wire "
        "bytes include UDP/IP headers (%g B per datagram); reference %.0f B/frame per link\n",
        options.spectator ? "a spectator" : "no spectator", options.seconds,
        options.rtt_ms > 0 ? ("through the proxy at " + std::to_string(int(options.rtt_ms)) +
                              " ms RTT +- " + std::to_string(int(options.jitter_ms)) + " ms")
                                 .c_str()
                           : "direct",
        static_cast<double>(kIpUdpHeaderBytes), kLinkReference);
    std::fflush(stdout);
    Json modes = Json::array();
    for (const auto& mode : options.modes) {
        auto figures = measure(options, mode);
        if (!figures) return 1;
        modes.push_back(std::move(*figures));
    }
    Json host_latency;
    if (host_compare) {
        auto figures = host_vs_dedicated(options);
        if (!figures) return 1;
        host_latency = std::move(*figures);
    }
    if (!json_path.empty()) {
        Json json = {{"bench", "bandwidth"},
                     {"seconds_per_mode", options.seconds},
                     {"rtt_ms", options.rtt_ms},
                     {"jitter_ms", options.jitter_ms},
                     {"frame_rate", kFrameRate},
                     {"udp_ip_header_bytes", kIpUdpHeaderBytes},
                     {"link_reference_bytes_per_frame", kLinkReference},
                     {"modes", modes}};
        if (host_compare) json["host_vs_dedicated"] = host_latency;
        if (!framelock::bench::write_json(json_path, json)) return 2;
    }
    return 0;
}
