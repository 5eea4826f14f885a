// Soak: eight players for a simulated hour on a bad network. The session must stay
// frame-identical the whole time and the engine's memory must stay flat: every buffer the
// server and clients keep (confirmed inputs, resend windows, hash reports, snapshots) has
// to be trimmed as the session moves on, or an evening of play would exhaust it.
#include <catch2/catch.hpp>

#include <malloc.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "netplay/sim/sim_session.h"
#include "support/sanitized.h"

#if defined(__SANITIZE_ADDRESS__)
#define FRAMELOCK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FRAMELOCK_ASAN 1
#endif
#endif
#ifdef FRAMELOCK_ASAN
// The sanitizer runtime's allocator statistics (declared here: gcc ships the runtime, not
// clang's <sanitizer/allocator_interface.h>).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

using namespace framelock::netplay;

namespace {

// Bytes the allocator has handed out and not yet taken back (not the RSS, which keeps
// freed pages): what a leak or an untrimmed buffer makes grow.
std::size_t heap_in_use() {
#ifdef FRAMELOCK_ASAN
    return __sanitizer_get_current_allocated_bytes();
#else
    return mallinfo2().uordblks;
#endif
}

std::size_t rss_kib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6));
    }
    return 0;
}

struct Sample {
    std::uint32_t frame;
    std::size_t heap;
    std::size_t rss_kib;
};

// One simulated hour of 8 players at 150 ms +-40 ms and 5% loss in `mode` (ten minutes under
// the sanitizers, sampled every 30 s); checks that it stayed identical and that the heap
// stayed flat, printing the samples.
void soak(SessionMode mode) {
    // One hour at 60 fps, sampled every five minutes; ten minutes every 30 s.
    constexpr std::uint32_t kFrames =
        framelock::test::full_or_sanitized(60 * 60 * 60, 10 * 60 * 60);
    constexpr std::uint32_t kSampleEvery = framelock::test::full_or_sanitized(5 * 60 * 60, 30 * 60);
    SimScenario sc;
    sc.players = 8;
    sc.frames = kFrames;
    sc.seed = 9;
    sc.server.mode = mode;
    if (mode == SessionMode::kNoWait) sc.server.delay.fixed_delay = 12;  // ~ the RTT and margin
    // 150 ms round trip, +-40 ms: 75 ms +-20 ms each way; 5% of datagrams lost each way.
    sc.link = LinkParams{75'000, 20'000, 0.05, 0.0, 0};
    // One logged hash per 10 s per client (the chain state carries every earlier frame);
    // the server still compares every player's hash every hash interval.
    sc.log_stride = 600;
    sc.progress_frames = kSampleEvery;
    sc.keep_events = false;  // counted, not kept: the samples then see the engine alone
    std::vector<Sample> samples;
    sc.on_progress = [&](std::uint32_t frame) {
        samples.push_back({frame, heap_in_use(), rss_kib()});
    };
    const Sample before{0, heap_in_use(), rss_kib()};
    const SimResult r = run_scenario(sc);

    std::printf(
        "soak (%s): %.0f simulated s, delay %d..%d (mean %.2f frames), %u stall frames "
        "after warm-up (all clients), %llu hash frames matched\n",
        mode == SessionMode::kNoWait ? "no-wait" : "frame lock",
        static_cast<double>(r.simulated_us) / 1e6, r.min_delay, r.max_delay, r.mean_delay,
        r.total_stalls_after_warmup, static_cast<unsigned long long>(r.hash_frames_matched));
    std::printf("soak: minute  frame    heap in use  RSS\n");
    std::printf("soak: start   %6u  %9zu KiB  %6zu KiB\n", 0u, before.heap / 1024, before.rss_kib);
    for (const Sample& s : samples)
        std::printf("soak: %6u  %6u  %9zu KiB  %6zu KiB\n", s.frame / 3600, s.frame, s.heap / 1024,
                    s.rss_kib);

    // Frame-identical for the whole hour: every client ran it, their logs agree, and the
    // server saw equal hashes from all eight every hash interval and no desync at all.
    REQUIRE(r.clients.size() == 8);
    for (std::size_t c = 0; c < r.clients.size(); ++c) {
        INFO("client " << c + 1);
        CHECK(r.clients[c].hashes.size() >= kFrames / sc.log_stride);
        CHECK(SimResult::first_difference(r.clients[0], r.clients[c]) == -1);
        CHECK(r.clients[c].stats.frames_run >= kFrames);
    }
    CHECK(r.hashes_identical);
    CHECK(r.server_events_of(ServerEvent::Type::kPlayerJoined) == 8);
    CHECK(r.server_events_of(ServerEvent::Type::kDesync) == 0);
    CHECK(r.server_events_of(ServerEvent::Type::kMalformed) == 0);
    CHECK(r.server_events_of(ServerEvent::Type::kPlayerLeft) == 0);
    CHECK(r.server_events_of(ServerEvent::Type::kPlayerAway) == 0);
    // Hash reports every 60 frames; the last few intervals may still be in flight.
    CHECK(r.hash_frames_matched >= kFrames / 60 - 10);
    // The delay followed the network: 150 ms + margin for jitter and loss is 10-20 frames.
    CHECK(r.min_delay >= 1);
    CHECK(r.max_delay <= 30);

    // Memory flat: from the ten-minute mark (buffers at their working size) to the end of
    // the hour the heap may not grow. The test's own logs are reserved up front and events
    // only counted; what is left is the delay history (one entry per change). A buffer
    // kept per keyframe would already grow 57 KiB an hour (7,200 keyframes).
    // The trend is the least-squares slope over the samples from minute 10 on: queues
    // breathe by a few KiB from one sample to the next, a leak climbs.
    REQUIRE(samples.size() >= 12);
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 1; i < samples.size(); ++i) {
        const double x = samples[i].frame / 216'000.0;  // hours
        const double y = static_cast<double>(samples[i].heap);
        n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    const double bytes_per_hour = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    std::printf(
        "soak: heap trend from minute %u to minute %u: %+.0f bytes per hour (%zu delay "
        "changes)\n",
        samples[1].frame / 3600, samples.back().frame / 3600, bytes_per_hour,
        r.schedule.size() - 1);
    // At most 16 KiB of growth over the span the trend covers (the full run: minute 10 to 60).
    const double hours = (samples.back().frame - samples[1].frame) / 216'000.0;
    CHECK(bytes_per_hour * hours < 16 * 1024);
}

}  // namespace

TEST_CASE(
    "Soak: 8 players for a simulated hour (10 minutes under sanitizers) at 150 +- 40 ms and 5% "
    "loss stay identical, memory flat",
    "[netplay][soak]") {
    soak(SessionMode::kFrameLock);
}

TEST_CASE(
    "Soak: 8 players in no-wait mode for a simulated hour (10 minutes under sanitizers) at 150 "
    "+- 40 ms and 5% loss stay identical, memory flat",
    "[netplay][soak][nowait]") {
    soak(SessionMode::kNoWait);
}
