#include <catch2/catch.hpp>

#include <cmath>
#include <thread>
#include <vector>

#include "frontend/player/audio_rate_control.h"
#include "frontend/player/audio_ring.h"

using namespace framelock::frontend;

TEST_CASE("AudioRateControl: the ratio moves at most +-max_adjust, towards the target",
          "[frontend][audio]") {
    AudioRateControl control(2048, 0.005, 1.0);  // no smoothing: the raw law
    CHECK(control.update(2048) == Approx(1.0));
    CHECK(control.update(0) == Approx(1.005));       // empty: make more output
    CHECK(control.update(4096) == Approx(0.995));    // twice the target: less
    CHECK(control.update(100000) == Approx(0.995));  // clamped
    CHECK(control.update(1024) == Approx(1.0025));   // half way: half the range
}

TEST_CASE("AudioRateControl: fill measurements are smoothed", "[frontend][audio]") {
    AudioRateControl control(1000, 0.005, 0.125);
    CHECK(control.update(1000) == Approx(1.0));  // the first one is taken as is
    // One low reading moves the smoothed fill by an eighth of the difference.
    control.update(0);
    CHECK(control.smoothed_fill() == Approx(875));
    CHECK(control.factor() == Approx(1.0 + 0.005 * 0.125));
}

// A device whose clock runs `skew` faster than nominal pulls `chunk` frames at a time; the
// emulator pushes one frame's worth of audio 60 times per (emulated) second, converted with
// the controlled ratio. 60 emulated seconds: after the first one, the queue never runs
// dry and stays in a narrow band around where the control settles.
TEST_CASE("AudioRateControl holds a queue against clock skew for 60 emulated seconds",
          "[frontend][audio]") {
    for (const double skew : {-0.002, -0.001, 0.0, 0.001, 0.002}) {
        INFO("device clock skew " << skew * 100 << "%");
        const double rate = 48000, fps = 60;
        const std::size_t chunk = 1024, target = 2048;
        AudioRateControl control(target, 0.005);
        FillStats fill;
        double queued = target;  // frames queued (prefilled to the target, as the sink does)
        double carry = 0;        // fractional output frames of the converter
        int underruns = 0;
        double device_clock = 0;  // emulated seconds at which the device pulls next
        const double device_period = chunk / (rate * (1 + skew));
        for (int frame = 0; frame < 60 * 60; ++frame) {
            const double t = frame / fps;
            while (device_clock <= t) {  // the device pulls what fell due
                if (queued < chunk) {
                    if (t >= 1.0) ++underruns;
                    queued = 0;
                } else {
                    queued -= chunk;
                }
                device_clock += device_period;
            }
            if (t >= 1.0) fill.add(queued);
            const double ratio = control.update(queued);
            carry += rate / fps * ratio;
            const double produced = std::floor(carry);
            carry -= produced;
            queued += produced;
        }
        CHECK(underruns == 0);
        // Settled where the adjustment cancels the skew: target * (1 - skew / max_adjust),
        // give or take a device chunk.
        const double settled = target * (1 - skew / 0.005);
        CHECK(fill.mean() == Approx(settled).margin(chunk));
        CHECK(fill.min() > 0);
        CHECK(fill.max() - fill.min() <= 2.0 * chunk + 800);
    }
}

TEST_CASE("FillStats: min, max, mean and spread", "[frontend][audio]") {
    FillStats s;
    for (const double v : {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) s.add(v);
    CHECK(s.count() == 8);
    CHECK(s.min() == 2.0);
    CHECK(s.max() == 9.0);
    CHECK(s.mean() == Approx(5.0));
    CHECK(s.stddev() == Approx(2.0));
}

TEST_CASE("AudioRing: wraps, refuses what does not fit, survives a concurrent reader",
          "[frontend][audio]") {
    AudioRing ring(5);  // rounded up to 8 frames
    CHECK(ring.capacity() == 8);
    std::vector<float> in(2 * 6), out(2 * 8);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
    CHECK(ring.push(in.data(), 6) == 6);
    CHECK(ring.pop(out.data(), 4) == 4);
    CHECK(out[0] == 0.0f);
    CHECK(out[7] == 7.0f);
    CHECK(ring.push(in.data(), 6) == 6);  // wraps around the end
    CHECK(ring.push(in.data(), 6) == 0);  // full
    CHECK(ring.size() == 8);
    CHECK(ring.pop(out.data(), 8) == 8);
    CHECK(out[0] == 8.0f);  // frame 4 of the first push
    CHECK(out[4] == 0.0f);  // then the second push from its start
    CHECK(out[15] == 11.0f);
    CHECK(ring.pop(out.data(), 1) == 0);

    // One thread pushes a counting sequence, another pops it: nothing lost or reordered.
    AudioRing shared(64);
    constexpr int kFrames = 200000;
    std::thread producer([&] {
        int next = 0;
        while (next < kFrames) {
            float frame[2] = {static_cast<float>(next), static_cast<float>(-next)};
            if (shared.push(frame, 1) == 1) ++next;
        }
    });
    int expected = 0;
    bool ordered = true;
    while (expected < kFrames) {
        float frame[2];
        if (shared.pop(frame, 1) == 1) {
            ordered = ordered && frame[0] == static_cast<float>(expected) &&
                      frame[1] == static_cast<float>(-expected);
            ++expected;
        }
    }
    producer.join();
    CHECK(ordered);
}
