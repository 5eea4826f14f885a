// Chat with real processes on 127.0.0.1: a `framelock server`, two `framelock join` players
// saying lines from scripts (--say), one of them a terminal escape, and a spectator that mutes
// one player. Each process's log, the server's, and the replay a player recorded (`framelock
// replay play`) show the lines as safe text; the muted player's lines do not reach the
// spectator's log. With the server's --no-chat, nothing is relayed.
#include <catch2/catch.hpp>

#include <string>

#include "integration/netplay_session.h"
#include "support/process.h"

using namespace framelock::test;

namespace {

int count_of(const std::string& text, const std::string& what) {
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE(
    "chat, real processes: lines said reach every player and the spectator as safe text, a "
    "muted player's not the spectator's log, the server logs each, the replay keeps them",
    "[integration][netplay][chat]") {
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    constexpr int kFrames = 600;
    const auto limit = session_time(kFrames);
    const Deadline deadline = after(limit);
    Session session("chat");
    session.start_server(2, limit);
    const std::string replay = session.dir().file("ann.flrp");
    ChildProcess& ann =
        session.start_client("ann", core, 1, 31, kFrames,
                             {"--say", "120:gl hf", "--say",
                              "240:\x1b]0;PWN\a pwned\n[warn] forged", "--record", replay});
    // The spectator once a player is in (before, a server has nobody to watch) and before the
    // second: it watches from the start, so every line reaches it. It leaves before the
    // players: a session whose players all left ends, and a spectator a few frames behind
    // would be cut off before its last frames.
    session.wait_for_log("server", "ann joined", session.server(), deadline);
    ChildProcess& sam =
        session.start_client("sam", core, 0, 9, kFrames - 120, {"--spectate", "--mute", "bob"});
    session.wait_for_log("server", "sam watches", session.server(), deadline);
    ChildProcess& bob = session.start_client("bob", core, 2, 32, kFrames, {"--say", "180:you too"});
    session.require_success(ann, "ann", deadline);
    session.require_success(bob, "bob", deadline);
    session.require_success(sam, "sam", deadline);
    session.require_server_success(after(15s));

    const std::string escaped = "P1 ann: \\x1b]0;PWN\\x07 pwned\\x0a[warn] forged";
    for (const char* name : {"ann", "bob"}) {
        const std::string log = read_text(session.dir().file(std::string(name) + ".log"));
        INFO(name << session.log_of(name));
        CHECK(count_of(log, ": P1 ann: gl hf") == 1);
        CHECK(count_of(log, ": P2 bob: you too") == 1);
        CHECK(count_of(log, escaped) == 1);
        CHECK(log.find("\x1b]0;PWN") == std::string::npos);
        CHECK(log.find("\n[warn] forged") == std::string::npos);
    }
    const std::string sam_log = read_text(session.dir().file("sam.log"));
    INFO(session.log_of("sam"));
    CHECK(count_of(sam_log, ": P1 ann: gl hf") == 1);
    CHECK(count_of(sam_log, escaped) == 1);
    CHECK(count_of(sam_log, "P2 bob: you too") == 0);  // muted
    const std::string server_log = read_text(session.dir().file("server.log"));
    CHECK(count_of(server_log, "chat: P1 ann: gl hf") == 1);
    CHECK(count_of(server_log, "chat: P2 bob: you too") == 1);
    CHECK(count_of(server_log, "chat: " + escaped) == 1);

    // The replay keeps the three lines, printed where they were said, and still verifies.
    const ProcessResult played = run_process({build_paths::framelock_exe, "replay", "play", replay,
                                              "--verify", "--core", core.core, "--no-sram", "-q"});
    INFO(played.out << played.err);
    REQUIRE(played.exit_code == 0);
    CHECK(count_of(played.out, "chat     frame ") == 3);
    CHECK(count_of(played.out, ": P1 ann: gl hf\n") == 1);
    CHECK(count_of(played.out, ": P2 bob: you too\n") == 1);
    CHECK(count_of(played.out, ": " + escaped + "\n") == 1);
    CHECK_THAT(played.out, Catch::Contains("state hashes equal the recorded ones"));
}

TEST_CASE(
    "chat, real processes: a server started with --no-chat relays nothing, and the player "
    "who tried is told chat is off",
    "[integration][netplay][chat]") {
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    constexpr int kFrames = 300;
    const auto limit = session_time(kFrames);
    const Deadline deadline = after(limit);
    Session session("chat-off");
    session.start_server(2, limit, {"--no-chat"});
    ChildProcess& ann = session.start_client("ann", core, 1, 31, kFrames, {"--say", "60:hello"});
    ChildProcess& bob = session.start_client("bob", core, 2, 32, kFrames);
    session.require_success(ann, "ann", deadline);
    session.require_success(bob, "bob", deadline);
    session.require_server_success(after(15s));
    const std::string ann_log = read_text(session.dir().file("ann.log"));
    INFO(session.log_of("ann"));
    CHECK_THAT(ann_log, Catch::Contains("--say: chat is off on this server"));
    CHECK(count_of(ann_log, "chat at frame") == 0);
    CHECK(count_of(read_text(session.dir().file("bob.log")), "chat at frame") == 0);
    CHECK(count_of(read_text(session.dir().file("server.log")), "chat:") == 0);
}
