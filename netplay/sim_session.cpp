#include "netplay/sim_session.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace framelock::netplay {
namespace {

std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    x ^= x >> 33;
    return x;
}

// One player's hands on the pad: a fresh random word held hold_min..hold_max frames.
class Hands {
  public:
    Hands(std::uint64_t seed, int hold_min, int hold_max)
        : m_state(seed),
          m_hold_min(static_cast<std::uint64_t>(std::max(1, hold_min))),
          m_hold_span(static_cast<std::uint64_t>(std::max(1, hold_max - hold_min + 1))) {}
    InputWord pad_for(std::uint32_t frame) {
        while (m_next <= frame) {
            if (m_next >= m_hold_until) {
                m_state = mix(m_state + 0x9e3779b97f4a7c15ull);
                m_pad = static_cast<InputWord>(m_state & 0x0ff3);
                m_hold_until = m_next + m_hold_min + (m_state >> 40) % m_hold_span;
            }
            ++m_next;
        }
        return m_pad;
    }

  private:
    std::uint64_t m_state;
    std::uint64_t m_hold_min, m_hold_span;
    std::uint64_t m_next = 0, m_hold_until = 0;
    InputWord m_pad = 0;
};

}  // namespace

void HashingEmulator::run_frame(const InputFrame& inputs, bool present) {
    std::uint64_t h = m_state ^ (m_frames * 0x9e3779b97f4a7c15ull);
    for (InputWord pad : inputs.pads) h = mix(h ^ pad);
    if (m_frames >= m_diverge_at) h = mix(h ^ 0xdead);
    m_state = h;
    ++m_frames;
    if (present) ++m_presented;
    // A frame run again after a load (rollback) replaces what the first run logged.
    const auto index = static_cast<std::size_t>(m_frames - 1);
    if (index < m_log.size()) {
        m_log[index] = m_state;
        m_inputs[index] = inputs;
    } else {
        m_log.push_back(m_state);
        m_inputs.push_back(inputs);
    }
}

bool HashingEmulator::save_state(std::vector<std::uint8_t>& out) {
    out.resize(16);
    for (int i = 0; i < 8; ++i) {
        out[i] = static_cast<std::uint8_t>(m_state >> (8 * i));
        out[8 + i] = static_cast<std::uint8_t>(m_frames >> (8 * i));
    }
    return true;
}

bool HashingEmulator::load_state(std::span<const std::uint8_t> state) {
    if (state.size() != 16) return false;
    m_state = m_frames = 0;
    for (int i = 0; i < 8; ++i) {
        m_state |= static_cast<std::uint64_t>(state[i]) << (8 * i);
        m_frames |= static_cast<std::uint64_t>(state[8 + i]) << (8 * i);
    }
    return true;
}

std::uint32_t SimResult::frame_at(Micros t) const {
    const Micros frame_us = static_cast<Micros>(1e6 / fps);
    return t <= start_offset_us ? 0 : static_cast<std::uint32_t>((t - start_offset_us) / frame_us);
}

int SimResult::delay_at(std::uint32_t frame) const {
    int delay = schedule.empty() ? 0 : schedule.front().delay;
    for (const auto& entry : schedule) {
        if (entry.frame > frame) break;
        delay = entry.delay;
    }
    return delay;
}

