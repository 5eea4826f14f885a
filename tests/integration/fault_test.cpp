// Fault injection with real processes on 127.0.0.1 and the bundled arcade core, headless:
// kill -9 a player, the server, the lobby and `framelock run` while it writes save RAM;
// freeze a player with SIGSTOP; cut the network for a while and corrupt datagrams with the
// impairment proxy. Each fault comes at a random point: the seed is printed ("[fault] ...",
// FRAMELOCK_FAULT_SEED=N repeats a run) with the frame or time it chose. After each: what the
// others did (kept playing with identical hash logs, or stopped with a clear message and exit
// code), what is on disk (save RAM and replay files hashed before and after, replays played
// back with --verify), and that no process of the test is left. Every wait is bounded.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/lobby_session.h"
#include "integration/netplay_session.h"
#include "netplay/determinism/state_hash.h"
#include "support/build_paths.h"
#include "support/process.h"

using namespace framelock::test;
namespace fs = std::filesystem;

namespace {

constexpr int kExitSessionEndedEarly = 9;  // `join`: the session ended before --frames

// The random points of one test: seeded from FRAMELOCK_FAULT_SEED or at random, printed.
class FaultRandom {
  public:
    explicit FaultRandom(const char* test) {
        const char* fixed = std::getenv("FRAMELOCK_FAULT_SEED");
        m_seed = fixed ? std::strtoull(fixed, nullptr, 10) : std::random_device{}();
        m_engine.seed(m_seed);
        std::printf("[fault] %s: seed %llu (FRAMELOCK_FAULT_SEED=%llu repeats it)\n", test,
                    static_cast<unsigned long long>(m_seed),
                    static_cast<unsigned long long>(m_seed));
        std::fflush(stdout);
    }
    int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(m_engine); }

  private:
    std::uint64_t m_seed = 0;
    std::mt19937_64 m_engine;
};

double ms_between(SteadyTime::time_point from, SteadyTime::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

// XXH3 of a file's bytes as hex; "missing" when it does not exist.
std::string file_hash(const std::string& path) {
    if (!fs::exists(path)) return "missing";
    const std::string bytes = read_text(path);
    return framelock::netplay::hash_to_hex(framelock::netplay::hash_bytes(
        {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}));
}

// A save RAM file of the arcade core with a real high-score table in it (a headless run's).
std::string make_srm(const TempDir& dir) {
    const std::string saves = dir.file("srm-source");
    fs::create_directories(saves);
    const auto run =
        run_process({build_paths::framelock_exe, "run", "--core", core_case("arcade").core,
                     "--save-dir", saves, "--random", "5", "--frames", "3000", "-q"},
                    60s);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const std::string srm = saves + "/framelock-arcade.srm";
    REQUIRE(fs::file_size(srm) == 64);
    return srm;
}

// The player NAME's save dir, holding a copy of `srm`.
std::string save_dir_with(const Session& session, const std::string& name, const std::string& srm) {
    const std::string dir = session.dir().file("saves-" + name);
    fs::create_directories(dir);
    fs::copy_file(srm, dir + "/framelock-arcade.srm", fs::copy_options::overwrite_existing);
    return dir;
}

// `framelock join` for a player of a `players`-player arcade session, headless, with a bot,
// a hash log, statistics, a replay (NAME.replay) and save RAM loaded from its own save dir.
std::vector<std::string> join_args(const Session& session, const std::string& address,
                                   const std::string& name, int players, std::uint64_t seed,
                                   int frames, const std::string& save_dir) {
    return {build_paths::framelock_exe,
            "join",
            address,
            "--core",
            core_case("arcade").core,
            "--ports",
            std::to_string(players),
            "--option",
            "farcade_players=" + std::to_string(players),
            "--video",
            "none",
            "--audio",
            "none",
            "--name",
            name,
            "--random",
            std::to_string(seed),
            "--frames",
            std::to_string(frames),
            "--hash-log",
            session.hashes(name),
            "--stats-json",
            session.stats(name),
            "--record",
            session.dir().file(name + ".replay"),
            "--sram",
            "--save-dir",
            save_dir};
}

// `count` players ("player1".."playerN", bot seeds seed_base + i) joined to the port in
// `port_file` (`server.port`, or `netem.port`: the proxy in front of the server), each with
// its own copy of the save RAM file `srm`.
std::vector<ChildProcess*> start_players(Session& session, const std::string& port_file, int count,
                                         int seed_base, int frames, const std::string& srm) {
    const std::string address = "127.0.0.1:" + read_lines(session.dir().file(port_file))[0];
    std::vector<ChildProcess*> players;
    for (int i = 1; i <= count; ++i) {
        const std::string name = "player" + std::to_string(i);
        players.push_back(
            &session.start(name, join_args(session, address, name, count, seed_base + i, frames,
                                           save_dir_with(session, name, srm))));
    }
    return players;
}

// `framelock replay play FILE --verify` for a `players`-player arcade replay: the number of
// frames it played, every one's state hash equal to the recorded one. The session loaded
// save RAM from `save_dir` (join --sram); the replay loads the same.
int verify_replay(const std::string& path, int players, const std::string& save_dir) {
    const auto result = run_process(
        {build_paths::framelock_exe, "replay", "play", path, "--core", core_case("arcade").core,
         "--option", "farcade_players=" + std::to_string(players), "--verify", "--sram",
         "--save-dir", save_dir},
        120s);
    INFO(path << "\n" << result.out << result.err);
    REQUIRE_FALSE(result.timed_out);
    REQUIRE(result.exit_code == 0);
    const auto at = result.out.find("verify   ");
    REQUIRE(at != std::string::npos);
    const int frames = std::stoi(result.out.substr(at + 9));
    REQUIRE_THAT(result.out,
                 Catch::Contains(std::to_string(frames) + " state hashes equal the recorded ones"));
    return frames;
}

// No process whose command line names the test's directory is left (every child reaped:
// a zombie still has its command line until it is).
void require_no_process_left(const TempDir& dir) {
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string pid = entry.path().filename();
        if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = read_text(entry.path().string() + "/cmdline");
        for (char& c : cmdline)
            if (c == '\0') c = ' ';
        if (cmdline.find(dir.path()) != std::string::npos) left.push_back(pid + ": " + cmdline);
    }
    INFO("processes left:\n"
         << [&] {
                std::string all;
                for (const auto& p : left) all += p + "\n";
                return all;
            }());
    CHECK(left.empty());
}

