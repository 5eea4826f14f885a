#include "netplay/client/pad_sampler.h"

#include <algorithm>

namespace framelock::netplay {
namespace {
// Pads are sampled at most this many frames beyond the confirmed ones: the server drops
// inputs further ahead (ServerConfig::max_frames_ahead), and a Start or clock sample that
// puts the session's present absurdly far ahead must not make one tick sample (and keep,
// and send) every frame up to it.
constexpr std::uint32_t kMaxSampleLead = 600;
}  // namespace

void PadSampler::start(std::uint32_t first_input) {
    m_own.clear();
    m_acked_end = m_next_input = first_input;
    m_sample_times.clear();
    m_sample_base = first_input;
    m_sample_frame = 0;
}

void PadSampler::join(std::uint32_t frame) {
    m_sample_frame = frame;
    m_started = false;
    m_own.clear();
}

bool PadSampler::within_lead(std::uint32_t confirmed_end) const {
    return Frame(m_sample_frame) < Frame(confirmed_end + kMaxSampleLead);
}

PadSampler::Sampled PadSampler::sample(InputWord pad, int delay, Micros due, Micros now) {
    const std::uint32_t frame = m_sample_frame++;
    const std::uint32_t target = frame + static_cast<std::uint32_t>(delay);
    const InputWord presses = static_cast<InputWord>(pad & ~m_last_sample);
    m_last_sample = pad;
    if (m_started && Frame(target) < Frame(m_next_input)) {
        // The delay fell: this sample has no frame of its own. A button pressed now is
        // carried into the next frame that gets one, so no tap is ever lost.
        m_carried_presses |= presses;
        return {};
    }
    Sampled sampled;
    sampled.word = static_cast<InputWord>(pad | m_carried_presses);
    m_carried_presses = 0;
    if (!m_started) {
        // A late joiner's inputs start at its first sample's frame.
        m_started = true;
        m_next_input = m_acked_end = m_sample_base = target;
        m_own.clear();
        m_sample_times.clear();
    }
    // The delay rose: frames between the last sample's target and this one's get this
    // sample too.
    m_max_late = std::max(m_max_late, now - due);
    while (Frame(m_next_input) <= Frame(target)) {
        m_own.push_back(sampled.word);
        m_sample_times.push_back(due);
        ++m_next_input;
        ++sampled.frames;
    }
    return sampled;
}

void PadSampler::acknowledge(std::uint16_t input_ack) {
    // Own inputs the server holds need not be sent again.
    const std::uint32_t acked_end = expand_frame(input_ack, Frame(m_next_input)).value() + 1;
    while (Frame(m_acked_end) < Frame(acked_end) && !m_own.empty()) {
        m_own.pop_front();
        ++m_acked_end;
    }
}

void PadSampler::confirmed(std::uint32_t from, std::uint32_t to, Micros now, bool tick_late) {
    for (std::uint32_t frame = from; frame != to; ++frame) {
        // This frame's input round trip, from when this client sampled its own input for
        // it (every player samples a frame's input at the same scheduled moment).
        if (tick_late || !(Frame(frame) >= Frame(m_sample_base)) ||
            frame - m_sample_base >= m_sample_times.size())
            continue;
        const Micros round_trip = now - m_sample_times[frame - m_sample_base];
        m_max_round_trip = std::max(m_max_round_trip, round_trip);
        const auto bin = static_cast<std::size_t>(std::clamp<Micros>(
            round_trip / kRoundTripBinUs, 0, static_cast<Micros>(m_round_trips.size()) - 1));
        ++m_round_trips[bin];
    }
    while (!m_sample_times.empty() && Frame(m_sample_base) < Frame(to)) {
        m_sample_times.pop_front();
        ++m_sample_base;
    }
}

void PadSampler::fill(ClientInput& input) {
    input.latency_100us =
        static_cast<std::uint16_t>(std::clamp<Micros>(m_max_round_trip / 100, 0, 65535));
    m_max_round_trip = 0;
    input.late_ms = static_cast<std::uint8_t>(std::clamp<Micros>(m_max_late / 1000, 0, 255));
    m_max_late = 0;
    input.first_frame = static_cast<std::uint16_t>(m_acked_end);
    const std::size_t count = std::min(m_own.size(), kMaxFramesPerMessage);
    input.inputs.assign(m_own.begin(), m_own.begin() + static_cast<std::ptrdiff_t>(count));
}

Micros PadSampler::round_trip_quantile(double q) const {
    std::uint64_t total = 0;
    for (std::uint32_t n : m_round_trips) total += n;
    if (total == 0) return 0;
    const auto rank = static_cast<std::uint64_t>(std::clamp(q, 0.0, 1.0) * (total - 1));
    std::uint64_t seen = 0;
    for (std::size_t bin = 0; bin < m_round_trips.size(); ++bin) {
        seen += m_round_trips[bin];
        if (seen > rank) return static_cast<Micros>(bin) * kRoundTripBinUs + kRoundTripBinUs / 2;
    }
    return static_cast<Micros>(m_round_trips.size()) * kRoundTripBinUs;
}

}  // namespace framelock::netplay
