#include "frontend/app/demo.h"

#include <fmt/core.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/child_process.h"
#include "common/stop_signal.h"
#include "frontend/files/read_back.h"
#include "frontend/host/image.h"

namespace framelock::frontend {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr int kClients = 2;
constexpr auto kStartupTimeout = 10s;
constexpr auto kServerExitGrace = 5s;  // the server ends once both players left
constexpr std::uint32_t kPictureGap = 8;
constexpr std::uint32_t kPictureGapColor = 0x202020;

std::string fixed(double value) {
    return fmt::format("{:.3f}", value);
}

// The last lines of a child's log, for error messages.
std::string log_tail(const fs::path& path, std::size_t lines) {
    const auto all = read_lines(path);
    std::string tail;
    for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i)
        tail += "\n    " + all[i];
    return tail;
}

// The processes of one demo run; their destructors kill whatever still runs.
struct Children {
    std::optional<ChildProcess> server, proxy;
    std::vector<ChildProcess> clients;
};

// Starts `args` (its stdout and stderr to `log`) as `child` and waits for the port it
// writes to `port_file` once listening.
Result<std::uint16_t> start_listening(const std::vector<std::string>& args, const fs::path& log,
                                      const fs::path& port_file,
                                      std::optional<ChildProcess>& child) {
    auto spawned = ChildProcess::spawn(args, log.string(), log.string());
    if (!spawned) return spawned.error();
    child.emplace(std::move(spawned).value());
    return wait_for_port_file(port_file.string(), *child, Clock::now() + kStartupTimeout);
}

Error child_failed(const ChildProcess& child, const std::string& what, const fs::path& log) {
    return make_error(
        ErrorCode::kIo,
        fmt::format("{} {} ({}); its log {}:{}", what, child.status() ? "failed" : "did not finish",
                    child.status() ? child.status()->describe() : "killed at the time limit",
                    log.string(), log_tail(log, 8)));
}

}  // namespace

HashLogComparison compare_hash_logs(const std::vector<std::string>& a,
                                    const std::vector<std::string>& b) {
    HashLogComparison result;
    result.compared = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < result.compared; ++i) {
        if (a[i] != b[i]) {
            result.first_difference = std::strtoull(a[i].c_str(), nullptr, 10);
            return result;
        }
    }
    if (a.size() != b.size()) {
        result.first_difference = result.compared;
        return result;
    }
    result.identical = true;
    return result;
}

