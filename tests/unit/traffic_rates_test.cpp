#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "frontend/session/session_summary.h"

using namespace framelock::frontend;
using framelock::netplay::PeerStats;

TEST_CASE("traffic_rates divides each counter's growth by the interval", "[frontend][traffic]") {
    PeerStats start;
    start.wire_bytes_sent = 1'000;
    start.wire_bytes_received = 2'000;
    start.datagrams_sent = 10;
    start.datagrams_received = 20;
    start.payload_bytes_sent = 300;
    start.payload_bytes_received = 600;
    PeerStats end = start;
    // 4 s at 30 datagrams/s up, 60 down: 21 B payload + 10 B of ENet + 28 B of UDP/IP up.
    end.datagrams_sent += 120;
    end.payload_bytes_sent += 120 * 21;
    end.wire_bytes_sent += 120 * (21 + 10 + 28);
    end.datagrams_received += 240;
    end.payload_bytes_received += 240 * 15;
    end.wire_bytes_received += 240 * (15 + 10 + 28);

    const TrafficRates r = traffic_rates(start, end, 4.0);
    CHECK(r.up_packets == 30.0);
    CHECK(r.down_packets == 60.0);
    CHECK(r.up_bytes == 30.0 * 59);
    CHECK(r.down_bytes == 60.0 * 53);
    CHECK(r.up_payload == 30.0 * 21);
    CHECK(r.down_payload == 60.0 * 15);

    const TrafficRates none = traffic_rates(start, end, 0.0);
    CHECK(none.up_bytes == 0.0);
    CHECK(none.down_packets == 0.0);
}

TEST_CASE("a player's statistics JSON carries bytes, datagrams and payload per second",
          "[frontend][traffic]") {
    ClientRunSummary summary;
    summary.running_seconds = 10;
    summary.rates = {1'900.5, 2'400.0, 30.0, 60.0, 630.0, 900.0};
    const auto json = nlohmann::json::parse(client_summary_json(summary));
    CHECK(json["upstream_bytes_per_s"].get<double>() == 1'900.5);
    CHECK(json["downstream_bytes_per_s"].get<double>() == 2'400.0);
    CHECK(json["upstream_packets_per_s"].get<double>() == 30.0);
    CHECK(json["downstream_packets_per_s"].get<double>() == 60.0);
    CHECK(json["upstream_payload_bytes_per_s"].get<double>() == 630.0);
    CHECK(json["downstream_payload_bytes_per_s"].get<double>() == 900.0);
}
