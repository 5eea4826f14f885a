// Session limits (netplay/server/session_limits.h): one range per setting, checked by front ends
// before a server starts, and never applied in silence by the server.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "netplay/server/server.h"
#include "netplay/server/server_config.h"
#include "netplay/server/session_limits.h"
#include "netplay/sim/sim_network.h"
#include "netplay/timing/frame_time.h"

using namespace framelock::netplay;

TEST_CASE("Session limits: each mode's delay range, and an error that names value and range",
          "[netplay][limits]") {
    CHECK(delay_limit(SessionMode::kRollback).range() == "0-15 frames");
    CHECK(delay_limit(SessionMode::kNoWait).range() == "2-60 frames");
    CHECK(delay_limit(SessionMode::kFrameLock).range() == "1-60 frames");

    ServerConfig rollback;
    rollback.mode = SessionMode::kRollback;
    rollback.delay.fixed_delay = 20;
    const auto refused = validate(rollback);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message ==
          "rollback's local input delay 20 frames is outside 0-15 frames");
    rollback.delay.fixed_delay = 15;
    CHECK(validate(rollback).ok());
    rollback.prediction_window = 61;
    REQUIRE_FALSE(validate(rollback).ok());
    CHECK(validate(rollback).error().message ==
          "rollback's prediction window 61 frames is outside 1-60 frames");
    rollback.prediction_window = 60;
    rollback.players = 5;
    REQUIRE_FALSE(validate(rollback).ok());
    CHECK(validate(rollback).error().message == "player slots in rollback 5 is outside 1-4");

    ServerConfig nowait;
    nowait.mode = SessionMode::kNoWait;
    nowait.delay.fixed_delay = 1;
    REQUIRE_FALSE(validate(nowait).ok());
    CHECK(validate(nowait).error().message ==
          "no-wait's input delay 1 frames is outside 2-60 frames");

    // Frame lock's adaptive delay has no fixed value to check.
    ServerConfig adaptive;
    adaptive.delay.fixed_delay = 0;
    CHECK(validate(adaptive).ok());
    adaptive.delay.adaptive = false;
    CHECK_FALSE(validate(adaptive).ok());
    adaptive.max_spectators = 65;
    adaptive.delay.fixed_delay = 3;
    REQUIRE_FALSE(validate(adaptive).ok());
    CHECK(validate(adaptive).error().message == "spectators 65 is outside 0-64");
}

TEST_CASE("Session limits: the server brings a setting inside its range and says so",
          "[netplay][limits]") {
    ServerConfig config;
    config.mode = SessionMode::kRollback;
    config.players = 6;
    config.delay.fixed_delay = 40;
    config.prediction_window = 0;
    std::vector<std::string> adjusted;
    const ServerConfig used = normalized(config, adjusted);
    CHECK(used.players == 4);
    CHECK(used.delay.fixed_delay == 15);
    CHECK(used.prediction_window == 1);
    CHECK(used.send_interval == 1);
    CHECK_FALSE(used.delay.adaptive);
    REQUIRE(adjusted.size() == 3);
    CHECK(adjusted[0] == "player slots in rollback 6 is outside 1-4: using 4");
    CHECK(adjusted[1] == "rollback's local input delay 40 frames is outside 0-15 frames: using 15");
    CHECK(adjusted[2] == "rollback's prediction window 0 frames is outside 1-60 frames: using 1");

    // Players to start: 0 (every slot) to the slots there are.
    adjusted.clear();
    ServerConfig late;
    late.players = 3;
    late.start_players = 5;
    CHECK(normalized(late, adjusted).start_players == 3);
    late.start_players = -1;
    CHECK(normalized(late, adjusted).start_players == 3);
    CHECK(adjusted == std::vector<std::string>({"players to start 5 is outside 0-3: using 3",
                                                "players to start -1 is outside 0-3: using 0"}));
    CHECK_FALSE(validate(late).ok());
    late.start_players = 2;
    CHECK(validate(late).ok());
    CHECK(normalized(late, adjusted).start_players == 2);

    // A valid config is used as given, with nothing said.
    adjusted.clear();
    ServerConfig fine;
    fine.players = 8;
    const ServerConfig same = normalized(fine, adjusted);
    CHECK(adjusted.empty());
    CHECK(same.players == 8);

    // The server reports each adjustment as an event before anything else.
    ManualClock clock{1'000'000};
    SimNetwork net{1, clock};
    auto transport = net.create_endpoint("server");
    Server server(*transport, clock, config);
    std::vector<std::string> said;
    while (auto event = server.poll_event()) {
        if (event->type == ServerEvent::Type::kConfigAdjusted) said.push_back(event->message);
    }
    CHECK(said == std::vector<std::string>(
                      {"player slots in rollback 6 is outside 1-4: using 4",
                       "rollback's local input delay 40 frames is outside 0-15 frames: using 15",
                       "rollback's prediction window 0 frames is outside 1-60 frames: using 1"}));
}

TEST_CASE("Frame time: one unit for every frame/microsecond conversion", "[netplay][limits]") {
    const FrameTime sixty = FrameTime::from_fps_milli(60'000);
    CHECK(sixty.ns() == 16'666'667u);
    CHECK(sixty.us() == 16'666);
    CHECK(sixty.span_us(3) == 50'000);
    CHECK(sixty.span_us_up(1) == 16'667);
    CHECK(sixty.frames_in(50'000) == 2);  // 50,000.001 us make 3
    CHECK(sixty.frames_in(50'001) == 3);
    CHECK(sixty.frames_covering(16'666) == 1);
    CHECK(sixty.frames_covering(16'667) == 2);  // a third of a microsecond past one frame
    CHECK(FrameTime::from_fps_milli(59'940).ns() == 16'683'350u);
}
