// The simulator's bursty loss and heavy-tailed spikes (LinkParams::burst_loss, burst_us,
// spike, spike_us): the measured share of time in bursts and their mean length match the
// parameters, bursts are a function of the seed, the link and the time (not of the order
// they are asked about, nor of the traffic), every message sent in a burst is lost, and a
// spike's extra delay stays within its bounds with a tail heavier than the jitter's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "netplay/sim/sim_network.h"
#include "netplay/sim/sim_session.h"

using namespace framelock::netplay;

namespace {

struct Runs {
    double bad_share = 0;
    double mean_run_us = 0;
    Micros longest_us = 0;
    long runs = 0;
};

// The link's state every `step` microseconds over [0, span): the share in bursts and the mean
// length of a bad run.
Runs measure(SimNetwork& net, Micros span, Micros step) {
    Runs r;
    long bad = 0, samples = 0;
    Micros run = 0;
    for (Micros t = 0; t < span; t += step, ++samples) {
        if (net.in_burst("client", "server", t)) {
            ++bad;
            run += step;
            continue;
        }
        if (run > 0) {
            ++r.runs;
            r.mean_run_us += static_cast<double>(run);
            r.longest_us = std::max(r.longest_us, run);
        }
        run = 0;
    }
    r.bad_share = static_cast<double>(bad) / static_cast<double>(samples);
    if (r.runs > 0) r.mean_run_us /= static_cast<double>(r.runs);
    return r;
}

}  // namespace

TEST_CASE("SimNetwork bursts: the share of time in bursts and their mean length match the link",
          "[netplay][sim][bursts]") {
    ManualClock clock;
    for (const auto& [share, length] :
         {std::pair{0.03, Micros{25'000}}, std::pair{0.10, Micros{8'000}}}) {
        SimNetwork net(321, clock);
        LinkParams link;
        link.latency_us = 20'000;
        link.burst_loss = share;
        link.burst_us = length;
        net.set_default_link(link);
        // 2,000 s at 1 ms: about 2,400 bursts of 25 ms at 3 %, 25,000 of 8 ms at 10 %.
        const Runs r = measure(net, 2'000'000'000, 1'000);
        std::printf(
            "[figure] bursts %.0f %% of %lld ms: measured %.2f %% in %ld runs of %.1f ms on "
            "average (longest %lld ms)\n",
            share * 100, static_cast<long long>(length / 1000), r.bad_share * 100, r.runs,
            r.mean_run_us / 1000, static_cast<long long>(r.longest_us / 1000));
        // Tolerances: 10 % of the share; the mean run 15 % (overlapping periods merge, which
        // makes runs a little longer than the periods drawn).
        CHECK(r.bad_share == Approx(share).epsilon(0.10));
        CHECK(r.mean_run_us == Approx(static_cast<double>(length)).epsilon(0.15));
        CHECK(r.longest_us <= length * kBurstMaxSlots / kBurstSlotsPerBurst * 2);
    }
}

TEST_CASE("SimNetwork bursts: a function of seed, link and time, not of the order asked",
          "[netplay][sim][bursts]") {
    ManualClock clock;
    LinkParams link;
    link.burst_loss = 0.05;
    link.burst_us = 20'000;
    SimNetwork a(7, clock), b(7, clock), other(8, clock);
    for (SimNetwork* net : {&a, &b, &other}) net->set_default_link(link);
    std::vector<bool> forward, backward, reseeded, reverse_link;
    constexpr Micros kSpan = 60'000'000, kStep = 1'000;
    for (Micros t = 0; t < kSpan; t += kStep) forward.push_back(a.in_burst("client", "server", t));
    for (Micros t = kSpan - kStep; t >= 0; t -= kStep)
        backward.push_back(b.in_burst("client", "server", t));
    std::reverse(backward.begin(), backward.end());
    for (Micros t = 0; t < kSpan; t += kStep) {
        reseeded.push_back(other.in_burst("client", "server", t));
        reverse_link.push_back(a.in_burst("server", "client", t));
    }
    CHECK(forward == backward);
    CHECK(forward != reseeded);
    CHECK(forward != reverse_link);  // each direction has bursts of its own
    CHECK(std::count(forward.begin(), forward.end(), true) > 0);
}

