// `framelock host --mode auto` with real cores: the hybrid on cores whose
// savestates pass the rollback check with the project's ROMs (the bundled arcade core,
// mednafen_pce_fast), the frame lock on nestopia, whose savestates leave out its turbo
// buttons' pulse counter; each says which and why in the log and the stats.
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
                            Expect{"nestopia", "framelock", "not deterministic"}}) {
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