SimResult run_scenario(const SimScenario& sc) {
    ManualClock clock(1'000'000);
    SimNetwork net(sc.seed, clock);
    net.set_default_link(sc.link);
    auto server_transport = net.create_endpoint("server");
    ServerConfig server_config = sc.server;
    server_config.players = sc.players;
    Server server(*server_transport, clock, server_config);

    const int n = sc.players;
    std::vector<std::unique_ptr<Transport>> transports;
    std::vector<std::unique_ptr<HashingEmulator>> emulators;
    std::vector<std::unique_ptr<Emulator>> external;  // sc.make_emulator's
    std::vector<std::unique_ptr<Client>> clients;
    std::vector<Hands> hands;
    SimResult result;
    result.clients.resize(static_cast<std::size_t>(n));
    SessionIdentity identity{"sim", "1", 0x1234, 0x5678,
                             static_cast<std::uint32_t>(std::lround(sc.fps * 1000))};
    for (int c = 1; c <= n; ++c) {
        const std::string name = "client" + std::to_string(c);
        if (static_cast<std::size_t>(c) <= sc.client_links.size()) {
            net.set_link(name, "server", sc.client_links[c - 1]);
            net.set_link("server", name, sc.client_links[c - 1]);
        }
        for (const auto& change : sc.changes) {
            if (change.client == 0 || change.client == c) {
                net.schedule_link_change(clock.now_us() + change.at, name, "server", change.params);
                net.schedule_link_change(clock.now_us() + change.at, "server", name, change.params);
            }
        }
        transports.push_back(net.create_endpoint(name));
        emulators.push_back(std::make_unique<HashingEmulator>());
        emulators.back()->set_fps(sc.fps);
        if (c == sc.diverging_client) emulators.back()->set_divergence(sc.diverge_frame);
        Emulator* emulator = emulators.back().get();
        if (sc.make_emulator) {
            external.push_back(sc.make_emulator(c));
            emulator = external.back().get();
        }
        ClientConfig config;
        config.server_address = "server";
        config.requested_slot = static_cast<std::uint8_t>(c);
        config.player_name = name;
        config.identity = identity;
        clients.push_back(std::make_unique<Client>(*transports.back(), clock, *emulator, config));
        hands.emplace_back(mix(sc.seed * 1000 + static_cast<std::uint64_t>(c)), sc.hold_min,
                           sc.hold_max);
        clients.back()->start();
    }
    std::vector<bool> dropped(static_cast<std::size_t>(n), false);
    std::vector<bool> frozen(static_cast<std::size_t>(n), false);
    std::vector<bool> warm(static_cast<std::size_t>(n), false);

    const Micros frame_us = static_cast<Micros>(1e6 / sc.fps);
    const Micros limit =
        clock.now_us() + static_cast<Micros>((sc.frames + 600) * frame_us) + 60'000'000;
    const auto done = [&] {
        for (int c = 0; c < n; ++c) {
            if (!dropped[c] && !frozen[c] && clients[c]->state() != Client::State::kEnded &&
                clients[c]->next_frame() < sc.frames) {
                return false;
            }
        }
        return true;
    };
    while (!done() && clock.now_us() < limit) {
        server.update();
        for (int c = 0; c < n; ++c) {
            if (dropped[c] || frozen[c]) continue;
            Client& client = *clients[c];
            if (c + 1 == sc.freeze_client && client.next_frame() >= sc.freeze_frame) {
                frozen[c] = true;
                continue;
            }
            const std::uint32_t sample_frame = client.next_sample_frame();
            const InputWord pad = hands[c].pad_for(sample_frame);
            client.tick(pad);
            auto& sampled = result.clients[c].sampled;
            // The pad this client sampled for each scheduled frame (one per tick on time).
            while (client.state() == Client::State::kRunning &&
                   sampled.size() < client.next_sample_frame()) {
                sampled.push_back(pad);
            }
            if (!warm[c] && client.next_frame() >= sc.warmup_frames) {
                warm[c] = true;
                result.clients[c].stall_frames_after_warmup =
                    client.stats().stall_frames;  // subtracted below
            }
            if (c + 1 == sc.drop_client && client.next_frame() >= sc.drop_frame) {
                dropped[c] = true;  // the process is gone: no Bye, no more traffic
                result.clients[c].stats = client.stats();
                transports[c].reset();
            }
        }
        server.update();
        // Jump to the next moment anything can happen.
        Micros next = clock.now_us() + frame_us;
        if (auto delivery = net.next_delivery_time()) next = std::min(next, *delivery);
        for (int c = 0; c < n; ++c) {
            if (!dropped[c] && !frozen[c]) next = std::min(next, clients[c]->next_wakeup());
        }
        next = std::min(next, server.next_wakeup());
        clock.set(std::max(next, clock.now_us() + 1));
    }
    result.simulated_us = clock.now_us() - 1'000'000;

    for (int c = 0; c < n; ++c) {
        auto& r = result.clients[c];
        r.hashes = emulators[c]->hash_log();
        r.inputs = emulators[c]->input_log();
        // Frames run on predictions at the end were never confirmed: not final.
        r.hashes.resize(std::min<std::size_t>(r.hashes.size(), clients[c]->final_frames()));
        r.inputs.resize(std::min<std::size_t>(r.inputs.size(), clients[c]->final_frames()));
        if (!dropped[c]) r.stats = clients[c]->stats();
        r.stall_frames = r.stats.stall_frames;
        r.stall_frames_after_warmup = r.stats.stall_frames - r.stall_frames_after_warmup;
        r.frames_fast_forwarded = r.stats.frames_fast_forwarded;
        while (auto event = clients[c]->poll_event()) r.events.push_back(*event);
        if (!dropped[c]) result.total_stalls_after_warmup += r.stall_frames_after_warmup;
    }
    while (auto event = server.poll_event()) result.server_events.push_back(*event);
    result.schedule = server.schedule();
    result.hash_frames_matched = server.hash_frames_matched();
    result.start_offset_us = server.start_time_us() - 1'000'000;
    result.fps = sc.fps;

    result.hashes_identical = true;
    for (int c = 1; c < n; ++c) {
        const auto& a = result.clients[0].hashes;
        const auto& b = result.clients[c].hashes;
        const std::size_t common = std::min(a.size(), b.size());
        if (!std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(common), b.begin())) {
            result.hashes_identical = false;
        }
    }
    result.min_delay = std::numeric_limits<int>::max();
    double sum = 0, sum_warm = 0;
    for (std::uint32_t f = 0; f < sc.frames; ++f) {
        const int d = result.delay_at(f);
        result.min_delay = std::min(result.min_delay, d);
        result.max_delay = std::max(result.max_delay, d);
        sum += d;
        if (f >= sc.warmup_frames) sum_warm += d;
    }
    result.mean_delay = sum / sc.frames;
    result.mean_delay_after_warmup =
        sum_warm / std::max<std::uint32_t>(1, sc.frames - sc.warmup_frames);
    return result;
}

}  // namespace framelock::netplay
