// The game traffic after the join is sealed (docs/netplay.md, "Sealed traffic"), shown with
// real processes on 127.0.0.1: a server, two players on the bundled arcade game holding one
// pad word each from an input script, and the impairment proxy as the man in the middle: it
// captures every datagram (no input word may be readable in them), or alters input datagrams
// and makes ENet's CRC32 right again (each must be refused and counted, the session going on).
// About 10 s each (5 s of play); fewer frames under sanitizers.
#include <catch2/catch.hpp>

#include <signal.h>

#include <cstdio>
#include <string>
#include <vector>

#include "integration/netplay_session.h"
#include "support/build_paths.h"
#include "support/process.h"
#include "support/sanitized.h"

using namespace framelock::test;

namespace {

// The pad words the two players hold, as they travel (little-endian), in hex: words whose
// bytes no ENet header or counter of these short sessions is likely to hold.
constexpr const char* kWords[2] = {"0x3c5a", "0x69a5"};
constexpr const char* kWordsOnWire[2] = {"5a3c", "a569"};

int frames() {
    return full_or_sanitized(300, 120);
}

// A player holding kWords[index] on its pad from frame 0, joined through the proxy.
ChildProcess& start_player(Session& session, int index, const std::string& address) {
    const std::string name = "player" + std::to_string(index + 1);
    const std::string script = session.dir().file(name + ".input");
    write_text(script, std::string("0 1 ") + kWords[index] + "\n");
    return session.start(name, {build_paths::framelock_exe,
                                "join",
                                address,
                                "--core",
                                core_case("arcade").core,
                                "--ports",
                                "2",
                                "--option",
                                "farcade_players=2",
                                "--video",
                                "none",
                                "--audio",
                                "none",
                                "--name",
                                name,
                                "--input",
                                script,
                                "--frames",
                                std::to_string(frames()),
                                "--hash-log",
                                session.hashes(name),
                                "--stats-json",
                                session.stats(name)});
}

// Two players through a proxy with `proxy_flags`, played to the end; the proxy's statistics.
nlohmann::json play_through_proxy(Session& session, const std::vector<std::string>& proxy_flags) {
    const auto limit = session_time(frames());
    const Deadline deadline = after(limit);
    session.start_server(2, limit);
    session.start_proxy(0, 0, limit, proxy_flags);
    const std::string address = "127.0.0.1:" + read_lines(session.dir().file("netem.port"))[0];
    ChildProcess& p1 = start_player(session, 0, address);
    ChildProcess& p2 = start_player(session, 1, address);
    session.require_success(p1, "player1", deadline);
    session.require_success(p2, "player2", deadline);
    session.require_server_success(after(15s));
    require_identical_logs(session, "player1", "player2", static_cast<std::size_t>(frames()));
    session.proxy().send_signal(SIGTERM);
    REQUIRE(session.proxy().wait_until(after(5s)));
    return read_json(session.dir().file("netem.json"));
}

}  // namespace

TEST_CASE("sealed traffic: a capture of the session's datagrams holds no input word in clear",
          "[faults][netplay][netem][seal]") {
    require_core_case(core_case("arcade"));
    FRAMELOCK_SKIP_UNLESS_FILE(netem_exe(), "built by this project: ninja framelock_netem");
    Session session("sealed-capture");
    const std::string capture = session.dir().file("capture.txt");
    play_through_proxy(session, {"--capture", capture});
    int datagrams = 0, in_clear = 0;
    for (const std::string& line : read_lines(capture)) {
        const std::string hex = line.substr(line.find(' ') + 1);
        ++datagrams;
        bool found = false;
        for (const char* word : kWordsOnWire) {
            for (std::size_t at = hex.find(word); at != std::string::npos && !found;
                 at = hex.find(word, at + 1))
                found = at % 2 == 0;  // on a byte's boundary
        }
        in_clear += found;
    }
    std::printf(
        "[figure] sealed capture: %d of %d datagrams hold a player's pad word (%s or %s) in "
        "clear over %d frames\n",
        in_clear, datagrams, kWords[0], kWords[1], frames());
    REQUIRE(datagrams > frames());
    // By chance, 2 given bytes sit somewhere in a datagram of ~70 bytes about once in a
    // thousand; a readable input is in nearly every datagram.
    CHECK(in_clear * 100 <= datagrams);
}

TEST_CASE(
    "sealed traffic: input datagrams altered on the path (CRC made right) are refused and "
    "counted, the session goes on",
    "[faults][netplay][netem][seal]") {
    require_core_case(core_case("arcade"));
    FRAMELOCK_SKIP_UNLESS_FILE(netem_exe(), "built by this project: ninja framelock_netem");
    Session session("sealed-tamper");
    const auto netem = play_through_proxy(session, {"--tamper-every", "10"});
    const int tampered = netem["up"]["tampered"].get<int>();
    const auto server = read_json(session.dir().file("server.json"));
    // What the server made of them: refused as altered or replayed (the seal), or read as
    // messages (malformed ones counted as such; the others taken for the client's own).
    std::uint64_t altered = 0, replayed = 0, malformed = 0;
    for (const auto& slot : server["sessions"][0]["slots"]) {
        altered += slot["traffic"].value("altered", std::uint64_t{0});
        replayed += slot["traffic"].value("replayed", std::uint64_t{0});
        malformed += slot["malformed"].get<std::uint64_t>();
    }
    for (const char* name : {"player1", "player2"}) {
        const auto stats = read_json(session.stats(name));
        CHECK(stats["desyncs"].get<int>() == 0);
    }
    std::printf(
        "[figure] sealed tamper: %d input datagrams altered on the path with ENet's CRC made "
        "right; the server refused %llu as altered (%llu as replayed) and read %llu as "
        "malformed; both players ran %d frames with identical hash logs\n",
        tampered, static_cast<unsigned long long>(altered),
        static_cast<unsigned long long>(replayed), static_cast<unsigned long long>(malformed),
        frames());
    CHECK(tampered > 5);
    CHECK(altered == static_cast<std::uint64_t>(tampered));
    CHECK(replayed == 0);
}