// The longest time NAME's hash log did not grow while watched for `window`, and its lines
// at the start and the end of the window.
struct Watch {
    double longest_still_ms = 0;
    std::size_t lines_before = 0, lines_after = 0;
};

Watch watch_log(const std::string& path, std::chrono::milliseconds window) {
    Watch watch;
    watch.lines_before = read_lines(path).size();
    const auto start = SteadyTime::now();
    auto last_growth = start;
    auto size = fs::exists(path) ? fs::file_size(path) : 0;
    for (auto now = start; now - start < window; now = SteadyTime::now()) {
        const auto current = fs::exists(path) ? fs::file_size(path) : 0;
        if (current != size) {
            size = current;
            watch.longest_still_ms = std::max(watch.longest_still_ms, ms_between(last_growth, now));
            last_growth = now;
        }
        std::this_thread::sleep_for(5ms);
    }
    watch.longest_still_ms =
        std::max(watch.longest_still_ms, ms_between(last_growth, SteadyTime::now()));
    watch.lines_after = read_lines(path).size();
    return watch;
}

// Stops the proxy (SIGTERM) and reads the statistics it writes at exit.
nlohmann::json stop_proxy(Session& session) {
    session.proxy().send_signal(SIGTERM);
    REQUIRE(session.proxy().wait_until(after(5s)));
    return read_json(session.dir().file("netem.json"));
}

// The delay in force at `frame` in the server's schedule (--stats-json, its only session).
int scheduled_delay(const nlohmann::json& server, std::uint32_t frame) {
    int delay = 0;
    for (const auto& entry : server["sessions"][0]["schedule"]) {
        if (entry["frame"].get<std::uint32_t>() > frame) break;
        delay = entry["delay"].get<int>();
    }
    return delay;
}

// PRAGMA integrity_check on the SQLite file at `path` (opened read-only): "ok" when the
// database is intact, else SQLite's list of problems (or the error that stopped it).
std::string sqlite_integrity(const std::string& path) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
        sqlite3_close(db);
        return "cannot open: " + why;
    }
    sqlite3_stmt* statement = nullptr;
    std::string result;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nullptr) != SQLITE_OK) {
        result = std::string("cannot check: ") + sqlite3_errmsg(db);
    } else {
        while (sqlite3_step(statement) == SQLITE_ROW) {
            const auto* text = sqlite3_column_text(statement, 0);
            if (!result.empty()) result += "\n";
            result += text ? reinterpret_cast<const char*>(text) : "";
        }
    }
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return result;
}

}  // namespace

