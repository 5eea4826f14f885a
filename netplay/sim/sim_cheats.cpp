// Test clients that lie about the delay's measurements (sim_cheats.h).
#include "netplay/sim/sim_cheats.h"

#include <algorithm>

namespace framelock::netplay {

InputTamper inflating_echoes() {
    return [](ClientInput& input) {
        if (input.echo_hold_10us == kEchoHoldUnknown) return;  // nothing to echo yet
        input.echo_seq = static_cast<std::uint8_t>(input.echo_seq + 1);
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

}  // namespace framelock::netplay