Result<DemoReport> run_demo(const DemoOptions& options) {
    if (options.frames < 1) return make_error(ErrorCode::kUsage, "--frames must be at least 1");
    const fs::path dir = options.out_dir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return make_error(ErrorCode::kIo, "cannot create " + dir.string() + ": " + ec.message());
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return make_error(ErrorCode::kIo, "cannot find this executable: " + ec.message());
    const fs::path netem = self.parent_path() / "framelock_netem";
    if (::access(netem.c_str(), X_OK) != 0) {
        return make_error(ErrorCode::kUsage,
                          "the impairment proxy " + netem.string() +
                              " is missing: build it next to framelock (ninja framelock_netem)");
    }
    for (const char* stale : {"server.port", "proxy.port", "server.json", "demo.png"})
        fs::remove(dir / stale, ec);

    // Every process gets the same time limit; the clients' frames fit in it with room for
    // the start and the goodbyes.
    const double budget_s = static_cast<double>(options.frames) / 60.0 + 30.0;
    const auto deadline =
        Clock::now() + std::chrono::milliseconds(static_cast<long>(budget_s * 1e3));
    Children children;

    const fs::path server_log = dir / "server.log";
    auto server_port = start_listening(
        {self.string(), "server", "--bind", "127.0.0.1", "--port", "0", "--players",
         std::to_string(kClients), "--port-file", (dir / "server.port").string(), "--stats-json",
         (dir / "server.json").string(), "--duration", fixed(budget_s)},
        server_log, dir / "server.port", children.server);
    if (!server_port) return server_port.error();

    auto proxy_port = start_listening(
        {netem.string(), "--listen", "127.0.0.1:0", "--forward",
         "127.0.0.1:" + std::to_string(server_port.value()), "--delay", fixed(options.rtt_ms / 2),
         "--jitter", fixed(options.jitter_ms), "--loss", fixed(options.loss_pct), "--duration",
         fixed(budget_s + 5), "--port-file", (dir / "proxy.port").string(), "--stats-file",
         (dir / "netem.json").string()},
        dir / "netem.log", dir / "proxy.port", children.proxy);
    if (!proxy_port) return proxy_port.error();

    const std::uint64_t picture_frame = options.frames - 1;
    fmt::print(
        "demo: server on 127.0.0.1:{}, proxy on 127.0.0.1:{} (RTT {} ms, jitter {} ms, "
        "loss {} %), 2 bots playing {} frames (~{:.0f} s); logs in {}\n",
        server_port.value(), proxy_port.value(), options.rtt_ms, options.jitter_ms,
        options.loss_pct, options.frames, static_cast<double>(options.frames) / 60.0, dir.string());
    std::fflush(stdout);
    for (int c = 1; c <= kClients; ++c) {
        const std::string n = std::to_string(c);
        const fs::path log = dir / ("client" + n + ".log");
        auto client = ChildProcess::spawn({self.string(),
                                           "join",
                                           "127.0.0.1:" + std::to_string(proxy_port.value()),
                                           "--core",
                                           "arcade",
                                           "--option",
                                           "farcade_players=2",
                                           "--ports",
                                           "2",
                                           "--slot",
                                           n,
                                           "--name",
                                           "bot " + n,
                                           "--random",
                                           std::to_string(1940 + c),
                                           "--frames",
                                           std::to_string(options.frames),
                                           "--hash-log",
                                           (dir / ("client" + n + ".hashes")).string(),
                                           "--stats-json",
                                           (dir / ("client" + n + ".json")).string(),
                                           "--screenshot-frame",
                                           std::to_string(picture_frame),
                                           "--screenshot",
                                           (dir / ("client" + n + ".png")).string()},
                                          log.string(), log.string());
        if (!client) return client.error();
        children.clients.push_back(std::move(client).value());
    }

    // Wait for both clients; one failing ends the demo (the destructors kill the rest).
    for (;;) {
        bool running = false;
        for (int c = 0; c < kClients; ++c) {
            ChildProcess& client = children.clients[c];
            if (client.running()) {
                running = true;
            } else if (!client.status()->success()) {
                return child_failed(client, "client " + std::to_string(c + 1),
                                    dir / ("client" + std::to_string(c + 1) + ".log"));
            }
        }
        if (!running) break;
        if (stop_requested()) return make_error(ErrorCode::kUsage, "interrupted");
        if (Clock::now() >= deadline) {
            for (int c = 0; c < kClients; ++c) {
                if (children.clients[c].running()) {
                    children.clients[c].stop(1s);
                    return child_failed(children.clients[c], "client " + std::to_string(c + 1),
                                        dir / ("client" + std::to_string(c + 1) + ".log"));
                }
            }
        }
        std::this_thread::sleep_for(20ms);
    }
    if (!children.server->wait_until(Clock::now() + kServerExitGrace)) children.server->stop(1s);
    if (!children.server->status()->success())
        return child_failed(*children.server, "the server", server_log);
    children.proxy->stop(2s);

    DemoReport report;
    report.comparison =
        compare_hash_logs(read_lines(dir / "client1.hashes"), read_lines(dir / "client2.hashes"));
    auto server_json = read_json(dir / "server.json");
    if (!server_json) return server_json.error();
    const auto& played = server_json.value()["sessions"][0];
    report.mode = played.value("mode", "");
    report.mode_reason = played.value("mode_reason", "");
    for (const auto& entry : played["schedule"]) {
        report.schedule.push_back(
            {entry["frame"].get<std::uint32_t>(), entry["delay"].get<std::uint8_t>()});
    }
    std::vector<Image> pictures;
    for (int c = 1; c <= kClients; ++c) {
        const std::string n = std::to_string(c);
        auto json = read_json(dir / ("client" + n + ".json"));
        if (!json) return json.error();
        DemoClientReport client;
        client.stall_frames = json.value()["stall_frames"].get<std::uint32_t>();
        client.upstream_bytes_per_s = json.value()["upstream_bytes_per_s"].get<double>();
        client.srtt_ms = json.value()["srtt_us"].get<double>() / 1000.0;
        report.clients.push_back(client);
        auto picture = read_png(dir / ("client" + n + ".png"));
        if (!picture) return picture.error();
        pictures.push_back(std::move(picture).value());
    }
    report.picture_frame = picture_frame;
    report.picture_path = (dir / "demo.png").string();
    const Image both = side_by_side({&pictures[0], &pictures[1]}, kPictureGap, kPictureGapColor);
    if (Status written = write_png(report.picture_path, both); !written) return written.error();
    return report;
}

void print_demo_report(const DemoReport& r) {
    fmt::print("frames compared  {}\n", r.comparison.compared);
    if (r.comparison.identical) {
        fmt::print("identical        yes: both clients' states matched after every frame\n");
    } else {
        fmt::print("identical        NO: first difference at frame {}\n",
                   r.comparison.first_difference.value_or(0));
    }
    std::string delays;
    for (const auto& entry : r.schedule)
        delays += fmt::format("{}{} frames from frame {}", delays.empty() ? "" : ", ", entry.delay,
                              entry.frame);
    fmt::print("mode             {}{}\n", r.mode.empty() ? "-" : r.mode,
               r.mode_reason.empty() ? "" : " (" + r.mode_reason + ")");
    fmt::print("delay            {}\n", delays.empty() ? "-" : delays);
    for (std::size_t c = 0; c < r.clients.size(); ++c) {
        fmt::print("client {}         {} stall frames, upstream {:.0f} B/s (wire), RTT {:.1f} ms\n",
                   c + 1, r.clients[c].stall_frames, r.clients[c].upstream_bytes_per_s,
                   r.clients[c].srtt_ms);
    }
    fmt::print("picture          {} (frame {}, client 1 left, client 2 right)\n", r.picture_path,
               r.picture_frame);
}

}  // namespace framelock::frontend