TEST_CASE("faults: a player killed with SIGKILL: the others play on and it rejoins its slot",
          "[faults][netplay]") {
    require_core_case(core_case("arcade"));
    FaultRandom random("kill a player");
    constexpr int kFrames = 1500;
    const int kill_at = random.pick(300, 800);
    std::printf("[fault] kill a player: player 3 of 3 killed at frame %d of %d\n", kill_at,
                kFrames);
    const auto limit = session_time(kFrames);
    const Deadline deadline = after(limit);
    Session session("fault-kill-player");
    const std::string srm = make_srm(session.dir());
    const std::string srm_hash = file_hash(srm);
    session.start_server(3, limit);
    const auto players = start_players(session, "server.port", 3, 70, kFrames, srm);
    wait_for_lines(session, "player3", static_cast<std::size_t>(kill_at), *players[2], deadline);
    // Away from the kill on (a busy machine's player may have been away and back before).
    const std::size_t server_log_at_kill = session.log_size("server");
    players[2]->send_signal(SIGKILL);
    const auto killed = players[2]->wait_until(after(5s));
    REQUIRE(killed);
    CHECK(killed->signal == SIGKILL);
    const auto before_kill = read_lines(session.hashes("player3"));

    // Its unfinished replay: keep a copy before the new process records to the same name.
    const std::string part = session.dir().file("player3.replay.part");
    REQUIRE(fs::exists(part));
    const std::string kept = session.dir().file("killed.replay.part");
    fs::copy_file(part, kept);
    const std::string part_hash = file_hash(part);
    CHECK(file_hash(kept) == part_hash);

    session.wait_for_log("server", "player3 is away", *players[0], ready_deadline(),
                         server_log_at_kill);
    // The two others play on meanwhile: player 1's log grows by 30 more lines while player 3
    // is gone (waited for, not counted in a second: a busy machine plays slower, not less).
    const Watch during = watch_log(session.hashes("player1"), 1000ms);
    wait_for_lines(session, "player1", during.lines_before + 31, *players[0], ready_deadline());

    ChildProcess& again = session.restart("player3", "player3-again");
    session.require_success(*players[0], "player1", deadline);
    session.require_success(*players[1], "player2", deadline);
    session.require_success(again, "player3-again", deadline);
    session.require_server_success(after(15s));

    require_identical_logs(session, "player1", "player2", kFrames);
    const auto full = read_lines(session.hashes("player1"));
    for (std::size_t i = 0; i + 1 < before_kill.size(); ++i) {
        INFO("frame " << i);
        REQUIRE(before_kill[i] == full[i]);
    }
    const auto rejoined = read_lines(session.hashes("player3"));
    REQUIRE_FALSE(rejoined.empty());
    const std::uint32_t first = frame_of(rejoined.front());
    REQUIRE(first + rejoined.size() == static_cast<std::size_t>(kFrames));
    for (std::size_t i = 0; i < rejoined.size(); ++i) {
        INFO("frame " << first + i);
        REQUIRE(rejoined[i] == full[first + i]);
    }
    CHECK_THAT(session.log_of("server"), Catch::Contains("player3 rejoins"));

    // On disk: the killed player's .part plays to its last complete second (blocks are
    // written once a second), the finished replays play in full, save RAM is untouched.
    const int part_frames = verify_replay(kept, 3, session.dir().file("saves-player3"));
    CHECK(part_frames <= static_cast<int>(before_kill.size()));
    CHECK(part_frames >= static_cast<int>(before_kill.size()) - 150);
    CHECK(file_hash(kept) == part_hash);
    CHECK(verify_replay(session.dir().file("player1.replay"), 3,
                        session.dir().file("saves-player1")) == kFrames);
    CHECK(verify_replay(session.dir().file("player2.replay"), 3,
                        session.dir().file("saves-player2")) == kFrames);
    for (const char* name : {"player1", "player2", "player3"}) {
        INFO(name);
        CHECK(file_hash(session.dir().file(std::string("saves-") + name) +
                        "/framelock-arcade.srm") == srm_hash);
    }
    require_no_process_left(session.dir());
    std::printf(
        "[figure] fault kill a player: killed at frame %zu; its .part replay verified %d "
        "frames; it rejoined at frame %u; player 1's log stood still %.0f ms at most in the "
        "second after 'away'\n",
        before_kill.size(), part_frames, first, during.longest_still_ms);
}

