// Test clients that lie about the delay's measurements (sim_cheats.h).
#include "netplay/sim/sim_cheats.h"

#include <algorithm>
#include <memory>

namespace framelock::netplay {

InputTamper inflating_echoes() {
    return [](ClientInput& input) {
        if (input.echo_hold_10us == kEchoHoldUnknown) return;  // nothing to echo yet
        // 240 before the newest it holds: with fewer than 16 updates on their way to it (a
        // round trip under a quarter second), one the server sent 240-255 updates ago.
        input.echo_seq = static_cast<std::uint8_t>(input.echo_seq - 240);
        input.echo_hold_10us = 0;
        if (input.latency_100us)
            input.latency_100us = std::max<std::uint16_t>(input.latency_100us, 40'000);
    };
}

InputTamper hiccup_claims(std::uint8_t late_ms) {
    return [late_ms](ClientInput& input) { input.late_ms = std::max(input.late_ms, late_ms); };
}

InputTamper oscillating_echoes() {
    return [](ClientInput& input) {
        if (input.echo_hold_10us == kEchoHoldUnknown || (input.first_frame / 30) % 2 == 0) return;
        input.echo_seq = static_cast<std::uint8_t>(input.echo_seq - 12);
        input.echo_hold_10us = 0;
    };
}

InputTamper fast_inputs(double rate, std::uint32_t lead) {
    struct Count {
        bool started = false;
        std::uint8_t seq = 0;    // the newest datagram's (a copy repeats it)
        std::uint32_t next = 0;  // the next frame it numbers
        double owed = 0;         // frames due and not yet numbered
    };
    auto count = std::make_shared<Count>();
    return [count, rate, lead](ClientInput& input) {
        if (input.inputs.empty()) return;
        Count& c = *count;
        if (!c.started) {
            c.started = true;
            c.seq = input.seq;
            c.next = input.first_frame + static_cast<std::uint32_t>(input.inputs.size()) + lead;
        } else if (input.seq != c.seq) {
            // A new datagram: the honest client sends one a frame.
            c.seq = input.seq;
            for (c.owed += rate; c.owed >= 1; c.owed -= 1) ++c.next;
        }
        const std::uint32_t frames = std::min<std::uint32_t>(16, c.next);
        input.first_frame = static_cast<std::uint16_t>(c.next - frames);
        input.inputs.assign(frames, input.inputs.back());
    };
}

}  // namespace framelock::netplay
