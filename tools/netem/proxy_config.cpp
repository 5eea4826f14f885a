#include "tools/netem/proxy_config.h"

#include <fmt/core.h>

namespace framelock::netem {

namespace {

Error usage_error(const std::string& message) {
    return make_error(ErrorCode::kUsage, message);
}

Status check_impairment(const Impairment& impairment, const char* direction) {
    const auto bad = [&](const char* field, double value, const char* range) {
        return usage_error(fmt::format("{} {} must be {}, got {}", direction, field, range, value));
    };
    if (!(impairment.delay_ms >= 0 && impairment.delay_ms <= kMaxDelayMs))
        return bad("delay", impairment.delay_ms, "0..10000 ms");
    if (!(impairment.jitter_ms >= 0 && impairment.jitter_ms <= kMaxDelayMs))
        return bad("jitter", impairment.jitter_ms, "0..10000 ms");
    if (!(impairment.loss_pct >= 0 && impairment.loss_pct <= 100))
        return bad("loss", impairment.loss_pct, "0..100 %");
    if (!(impairment.duplicate_pct >= 0 && impairment.duplicate_pct <= 100))
        return bad("duplicate", impairment.duplicate_pct, "0..100 %");
    if (!(impairment.corrupt_pct >= 0 && impairment.corrupt_pct <= 100))
        return bad("corrupt", impairment.corrupt_pct, "0..100 %");
    if (!(impairment.burst_loss_pct >= 0 && impairment.burst_loss_pct < 100))
        return bad("burst-loss", impairment.burst_loss_pct, "0..<100 %");
    if (!(impairment.burst_length >= 0 && impairment.burst_length <= kMaxBurstLength))
        return bad("burst-length", impairment.burst_length, "0..1000 datagrams");
    if (impairment.burst_loss_pct > 0 && !(impairment.burst_length >= 1))
        return bad("burst-length", impairment.burst_length, "at least 1 with --burst-loss");
    if (!(impairment.spike_pct >= 0 && impairment.spike_pct <= 100))
        return bad("spike-pct", impairment.spike_pct, "0..100 %");
    if (!(impairment.spike_ms >= 0 && impairment.spike_ms * kSpikeCap <= kMaxDelayMs))
        return bad("spike-ms", impairment.spike_ms, "0..1000 ms (ten times it at most 10000)");
    if (impairment.spike_pct > 0 && !(impairment.spike_ms > 0))
        return bad("spike-ms", impairment.spike_ms, "more than 0 with --spike-pct");
    return {};
}

}  // namespace

Status validate(const ProxyConfig& config) {
    if (!config.allow_non_loopback) {
        if (!config.listen.is_loopback()) {
            return usage_error("--listen " + config.listen.to_string() +
                               " is not a loopback address (127.0.0.0/8); only loopback "
                               "traffic is allowed unless --allow-non-loopback is given");
        }
        if (!config.forward.is_loopback()) {
            return usage_error("--forward " + config.forward.to_string() +
                               " is not a loopback address (127.0.0.0/8); only loopback "
                               "traffic is allowed unless --allow-non-loopback is given");
        }
    }
    if (config.forward.port == 0) return usage_error("--forward needs a port other than 0");
    if (auto status = check_impairment(config.up, "up"); !status) return status;
    if (auto status = check_impairment(config.down, "down"); !status) return status;
    for (const Blackout& window : config.blackouts) {
        if (!(window.start_s >= 0 && window.start_s <= kMaxDurationS && window.length_s > 0 &&
              window.length_s <= kMaxDurationS)) {
            return usage_error(fmt::format(
                "--blackout {}:{} needs a start of 0..{} s and a length of more than 0 and at "
                "most {} s",
                window.start_s, window.length_s, kMaxDurationS, kMaxDurationS));
        }
    }
    if (!(config.duration_s > 0 && config.duration_s <= kMaxDurationS)) {
        return usage_error(fmt::format("--duration must be more than 0 and at most {} s, got {}",
                                       kMaxDurationS, config.duration_s));
    }
    if (!(config.idle_exit_s >= 0 && config.idle_exit_s <= kMaxDurationS)) {
        return usage_error(fmt::format("--idle-exit must be 0 (off) to {} s, got {}", kMaxDurationS,
                                       config.idle_exit_s));
    }
    if (config.max_clients < 1 || config.max_clients > kMaxClients) {
        return usage_error(
            fmt::format("--max-clients must be 1..{}, got {}", kMaxClients, config.max_clients));
    }
    if (!(config.client_timeout_s > 0 && config.client_timeout_s <= kMaxDurationS)) {
        return usage_error(
            fmt::format("--client-timeout must be more than 0 and at most {} s, "
                        "got {}",
                        kMaxDurationS, config.client_timeout_s));
    }
    if (config.max_queued_bytes < kMaxDatagram) {
        return usage_error(fmt::format("the queue must hold at least {} bytes", kMaxDatagram));
    }
    return {};
}

}  // namespace framelock::netem