TEST_CASE("faults: the server killed with SIGKILL: every player stops with a clear message",
          "[faults][netplay]") {
    require_core_case(core_case("arcade"));
    FaultRandom random("kill the server");
    constexpr int kFrames = 1200;
    const int kill_at = random.pick(200, 700);
    std::printf("[fault] kill the server: at frame %d of %d\n", kill_at, kFrames);
    const auto limit = session_time(kFrames);
    const Deadline deadline = after(limit);
    Session session("fault-kill-server");
    const std::string srm = make_srm(session.dir());
    const std::string srm_hash = file_hash(srm);
    session.start_server(2, limit);
    const auto players = start_players(session, "server.port", 2, 80, kFrames, srm);
    wait_for_lines(session, "player1", static_cast<std::size_t>(kill_at), *players[0], deadline);
    session.server().send_signal(SIGKILL);
    const auto killed_at = SteadyTime::now();
    REQUIRE(session.server().wait_until(after(5s)));

    double stopped_ms = 0;
    for (int i = 1; i <= 2; ++i) {
        const std::string name = "player" + std::to_string(i);
        const auto status = players[static_cast<std::size_t>(i - 1)]->wait_until(after(30s));
        INFO(name << session.log_of(name));
        REQUIRE(status);
        stopped_ms = std::max(stopped_ms, ms_between(killed_at, SteadyTime::now()));
        CHECK(status->code == kExitSessionEndedEarly);
        const std::string log = read_text(session.dir().file(name + ".log"));
        CHECK_THAT(log, Catch::Contains("framelock: error: the session ended early: "));
        CHECK((log.find("connection to the server lost") != std::string::npos ||
               log.find("the server has been silent") != std::string::npos));
        // The replay was finished (renamed from .part) and plays every frame it logged.
        const auto lines = read_lines(session.hashes(name));
        REQUIRE(lines.size() >= static_cast<std::size_t>(kill_at));
        CHECK_FALSE(fs::exists(session.dir().file(name + ".replay.part")));
        CHECK(verify_replay(session.dir().file(name + ".replay"), 2,
                            session.dir().file("saves-" + name)) == static_cast<int>(lines.size()));
        CHECK(file_hash(session.dir().file("saves-" + name) + "/framelock-arcade.srm") == srm_hash);
    }
    require_identical_logs(session, "player1", "player2",
                           read_lines(session.hashes("player1")).size());
    // The peer timeout (15 s, netplay/interfaces/transport.h) tells a dead server from a network
    // outage.
    CHECK(stopped_ms > 14000);
    CHECK(stopped_ms < 18000);
    require_no_process_left(session.dir());
    std::printf("[figure] fault kill the server: both players stopped %.0f ms after the kill\n",
                stopped_ms);
}

TEST_CASE("faults: a player frozen with SIGSTOP for 10 s: the others play on and it comes back",
          "[faults][netplay]") {
    require_core_case(core_case("arcade"));
    FaultRandom random("freeze a player");
    constexpr int kFrames = 1500;
    const int stop_at = random.pick(200, 500);
    std::printf("[fault] freeze a player: player 3 of 3 stopped at frame %d for 10 s\n", stop_at);
    const auto limit = session_time(kFrames);
    const Deadline deadline = after(limit);
    Session session("fault-freeze");
    const std::string srm = make_srm(session.dir());
    const std::string srm_hash = file_hash(srm);
    session.start_server(3, limit);
    const auto players = start_players(session, "server.port", 3, 90, kFrames, srm);
    wait_for_lines(session, "player3", static_cast<std::size_t>(stop_at), *players[2], deadline);
    players[2]->send_signal(SIGSTOP);
    const Watch frozen = watch_log(session.hashes("player1"), 10s);
    const auto thawed_at = SteadyTime::now();
    const std::size_t server_log_at_thaw = session.log_size("server");
    players[2]->send_signal(SIGCONT);

    // The design (docs/netplay.md): away after 0.5 s, the others play on with neutral input
    // in its slot; 10 s is inside the 15 s peer timeout, so the thawed process finds its
    // connection still there, is back with its next input and catches up.
    session.wait_for_log("server", "player3 is back", session.server(), ready_deadline(),
                         server_log_at_thaw);
    const double back_ms = ms_between(thawed_at, SteadyTime::now());
    for (int i = 1; i <= 3; ++i) {
        const std::string name = "player" + std::to_string(i);
        session.require_success(*players[static_cast<std::size_t>(i - 1)], name, deadline);
        const std::string saves = session.dir().file("saves-" + name);
        CHECK(verify_replay(session.dir().file(name + ".replay"), 3, saves) == kFrames);
        CHECK(file_hash(saves + "/framelock-arcade.srm") == srm_hash);
    }
    session.require_server_success(after(15s));
    CHECK_THAT(session.log_of("server"), Catch::Contains("player3 is away"));
    require_identical_logs(session, "player1", "player2", kFrames);
    require_identical_logs(session, "player1", "player3", kFrames);
    // 10 s at 60 frames/s less the 0.5 s wait for the frozen player and some slack.
    CHECK(frozen.lines_after - frozen.lines_before > 480);
    CHECK(frozen.longest_still_ms < 1500);
    const int thawed_stalls = read_json(session.stats("player3"))["stall_frames"].get<int>();
    require_no_process_left(session.dir());
    std::printf(
        "[figure] fault freeze: the others ran %zu frames during the 10 s freeze, stalled "
        "%.0f ms at most; the thawed player was back %.0f ms after SIGCONT (%d stall frames "
        "in all) and finished identical\n",
        frozen.lines_after - frozen.lines_before, frozen.longest_still_ms, back_ms, thawed_stalls);
}

