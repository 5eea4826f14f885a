// `--mode auto` (the default of `host` and `server`) with real cores: the hybrid on cores whose
// savestates pass the rollback check with the project's ROMs (the bundled arcade core,
// mednafen_pce_fast), the frame lock on nestopia, whose savestates leave out its turbo
// buttons' pulse counter; each says which and why in the log and the stats. A host checks
// its own core; a dedicated server, which has none, has its players vouch for theirs.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "integration/cores.h"
#include "integration/netplay_session.h"

using namespace framelock::test;

namespace {

// `host --mode auto` alone for a few frames; its log and its server's stats.
struct AutoRun {
    std::string log;
    nlohmann::json server;
};

AutoRun host_auto(const CoreCase& core, const std::string& name,
                  const std::vector<std::string>& extra = {}) {
    Session session("mode-auto-" + name);
    const std::string stats = session.dir().file("server.json");
    std::vector<std::string> args = {
        "--mode", "auto", "--video", "none", "--audio", "none", "--server-stats-json", stats};
    args.insert(args.end(), extra.begin(), extra.end());
    framelock::ChildProcess& host = session.start_host(name, core, 1, 7, 120, args);
    session.require_success(host, name, after(std::chrono::seconds(90)));
    return {read_text(session.dir().file(name + ".log")), read_json(stats)};
}

}  // namespace

TEST_CASE(
    "mode auto: the hybrid on the arcade core and mednafen_pce_fast, the frame lock on "
    "nestopia (its savestates miss the turbo counter), each saying why",
    "[integration][hybrid]") {
    struct Expect {
        const char* core;
        const char* mode;
        const char* why;
    };
    for (const Expect& e : {Expect{"arcade", "hybrid", "savestates checked"},
                            Expect{"pce_fast", "hybrid", "savestates checked"},
                            Expect{"nestopia", "framelock", "the core atlas found Nestopia"}}) {
        const CoreCase core = core_case(e.core);
        if (!core.content.empty() || core.core.rfind(build_paths::system_core_dir, 0) == 0) {
            // A Debian core or ROM that is not here skips the whole test, saying which.
            require_core_case(core);
        }
        INFO(e.core);
        const AutoRun run = host_auto(core, e.core);
        INFO(run.log);
        CHECK(run.log.find(std::string("mode auto: ") +
                           (std::string(e.mode) == "hybrid" ? "hybrid" : "frame lock")) !=
              std::string::npos);
        CHECK(run.log.find(e.why) != std::string::npos);
        REQUIRE(run.server["sessions"].size() == 1);
        const auto& session = run.server["sessions"][0];
        CHECK(session["mode"] == e.mode);
        CHECK(session["mode_reason"].get<std::string>().find(e.why) != std::string::npos);
        std::printf("[figure] mode auto, %s: %s (%s)\n", e.core,
                    session["mode"].get<std::string>().c_str(),
                    session["mode_reason"].get<std::string>().c_str());
    }
}

TEST_CASE(
    "mode auto: the hybrid with late slots too (a running hybrid session takes late players), "
    "the frame lock past 4 slots",
    "[integration][hybrid]") {
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    const AutoRun late = host_auto(core, "arcade-slots", {"--slots", "3"});
    INFO(late.log);
    REQUIRE(late.server["sessions"].size() == 1);
    CHECK(late.server["sessions"][0]["mode"] == "hybrid");
    const AutoRun many = host_auto(core, "arcade-many", {"--slots", "5"});
    INFO(many.log);
    REQUIRE(many.server["sessions"].size() == 1);
    CHECK(many.server["sessions"][0]["mode"] == "framelock");
    CHECK_THAT(many.server["sessions"][0]["mode_reason"].get<std::string>(),
               Catch::Contains("at most 4 players"));
}

TEST_CASE("mode auto: the default of host and server, as their --help says",
          "[integration][hybrid]") {
    for (const char* verb : {"host", "server"}) {
        const auto help = run_process({build_paths::framelock_exe, verb, "--help"});
        INFO(verb << ": " << help.out << help.err);
        CHECK(help.exit_code == 0);
        CHECK_THAT(help.out,
                   Catch::Contains("--mode TEXT:{auto,framelock,nowait,rollback,hybrid}=auto"));
    }
}

TEST_CASE(
    "mode auto on a dedicated server: the hybrid when both players vouch for their savestates "
    "(the arcade core), the frame lock from frame 0 when they cannot (nestopia), saying who and "
    "why",
    "[integration][hybrid]") {
    struct Expect {
        const char* core;
        const char* mode;
        const char* why;
    };
    for (const Expect& e :
         {Expect{"arcade", "hybrid", "auto: hybrid while every player vouches"},
          Expect{"nestopia", "framelock", "cannot vouch for its savestates: rollback refused"}}) {
        const CoreCase core =
            e.core == std::string("arcade") ? two_player_arcade() : core_case(e.core);
        require_core_case(core);
        INFO(e.core);
        Session session(std::string("mode-auto-server-") + e.core);
        session.start_server(2, std::chrono::seconds(60), {"--mode", "auto"});
        constexpr int kFrames = 300;
        ChildProcess& one = session.start_client("client1", core, 1, 11, kFrames);
        ChildProcess& two = session.start_client("client2", core, 2, 12, kFrames);
        const auto deadline = after(std::chrono::seconds(60));
        session.require_success(one, "client1", deadline);
        session.require_success(two, "client2", deadline);
        session.require_server_success(deadline);
        const auto server = read_json(session.dir().file("server.json"));
        const auto& played = server["sessions"][0];
        INFO(session.log_of("server") << session.log_of("client1"));
        CHECK(played["mode"] == e.mode);
        CHECK_THAT(played["mode_reason"].get<std::string>(), Catch::Contains(e.why));
        require_identical_logs(session, "client1", "client2", kFrames);
        std::printf("[figure] mode auto on a dedicated server, %s: %s (%s)\n", e.core,
                    played["mode"].get<std::string>().c_str(),
                    played["mode_reason"].get<std::string>().c_str());
    }
}
