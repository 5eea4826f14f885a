#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "frontend/player/frame_pacer.h"

using namespace framelock::frontend;

namespace {
constexpr Nanos kStart = 1'000'000'000'000;  // an arbitrary monotonic origin
}

TEST_CASE("FramePacer: every due time comes from the frame number, never from the last one",
          "[frontend][pacer]") {
    // Arcade rates that do not divide a second evenly.
    for (const double fps : {59.185606, 57.5, 60.0988, 60.0}) {
        FramePacer pacer(fps);
        pacer.start(kStart);
        std::mt19937 rng(7);
        std::uniform_int_distribution<Nanos> late(0, 3'000'000);  // frames finish 0-3 ms late
        const std::uint64_t frames = 360'000;                     // 100 minutes
        for (std::uint64_t n = 0; n < frames; ++n) {
            const Nanos expected = kStart + std::llround(static_cast<double>(n) * 1e9 / fps);
            REQUIRE(pacer.due() == expected);
            pacer.frame_done(pacer.due() + late(rng));
        }
        // After 100 minutes the schedule is still within a nanosecond of n / fps.
        const double exact = kStart + frames * 1e9 / fps;
        CHECK(std::abs(static_cast<double>(pacer.due()) - exact) <= 1.0);
        CHECK(pacer.restarts() == 0);
        CHECK(pacer.frames() == frames);
    }
}

TEST_CASE("FramePacer: a short delay is caught up, a long one restarts the schedule",
          "[frontend][pacer]") {
    FramePacer pacer(60.0, 250'000'000);
    pacer.start(kStart);
    pacer.frame_done(kStart);  // frame 0 on time; frame 1 due at +16.67 ms
    const Nanos due1 = pacer.due();
    // Frame 1 shows 100 ms late: frame 2 keeps its place on the schedule (in the past, so
    // it runs at once and the next ones catch up).
    pacer.frame_done(due1 + 100'000'000);
    CHECK(pacer.due() == kStart + std::llround(2 * 1e9 / 60));
    CHECK(pacer.restarts() == 0);
    // Frame 2 shows 300 ms late (a window drag): the schedule restarts from then.
    const Nanos late = pacer.due() + 300'000'000;
    pacer.frame_done(late);
    CHECK(pacer.restarts() == 1);
    CHECK(pacer.due() == late);
    pacer.frame_done(late);
    CHECK(pacer.due() == late + std::llround(1e9 / 60));
}

TEST_CASE("FramePacer: a new rate applies from the next frame on", "[frontend][pacer]") {
    FramePacer pacer(60.0);
    pacer.start(kStart);
    for (int i = 0; i < 10; ++i) pacer.frame_done(pacer.due());
    const Nanos next = pacer.due();
    pacer.set_fps(50.0);
    CHECK(pacer.due() == next);
    pacer.frame_done(next);
    CHECK(pacer.due() == next + 20'000'000);
    CHECK(pacer.fps() == 50.0);
}

TEST_CASE("FramePacer: the lead follows the slowest recent preparation", "[frontend][pacer]") {
    FramePacer pacer(60.0);
    pacer.start(kStart);
    CHECK(pacer.lead() == FramePacer::kLeadMargin);  // nothing measured yet: the margin
    pacer.prepared(3'000'000);
    CHECK(pacer.lead() == 3'000'000 + FramePacer::kLeadMargin);
    CHECK(pacer.wake() == pacer.due() - pacer.lead());
    // One 40 ms stall (a screenshot) is capped at half a period...
    pacer.prepared(40'000'000);
    CHECK(pacer.lead() == static_cast<Nanos>(1e9 / 60 / 2));
    // ... and forgotten once kPrepareHistory faster frames followed.
    for (int i = 0; i < FramePacer::kPrepareHistory; ++i) pacer.prepared(1'000'000);
    CHECK(pacer.lead() == 1'000'000 + FramePacer::kLeadMargin);
}

TEST_CASE("summarize_pacing: mean, spread and percentile of known intervals", "[frontend][pacer]") {
    // 100 intervals: 98 exact, one 2 ms long, one 2 ms short.
    const double fps = 50.0;  // 20 ms
    std::vector<Nanos> times{kStart};
    for (int i = 1; i <= 100; ++i) {
        Nanos interval = 20'000'000;
        if (i == 10) interval += 2'000'000;
        if (i == 11) interval -= 2'000'000;
        times.push_back(times.back() + interval);
    }
    const PacingReport r = summarize_pacing(times, fps);
    CHECK(r.intervals == 100);
    CHECK(r.target_ms == Approx(20.0));
    CHECK(r.mean_ms == Approx(20.0));
    CHECK(r.mean_error_pct == Approx(0.0).margin(1e-9));
    CHECK(r.min_ms == Approx(18.0));
    CHECK(r.max_ms == Approx(22.0));
    CHECK(r.max_abs_deviation_ms == Approx(2.0));
    // 99% of 100 intervals: the 99th smallest deviation is one of the two 2 ms ones.
    CHECK(r.p99_abs_deviation_ms == Approx(2.0));
    CHECK(r.stddev_ms == Approx(std::sqrt(8.0 / 100)));

    CHECK(summarize_pacing(std::vector<Nanos>{kStart}, fps).intervals == 0);
}

TEST_CASE("FramePacer in a simulated loop: wake-up jitter does not move the mean",
          "[frontend][pacer]") {
    // The loop sleeps to wake(), prepares for a random time, sleeps to due() and presents;
    // sleeps overshoot by up to 0.3 ms. Shown times stay within the overshoot of the
    // schedule, and the mean interval is exact.
    const double fps = 59.185606;
    FramePacer pacer(fps);
    pacer.start(kStart);
    std::mt19937 rng(3);
    std::uniform_int_distribution<Nanos> overshoot(0, 300'000), work(500'000, 4'000'000);
    std::vector<Nanos> shown;
    pacer.prepared(4'000'000);  // as after a first, slow frame
    Nanos now = kStart;
    for (int i = 0; i < 600; ++i) {
        now = std::max(now, pacer.wake()) + overshoot(rng);
        const Nanos began = now;
        now += work(rng);
        pacer.prepared(now - began);
        now = std::max(now, pacer.due()) + overshoot(rng);
        shown.push_back(now);
        if (i == 0) pacer.start(now);  // as run_windowed: the schedule starts once frame 0 shows
        pacer.frame_done(now);
    }
    const PacingReport r = summarize_pacing(shown, fps);
    CHECK(std::abs(r.mean_error_pct) < 0.001);
    CHECK(r.max_abs_deviation_ms <= 0.3);
}