TEST_CASE("faults: every datagram dropped for 5 s: the players go away, come back and play on",
          "[faults][netplay][netem]") {
    require_core_case(core_case("arcade"));
    FRAMELOCK_SKIP_UNLESS_FILE(netem_exe(), "built by this project: ninja framelock_netem");
    FaultRandom random("blackout");
    constexpr int kDarkSeconds = 5;
    int blackout_at = random.pick(4, 9);
    // The proxy counts the blackout from its own start; the session must be running by then
    // (60 frames), and on a busy machine under a sanitizer the players take longer to start.
    // So the start is waited for, and when it came after the blackout's time this machine's
    // pace is taken for what it is: the whole run again with the blackout twice as late (and
    // the session long enough to play on 10 s past it).
    TempDir srm_dir("fault-blackout-srm");
    const std::string srm = make_srm(srm_dir);
    const std::string srm_hash = file_hash(srm);
    std::unique_ptr<Session> run;
    std::vector<ChildProcess*> players;
    int frames = 0;
    Deadline deadline;
    SteadyTime::time_point proxy_started;
    for (int attempt = 1;; ++attempt) {
        frames = std::max(1500, (blackout_at + kDarkSeconds + 10) * 60);
        std::printf("[fault] blackout: %d s from %d s after the proxy started, %d frames\n",
                    kDarkSeconds, blackout_at, frames);
        const auto limit = session_time(frames);
        deadline = after(limit);
        run = std::make_unique<Session>("fault-blackout");
        run->start_server(2, limit);
        run->start_proxy(
            0, 0, limit,
            {"--blackout", std::to_string(blackout_at) + ":" + std::to_string(kDarkSeconds)});
        proxy_started = SteadyTime::now();
        players = start_players(*run, "netem.port", 2, 100, frames, srm);
        const auto dark_at = proxy_started + std::chrono::seconds(blackout_at);
        while (read_lines(run->hashes("player1")).size() <= 60 && SteadyTime::now() < dark_at) {
            INFO(run->log_of("player1"));
            REQUIRE(players[0]->running());
            std::this_thread::sleep_for(20ms);
        }
        if (read_lines(run->hashes("player1")).size() > 60) break;
        REQUIRE(attempt < 3);
        std::printf(
            "[fault] blackout: the session had not run 60 frames %d s after the proxy "
            "started, when its blackout began: again, the blackout twice as late\n",
            blackout_at);
        blackout_at *= 2;
    }
    Session& session = *run;
    // The frames player 1 had logged when the lights went out and when they came back on.
    std::this_thread::sleep_until(proxy_started + std::chrono::seconds(blackout_at));
    const auto dark_frame =
        static_cast<std::uint32_t>(read_lines(session.hashes("player1")).size());
    const Watch dark = watch_log(session.hashes("player1"), std::chrono::seconds(kDarkSeconds));
    REQUIRE(dark_frame > 60);  // the session was running before the blackout
    const auto light_frame = static_cast<std::uint32_t>(dark.lines_after);

    session.require_success(*players[0], "player1", deadline);
    session.require_success(*players[1], "player2", deadline);
    session.require_server_success(after(15s));
    require_identical_logs(session, "player1", "player2", frames);
    const std::string server_log = session.log_of("server");
    for (const char* name : {"player1", "player2"}) {
        CHECK_THAT(server_log, Catch::Contains(std::string(name) + " is away"));
        CHECK_THAT(server_log, Catch::Contains(std::string(name) + " is back"));
        CHECK_THAT(server_log, Catch::Contains(std::string(name) + " left: finished " +
                                               std::to_string(frames) + " frames"));
        const std::string saves = session.dir().file(std::string("saves-") + name);
        CHECK(verify_replay(session.dir().file(std::string(name) + ".replay"), 2, saves) == frames);
        CHECK(file_hash(saves + "/framelock-arcade.srm") == srm_hash);
    }
    const auto netem = stop_proxy(session);
    const int dark_up = netem["up"]["blackout"].get<int>();
    const int dark_down = netem["down"]["blackout"].get<int>();
    CHECK(dark_up > 0);
    CHECK(dark_down > 0);
    CHECK(netem["up"]["dropped"].get<int>() == 0);
    require_no_process_left(session.dir());

    // The session stood still for about the blackout (the players stall, nobody gives up).
    CHECK(dark.longest_still_ms > (kDarkSeconds - 1) * 1000.0);
    CHECK(dark.longest_still_ms < (kDarkSeconds + 1) * 1000.0);
    // The delay: what it was before, and at most a couple of frames more from 3 s after the
    // blackout to the end (a round trip measured across the blackout is not the network).
    const auto server = read_json(session.dir().file("server.json"));
    const int before = scheduled_delay(server, dark_frame);
    int after_max = 0;
    for (std::uint32_t f = light_frame + 180; f < static_cast<std::uint32_t>(frames); f += 30)
        after_max = std::max(after_max, scheduled_delay(server, f));
    INFO("schedule " << server["sessions"][0]["schedule"].dump());
    CHECK(after_max <= before + 2);
    const int stalls_1 = read_json(session.stats("player1"))["stall_frames"].get<int>();
    const int stalls_2 = read_json(session.stats("player2"))["stall_frames"].get<int>();
    const int outage_frames = kDarkSeconds * 60;
    CHECK(std::max(stalls_1, stalls_2) >= outage_frames - 30);
    CHECK(std::max(stalls_1, stalls_2) <= outage_frames + 120);
    std::printf(
        "[figure] fault blackout: %d datagrams up and %d down dropped in the %d s from frame "
        "%u; the hash log stood still %.0f ms; stall frames %d and %d (the outage is %d); "
        "delay %d before, at most %d from 3 s after; logs identical over %d frames\n",
        dark_up, dark_down, kDarkSeconds, dark_frame, dark.longest_still_ms, stalls_1, stalls_2,
        outage_frames, before, after_max, frames);
}