TEST_CASE("SimNetwork bursts: every message sent in a burst is lost, every other one arrives",
          "[netplay][sim][bursts]") {
    ManualClock clock;
    SimNetwork net(99, clock);
    LinkParams link;
    link.latency_us = 10'000;
    link.burst_loss = 0.04;
    link.burst_us = 25'000;
    net.set_default_link(link);
    auto server = net.create_endpoint("server");
    auto client = net.create_endpoint("client");
    const PeerId peer = client->connect("server").value();
    const auto drain = [&] {
        while (server->poll()) {
        }
        while (client->poll()) {
        }
    };
    clock.set(1'000'000);
    drain();
    long expected_lost = 0, sent = 0;
    // Pairs 2 ms apart (a datagram and its copy), every 16 ms, for 120 s.
    for (Micros t = 1'000'000; t < 121'000'000; t += 1'000) {
        clock.set(t);
        drain();
        if (t % 16'000 != 0 && t % 16'000 != 2'000) continue;
        const std::vector<std::uint8_t> payload(8, 1);
        client->send(peer, Channel::kInput, payload);
        ++sent;
        expected_lost += net.in_burst("client", "server", t) ? 1 : 0;
    }
    clock.set(122'000'000);
    drain();
    const auto totals = net.totals();
    CHECK(totals.sent == static_cast<std::uint64_t>(sent));
    CHECK(totals.dropped == static_cast<std::uint64_t>(expected_lost));
    CHECK(totals.delivered + totals.dropped == totals.sent);
    const double rate = static_cast<double>(totals.dropped) / static_cast<double>(sent);
    CHECK(rate == Approx(0.04).epsilon(0.25));
}

TEST_CASE("SimNetwork spikes: a small share of messages is late by a bounded heavy tail",
          "[netplay][sim][bursts]") {
    ManualClock clock;
    SimNetwork net(5, clock);
    LinkParams link;
    link.latency_us = 20'000;
    link.jitter_us = 2'000;
    link.spike = 0.02;
    link.spike_us = 10'000;
    net.set_default_link(link);
    long spiked = 0, over_three = 0;
    Micros largest = 0;
    constexpr long kSamples = 200'000;
    for (long i = 0; i < kSamples; ++i) {
        const Micros d = net.path_delay("client", "server", i * 997);
        REQUIRE(d >= 18'000);
        const Micros extra = d - 22'000;  // beyond the most jitter can give
        if (d > 22'000) {
            ++spiked;
            CHECK(extra <= static_cast<Micros>(kSpikeCap * 10'000));
            largest = std::max(largest, extra);
            if (extra > 30'000) ++over_three;
        }
    }
    std::printf(
        "[figure] spikes 2 %% of 10 ms: %ld of %ld messages, %ld past 30 ms, largest +%lld ms\n",
        spiked, kSamples, over_three, static_cast<long long>(largest / 1000));
    // A spike adds at least spike_us, so every spiked message is past the jitter's reach.
    CHECK(static_cast<double>(spiked) / kSamples == Approx(0.02).epsilon(0.1));
    // Pareto with shape 1.5: P(more than 3 x) = 3^-1.5 ~ 19 % of the spikes.
    CHECK(static_cast<double>(over_three) / static_cast<double>(spiked) ==
          Approx(0.19).epsilon(0.2));
    CHECK(largest > 80'000);
}

TEST_CASE(
    "Redundancy spread for bursts: on a bursty link each input goes three times, on a link with "
    "independent losses at most twice",
    "[netplay][sim][bursts]") {
    SimScenario sc;
    sc.players = 2;
    sc.frames = 3600;
    sc.seed = 3210;
    sc.link.latency_us = 20'000;
    sc.link.jitter_us = 1'000;
    SimScenario bursty = sc, independent = sc;
    bursty.link.burst_loss = 0.03;
    bursty.link.burst_us = 25'000;
    independent.link.loss = 0.01;
    const auto copies_per_frame = [](const SimResult& r) {
        double copies = 0, frames = 0;
        for (const auto& c : r.clients) {
            copies += static_cast<double>(c.stats.copies_sent);
            frames += c.stats.frames_run;
        }
        return copies / frames;
    };
    const SimResult b = run_scenario(bursty);
    const SimResult i = run_scenario(independent);
    REQUIRE(b.hashes_identical);
    REQUIRE(i.hashes_identical);
    std::printf(
        "[figure] copies sent per input datagram: %.2f on the bursty link (3 %% in 25 ms bursts), "
        "%.2f with 1 %% independent loss\n",
        copies_per_frame(b), copies_per_frame(i));
    // Copies sent besides each input datagram: two on the bursty link (once it showed a burst);
    // one with independent losses (copies on from the first loss), never two.
    CHECK(copies_per_frame(b) > 1.8);
    CHECK(copies_per_frame(i) > 0.8);
    CHECK(copies_per_frame(i) <= 1.0);
}