TEST_CASE(
    "faults: the lobby killed with SIGKILL: the players play on, restarted on its database, "
    "its relay and room come back and the database is intact",
    "[faults][netplay][lobby]") {
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    FaultRandom random("kill the lobby");
    constexpr int kFrames = 1200;
    const int kill_at = random.pick(200, 700);
    std::printf("[fault] kill the lobby: at frame %d of %d\n", kill_at, kFrames);
    const auto limit = session_time(kFrames);
    const Deadline deadline = after(limit);
    Session session("fault-kill-lobby");
    const LobbyProcess lobby(session, "lobby", "127.0.0.1:0", "lobby.db");
    ChildProcess* relay_process = nullptr;
    const std::string relay =
        "127.0.0.1:" + std::to_string(start_relay(session, "relay", lobby, limit, &relay_process));
    wait_for_servers(lobby, 1);
    ChildProcess& host =
        session.start("host", player_args(session, "host", core, 111, kFrames,
                                          {"host", "--lobby", lobby.url, "--public", "--players",
                                           "2", "--game", "fault lobby"}));
    const std::string code = wait_for_code(session, "host", host);
    ChildProcess& joiner = session.start(
        "joiner",
        player_args(session, "joiner", core, 112, kFrames, {"join", "--lobby", lobby.url, code}));

    wait_for_lines(session, "host", static_cast<std::size_t>(kill_at), host, deadline);
    // A second with the lobby up: this machine's pace now (under load or a sanitizer the
    // game runs less evenly), which the second after the kill is held to.
    const Watch with = watch_log(session.hashes("joiner"), 1s);
    lobby.process->send_signal(SIGKILL);
    REQUIRE(lobby.process->wait_until(after(5s)));
    const auto killed_at = SteadyTime::now();
    // The lobby is not on the path of a single datagram: the game goes on as before.
    const Watch without = watch_log(session.hashes("joiner"), 1s);
    const double with_lines = static_cast<double>(with.lines_after - with.lines_before);
    INFO("the second before the kill: " << with_lines << " lines, still at most "
                                        << with.longest_still_ms << " ms");
    CHECK(static_cast<double>(without.lines_after - without.lines_before) >
          std::min(45.0, 0.75 * with_lines));
    CHECK(without.longest_still_ms < std::max(200.0, with.longest_still_ms + 200));

    // A new lobby on the same port and the same database.
    const LobbyProcess second(session, "lobby2", "127.0.0.1:" + std::to_string(lobby.port),
                              "lobby.db");
    REQUIRE(second.port == lobby.port);
    const auto restarted_at = SteadyTime::now();
    // Back means heard from since the restart (updated_ms is the lobby's wall clock), not
    // merely still in the store.
    const auto restarted_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
    for (;;) {
        const auto [status, body] = second.get("/api/servers");
        REQUIRE(status == 200);
        if (body["servers"].size() == 1 &&
            body["servers"][0]["updated_ms"].get<std::int64_t>() >= restarted_ms) {
            CHECK(body["servers"][0]["address"] == relay);
            break;
        }
        INFO(session.log_of("relay"));
        REQUIRE(SteadyTime::now() < restarted_at + kReadyLimit);
        std::this_thread::sleep_for(50ms);
    }
    const double relay_back_ms = ms_between(restarted_at, SteadyTime::now());
    // The host's room: still in the store under its code if its TTL had not run out, else
    // listed again by the host's next heartbeat under a new one; on the same relay.
    std::string room_code;
    nlohmann::json room;
    while (room_code.empty()) {
        const auto [status, body] = second.get("/api/rooms");
        REQUIRE(status == 200);
        for (const auto& r : body["rooms"]) {
            if (r["host_name"] == "host" && r["updated_ms"].get<std::int64_t>() >= restarted_ms) {
                room_code = r["code"];
                room = r;
            }
        }
        INFO(session.log_of("host"));
        REQUIRE(host.running());
        REQUIRE(SteadyTime::now() < restarted_at + kReadyLimit);
        std::this_thread::sleep_for(50ms);
    }
    const double room_back_ms = ms_between(restarted_at, SteadyTime::now());
    CHECK(room["server_address"] == relay);
    CHECK(room["game_name"] == "fault lobby");
    if (room_code != code) CHECK_THAT(session.log_of("host"), Catch::Contains("listed again as"));

    session.require_success(host, "host", deadline);
    session.require_success(joiner, "joiner", deadline);
    require_identical_logs(session, "host", "joiner", kFrames);

    relay_process->stop(5s);
    const auto lobby_exit = second.process->stop(10s);
    CHECK(lobby_exit.success());
    const std::string integrity = sqlite_integrity(lobby.db);
    CHECK(integrity == "ok");
    require_no_process_left(session.dir());
    std::printf(
        "[figure] fault kill the lobby: killed at frame %d; the joiner ran %zu frames in the "
        "second after; restarted %.0f ms after the kill: relay back in %.0f ms, room %s back "
        "(%s) in %.0f ms; integrity_check %s; %d frames identical\n",
        kill_at, without.lines_after - without.lines_before, ms_between(killed_at, restarted_at),
        relay_back_ms, room_code.c_str(), room_code == code ? "same code" : ("was " + code).c_str(),
        room_back_ms, integrity.c_str(), kFrames);
}

TEST_CASE("faults: 1 % of datagrams corrupted: dropped on arrival and no desync",
          "[faults][netplay][netem]") {
    require_core_case(core_case("arcade"));
    FRAMELOCK_SKIP_UNLESS_FILE(netem_exe(), "built by this project: ninja framelock_netem");
    FaultRandom random("corrupt");
    constexpr int kFrames = 1200;
    const int seed = random.pick(1, 1'000'000);
    std::printf("[fault] corrupt: 1 %% of datagrams each way, proxy --seed %d\n", seed);
    const auto limit = session_time(kFrames);
    const Deadline deadline = after(limit);
    Session session("fault-corrupt");
    const std::string srm = make_srm(session.dir());
    session.start_server(2, limit);
    session.start_proxy(0, 0, limit, {"--corrupt", "1", "--seed", std::to_string(seed)});
    const auto players = start_players(session, "netem.port", 2, 110, kFrames, srm);
    session.require_success(*players[0], "player1", deadline);
    session.require_success(*players[1], "player2", deadline);
    session.require_server_success(after(15s));
    require_identical_logs(session, "player1", "player2", kFrames);
    for (const char* name : {"player1", "player2"}) {
        INFO(name);
        CHECK(read_json(session.stats(name))["desyncs"].get<int>() == 0);
        CHECK(verify_replay(session.dir().file(std::string(name) + ".replay"), 2,
                            session.dir().file(std::string("saves-") + name)) == kFrames);
    }
    CHECK_THAT(session.log_of("server"), !Catch::Contains("desync at frame"));
    const auto netem = stop_proxy(session);
    const int corrupted_up = netem["up"]["corrupted"].get<int>();
    const int corrupted_down = netem["down"]["corrupted"].get<int>();
    // About 1 % of some 1,500 datagrams each way.
    CHECK(corrupted_up > 0);
    CHECK(corrupted_down > 0);
    require_no_process_left(session.dir());
    std::printf(
        "[figure] fault corrupt: %d datagrams up and %d down had a bit flipped; 0 desyncs, "
        "hash logs identical over %d frames\n",
        corrupted_up, corrupted_down, kFrames);
}

TEST_CASE("faults: `framelock run` killed while it writes save RAM never leaves a torn file",
          "[faults][sram]") {
    require_core_case(core_case("arcade"));
    FaultRandom random("kill run");
    TempDir dir("fault-sram");
    const std::string srm = make_srm(dir);
    const auto run_args = [&](const std::string& save_dir, int frames,
                              const std::string& hash_log) {
        std::vector<std::string> args = {build_paths::framelock_exe,
                                         "run",
                                         "--core",
                                         core_case("arcade").core,
                                         "--save-dir",
                                         save_dir,
                                         "--random",
                                         "9",
                                         "--frames",
                                         std::to_string(frames),
                                         "-q"};
        if (!hash_log.empty()) args.insert(args.end(), {"--hash-log", hash_log});
        return args;
    };
    // Save RAM after `frames` frames from `srm`: the version a write at that frame puts on disk.
    const auto version_at = [&](int frames) {
        const std::string save_dir = dir.file("ref-" + std::to_string(frames));
        fs::create_directories(save_dir);
        fs::copy_file(srm, save_dir + "/framelock-arcade.srm",
                      fs::copy_options::overwrite_existing);
        const auto result = run_process(run_args(save_dir, frames, ""), 60s);
        INFO(result.err);
        REQUIRE(result.exit_code == 0);
        return file_hash(save_dir + "/framelock-arcade.srm");
    };

    for (int round = 0; round < 3; ++round) {
        const std::string save_dir = dir.file("kill-" + std::to_string(round));
        fs::create_directories(save_dir);
        const std::string file = save_dir + "/framelock-arcade.srm";
        fs::copy_file(srm, file);
        const std::string before = file_hash(file);
        const int kill_after_ms = random.pick(100, 1200);
        auto child = ChildProcess::spawn(run_args(save_dir, 200'000, dir.file("kill.hashes")),
                                         dir.file("kill.log"), dir.file("kill.log"));
        REQUIRE(child);
        std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms));
        child.value().send_signal(SIGKILL);
        const auto status = child.value().wait_until(after(5s));
        REQUIRE(status);
        REQUIRE(status->signal == SIGKILL);
        // The hash log is buffered: the run got at least this far, and at most one buffer on.
        const int logged = static_cast<int>(read_lines(dir.file("kill.hashes")).size());
        const int checkpoint = logged / 600;
        std::set<std::string> known = {before};
        for (int k = std::max(1, checkpoint - 1); k <= checkpoint + 1; ++k)
            known.insert(version_at(k * 600));
        const std::string after_kill = file_hash(file);
        std::printf(
            "[fault] kill run: round %d killed after %d ms at frame >= %d; save RAM %s (%s)\n",
            round, kill_after_ms, logged, after_kill.c_str(),
            after_kill == before ? "the previous version" : "a newer complete version");
        INFO("round " << round << ": " << known.size() << " known versions");
        CHECK(fs::file_size(file) == 64);
        CHECK(known.count(after_kill) == 1);
    }
    require_no_process_left(dir);
}
