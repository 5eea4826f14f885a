#include "netplay/sim/sim_session.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "netplay/transfer/state_transfer.h"

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

// The edit of a client's state uploads on their way out, before they are sealed: an upload is
// held until its last chunk, then sent edited (packed again, so that its sizes and CRC fit the
// edited bytes).
class UploadRewriter {
  public:
    using Edit = std::function<void(std::uint32_t, std::vector<std::uint8_t>&)>;
    explicit UploadRewriter(Edit edit) : m_edit(std::move(edit)) {}
    // Replaces `messages` (the one being sent) by what goes out in its place.
    void rewrite(std::vector<std::vector<std::uint8_t>>& messages) {
        const auto& data = messages.front();
        const auto id = peek_id(data);
        if (id != MsgId::kStateHeader && id != MsgId::kStateChunk) return;
        if (id == MsgId::kStateHeader) {
            auto header = decode_state_header(data);
            if (header && header->purpose == StatePurpose::kUpload && header->available &&
                m_rx.begin(*header))
                messages.clear();
            return;
        }
        auto chunk = decode_state_chunk(data);
        if (!chunk || !m_rx.active() || chunk->transfer_id != m_rx.header().transfer_id ||
            !m_rx.add(*chunk))
            return;
        messages.clear();
        if (!m_rx.complete()) return;
        const StateHeader header = m_rx.header();
        auto raw = m_rx.finish();
        m_rx.reset();
        if (!raw) return;
        std::vector<std::uint8_t> state = std::move(raw).value();
        m_edit(header.frame, state);
        StateSender sender(header.transfer_id, StatePurpose::kUpload,
                           pack_state(state, header.frame));
        for (auto& message : sender.take_messages()) messages.push_back(std::move(message));
    }

  private:
    Edit m_edit;
    StateReceiver m_rx;
};

}  // namespace

void HashingEmulator::run_frame(const InputFrame& inputs, bool present) {
    std::uint64_t h = m_state ^ (m_frames * 0x9e3779b97f4a7c15ull);
    for (InputWord pad : inputs.pads) h = mix(h ^ pad);
    if (m_frames == m_diverge_at) h = mix(h ^ 0xdead);
    m_state = h;
    ++m_frames;
    if (present) ++m_presented;
    // A frame run again after a load (rollback) replaces what the first run logged; a
    // joiner's log has nothing (0) before its first frame.
    if (m_frames % m_stride != 0) return;
    const auto index = static_cast<std::size_t>(m_frames / m_stride - 1);
    const bool with_inputs = m_stride == 1;
    if (index > m_log.size()) {
        m_log.resize(index, 0);
        if (with_inputs) m_inputs.resize(index);
    }
    if (index < m_log.size()) {
        m_log[index] = m_state;
        if (with_inputs) m_inputs[index] = inputs;
    } else {
        m_log.push_back(m_state);
        if (with_inputs) m_inputs.push_back(inputs);
    }
}

namespace {
void fill_padding(std::uint64_t seed, std::span<std::uint8_t> out) {
    std::uint64_t x = seed | 1;
    std::size_t i = 0;
    for (; i + 8 <= out.size(); i += 8) {
        x = mix(x + 0x9e3779b97f4a7c15ull);
        for (int b = 0; b < 8; ++b) out[i + b] = static_cast<std::uint8_t>(x >> (8 * b));
    }
    for (; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(mix(x + i));
}
}  // namespace

std::uint64_t HashingEmulator::state_hash() {
    return m_stamp ? mix(m_state ^ m_stamp) : m_state;
}

bool HashingEmulator::save_state(std::vector<std::uint8_t>& out) {
    const std::size_t head = m_stamp ? 24 : 16;
    out.resize(head + m_padding);
    for (int i = 0; i < 8; ++i) {
        out[i] = static_cast<std::uint8_t>(m_state >> (8 * i));
        out[8 + i] = static_cast<std::uint8_t>(m_frames >> (8 * i));
        if (m_stamp) out[16 + i] = static_cast<std::uint8_t>(m_stamp >> (8 * i));
    }
    fill_padding(m_state, std::span(out).subspan(head));
    return true;
}

bool HashingEmulator::load_state(std::span<const std::uint8_t> state) {
    const std::size_t head = m_stamp ? 24 : 16;
    if (state.size() != head + m_padding) return false;
    std::uint64_t st = 0, frames = 0, stamp = 0;
    for (int i = 0; i < 8; ++i) {
        st |= static_cast<std::uint64_t>(state[i]) << (8 * i);
        frames |= static_cast<std::uint64_t>(state[8 + i]) << (8 * i);
        if (m_stamp) stamp |= static_cast<std::uint64_t>(state[16 + i]) << (8 * i);
    }
    if (m_padding) {
        // The padding must be the state's own: a corrupted transfer is refused.
        std::vector<std::uint8_t> expected(m_padding);
        fill_padding(st, expected);
        if (!std::equal(expected.begin(), expected.end(), state.begin() + head)) return false;
    }
    if (m_stamp && stamp == 0) return false;
    m_state = st;
    m_frames = frames;
    if (m_reload_seed) {
        m_stamp = mix(m_reload_seed + ++m_loads) | 1;
    } else if (m_stamp) {
        m_stamp = stamp;
    }
    return true;
}

std::vector<MemoryRegion> HashingEmulator::memory_regions() {
    for (int i = 0; i < 8; ++i) m_ram[i] = static_cast<std::uint8_t>(m_state >> (8 * i));
    return {MemoryRegion{"CHAIN", 0x100, std::span<const std::uint8_t>(m_ram)}};
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

namespace {

// A process's clock that runs at `rate` against the simulation's (1.05: 5 % fast), from the
// moment it was made.
class RateClock final : public Clock {
  public:
    RateClock(const Clock& base, double rate)
        : m_base(base), m_origin(base.now_us()), m_rate(rate) {}
    Micros now_us() const override {
        return m_origin + static_cast<Micros>(std::floor((m_base.now_us() - m_origin) * m_rate));
    }
    // The simulation's time at which this clock reads `local` (rounded up).
    Micros to_base(Micros local) const {
        return m_origin + static_cast<Micros>(std::ceil((local - m_origin) / m_rate));
    }

  private:
    const Clock& m_base;
    Micros m_origin;
    double m_rate;
};

}  // namespace

SimResult run_scenario(const SimScenario& sc) {
    ManualClock clock(1'000'000);
    SimNetwork net(sc.seed, clock);
    net.set_default_link(sc.link);
    net.set_tap(sc.tap);
    auto server_transport = net.create_endpoint("server");
    ServerConfig server_config = sc.server;
    server_config.players = std::max(sc.slots, sc.players);
    if (sc.players < server_config.players && server_config.start_players == 0)
        server_config.start_players = sc.players;
    Server server(*server_transport, clock, server_config);

    const int n = sc.players;
    SimResult result;
    SessionIdentity identity{"sim", "1", 0x1234, 0x5678,
                             static_cast<std::uint32_t>(std::lround(sc.fps * 1000))};
    // One simulated process: its endpoint, emulator, client and hands.
    struct Peer {
        std::unique_ptr<Transport> transport;
        std::unique_ptr<HashingEmulator> emulator;
        std::unique_ptr<Emulator> external;
        std::unique_ptr<Client> client;
        std::unique_ptr<Hands> hands;
        std::unique_ptr<RateClock> clock;  // SimScenario::clock_rates
        int number = 0;                    // 1..N for the first players, then joiners
        bool dropped = false, frozen = false, warm = false;
        Micros frozen_at = -1;
        // When its client next has work, in the simulation's time.
        Micros wakeup() const {
            const Micros local = client->next_wakeup();
            return clock ? clock->to_base(local) : local;
        }
    };
    std::vector<Peer> peers;
    const auto spawn = [&](int number, const std::string& endpoint, const std::string& name,
                           int slot, bool spectator, std::uint64_t hands_seed,
                           std::optional<RejoinToken> token = std::nullopt) {
        Peer peer;
        peer.number = number;
        if (number <= static_cast<int>(sc.client_links.size())) {
            net.set_link(endpoint, "server", sc.client_links[number - 1]);
            net.set_link("server", endpoint, sc.client_links[number - 1]);
        }
        for (const auto& change : sc.changes) {
            if (change.client == 0 || change.client == number) {
                net.schedule_link_change(clock.now_us() + change.at, endpoint, "server",
                                         change.params);
                net.schedule_link_change(clock.now_us() + change.at, "server", endpoint,
                                         change.params);
            }
        }
        peer.transport = net.create_endpoint(endpoint);
        peer.emulator = std::make_unique<HashingEmulator>();
        peer.emulator->set_fps(sc.fps);
        peer.emulator->set_state_padding(sc.state_padding);
        if (sc.load_stamps) peer.emulator->set_load_stamp(mix(sc.seed * 0x100 + number) | 1);
        if (sc.reload_stamps || number == sc.reload_stamp_client)
            peer.emulator->set_reload_stamps(mix(sc.seed * 0x200 + number) | 1);
        peer.emulator->set_log_stride(sc.log_stride);
        if (sc.log_stride > 1) peer.emulator->reserve_log(sc.frames + 600);
        if (number == sc.diverging_client) peer.emulator->set_divergence(sc.diverge_frame);
        Emulator* emulator = peer.emulator.get();
        if (sc.make_emulator) {
            peer.external = sc.make_emulator(number);
            emulator = peer.external.get();
        } else if (sc.wrap_emulator) {
            peer.external = sc.wrap_emulator(number, *peer.emulator);
            if (peer.external) emulator = peer.external.get();
        }
        ClientConfig config;
        config.server_address = "server";
        config.requested_slot = static_cast<std::uint8_t>(slot);
        config.player_name = name;
        config.identity = identity;
        config.role = spectator ? Role::kSpectator : Role::kPlayer;
        config.rejoin_token = token;
        config.savestate_check = [&sc, number]() -> std::optional<Status> {
            return sc.savestate_check ? sc.savestate_check(number) : Status{};
        };
        const Clock* own_clock = &clock;
        if (number <= static_cast<int>(sc.clock_rates.size()) &&
            sc.clock_rates[number - 1] != 1.0) {
            peer.clock = std::make_unique<RateClock>(clock, sc.clock_rates[number - 1]);
            own_clock = peer.clock.get();
        }
        peer.client = std::make_unique<Client>(*peer.transport, *own_clock, *emulator, config);
        if (number == sc.tamper_client && (sc.tamper || sc.tamper_upload || sc.tamper_stats)) {
            // A modified client rewrites its ClientInput datagrams, its ClientStats, or the
            // states it uploads, before they are sealed.
            auto uploads =
                sc.tamper_upload ? std::make_shared<UploadRewriter>(sc.tamper_upload) : nullptr;
            peer.client->own_transport().rewrite_sends(
                [tamper = sc.tamper, tamper_stats = sc.tamper_stats, uploads](
                    Channel, std::vector<std::vector<std::uint8_t>>& messages) {
                    auto& bytes = messages.front();
                    if (peek_id(bytes) == MsgId::kClientStats) {
                        if (!tamper_stats) return;
                        if (auto stats = decode_client_stats(bytes)) {
                            tamper_stats(*stats);
                            bytes = encode(*stats);
                        }
                        return;
                    }
                    if (peek_id(bytes) == MsgId::kClientInput) {
                        if (!tamper) return;
                        if (auto input = decode_client_input(bytes)) {
                            tamper(*input);
                            bytes = encode(*input);
                        }
                        return;
                    }
                    if (uploads) uploads->rewrite(messages);
                });
        }
        if (sc.received) {
            peer.client->own_transport().watch_received(
                [&sc, &clock, endpoint](const TransportEvent& event) {
                    sc.received(clock.now_us(), "server", endpoint, event.channel, event.data);
                });
        }
        peer.hands = std::make_unique<Hands>(hands_seed, sc.hold_min, sc.hold_max);
        peer.client->start();
        SimClientResult r;
        r.slot = spectator ? 0 : slot;
        r.connected_at_us = clock.now_us() - 1'000'000;
        result.clients.push_back(r);
        peers.push_back(std::move(peer));
    };
    const auto spawn_player = [&](int c) {
        spawn(c, "client" + std::to_string(c), "client" + std::to_string(c), c, false,
              mix(sc.seed * 1000 + static_cast<std::uint64_t>(c)));
    };
    const Micros last_player_at = clock.now_us() + sc.last_player_after_us;
    bool last_player_spawned = sc.last_player_after_us <= 0 || n < 2;
    for (int c = 1; c <= n; ++c) {
        if (c == n && !last_player_spawned) break;
        spawn_player(c);
        result.clients.back().connected_at_us = -1;
    }
    std::vector<bool> joiner_spawned(sc.joiners.size(), false);
    Micros dropped_at = -1;
    bool rejoined = false;
    std::uint32_t next_progress = sc.progress_frames;

    const Micros frame_us = static_cast<Micros>(1e6 / sc.fps);
    const Micros limit =
        clock.now_us() + static_cast<Micros>((sc.frames + 600) * frame_us) + 60'000'000;
    const auto done = [&] {
        if (sc.max_stall_frames > 0) {
            for (const Peer& peer : peers) {
                if (!peer.dropped && peer.client->stats().stall_frames > sc.max_stall_frames) {
                    result.cut_short = true;
                    return true;
                }
            }
        }
        for (const Peer& peer : peers) {
            if (!peer.dropped && !peer.frozen && peer.client->state() != Client::State::kEnded &&
                peer.client->next_frame() < sc.frames) {
                return false;
            }
        }
        if (!last_player_spawned) return false;
        for (bool spawned : joiner_spawned) {
            if (!spawned) return false;
        }
        return !(dropped_at >= 0 && sc.rejoin_after_us >= 0 && !rejoined);
    };
    while (!done() && clock.now_us() < limit) {
        server.update();
        if (!last_player_spawned && clock.now_us() >= last_player_at) {
            last_player_spawned = true;
            spawn_player(n);  // its result keeps connected_at_us
        }
        for (std::size_t j = 0; j < sc.joiners.size(); ++j) {
            if (joiner_spawned[j] || peers[0].client->next_frame() < sc.joiners[j].at_frame)
                continue;
            joiner_spawned[j] = true;
            const int number = static_cast<int>(peers.size()) + 1;
            const std::string name =
                (sc.joiners[j].spectator ? "spectator" : "joiner") + std::to_string(j + 1);
            spawn(number, name, name, sc.joiners[j].slot, sc.joiners[j].spectator,
                  mix(sc.seed * 1000 + static_cast<std::uint64_t>(number)));
        }
        if (dropped_at >= 0 && sc.rejoin_after_us >= 0 && !rejoined &&
            clock.now_us() >= dropped_at + sc.rejoin_after_us) {
            // The same player restarts its process: same name, a new endpoint, and the
            // rejoin token its old process was given (as `framelock join` keeps in a file).
            rejoined = true;
            const int c = sc.drop_client;
            spawn(static_cast<int>(peers.size()) + 1, "client" + std::to_string(c) + "-again",
                  "client" + std::to_string(c), c, false,
                  mix(sc.seed * 1000 + static_cast<std::uint64_t>(c)),
                  sc.rejoin_with_token ? peers[c - 1].client->rejoin_token() : std::nullopt);
        }
        for (std::size_t i = 0; i < peers.size(); ++i) {
            Peer& peer = peers[i];
            if (peer.frozen && sc.freeze_for_us >= 0 &&
                clock.now_us() >= peer.frozen_at + sc.freeze_for_us)
                peer.frozen = false;  // the process goes on
            if (peer.dropped || peer.frozen) continue;
            Client& client = *peer.client;
            if (peer.number == sc.freeze_client && peer.frozen_at < 0 &&
                client.next_frame() >= sc.freeze_frame) {
                peer.frozen = true;
                peer.frozen_at = clock.now_us();
                continue;
            }
            const std::uint32_t sample_frame = client.next_sample_frame();
            const InputWord pad = peer.hands->pad_for(sample_frame) & sc.bot_buttons;
            const bool was_running = client.state() == Client::State::kRunning;
            client.tick(pad);
            auto& r = result.clients[i];
            if (!was_running && client.state() == Client::State::kRunning)
                r.running_at_us = clock.now_us() - 1'000'000;
            if (client.state() == Client::State::kRunning && peer.wakeup() <= clock.now_us())
                ++r.busy_wakeups;
            // The pad this client sampled for each scheduled frame (one per tick on time).
            while (sc.log_stride == 1 && client.state() == Client::State::kRunning &&
                   !client.spectator() && r.sampled.size() < client.next_sample_frame()) {
                r.sampled.push_back(pad);
            }
            if (!peer.warm && client.next_frame() >= sc.warmup_frames) {
                peer.warm = true;
                r.stall_frames_after_warmup = client.stats().stall_frames;  // subtracted below
            }
            if (peer.number == sc.drop_client && client.next_frame() >= sc.drop_frame) {
                peer.dropped = true;  // the process is gone: no Bye, no more traffic
                dropped_at = clock.now_us();
                r.stats = client.stats();
                peer.transport.reset();
            }
        }
        server.update();
        if (server.next_wakeup() <= clock.now_us()) ++result.server_busy_wakeups;
        if (!sc.keep_events) {
            while (auto event = server.poll_event())
                ++result.server_event_counts[static_cast<std::size_t>(event->type)];
            for (Peer& peer : peers) {
                while (peer.client->poll_event()) {
                }
            }
        }
        if (sc.on_progress && sc.progress_frames > 0 &&
            peers[0].client->next_frame() >= next_progress) {
            sc.on_progress(peers[0].client->next_frame());
            next_progress += sc.progress_frames;
        }
        // Jump to the next moment anything can happen.
        Micros next = clock.now_us() + frame_us;
        // Every endpoint but a frozen process's polled this turn.
        if (auto delivery = net.next_delivery_time_from(clock.now_us()))
            next = std::min(next, *delivery);
        for (const Peer& peer : peers) {
            if (!peer.dropped && !peer.frozen) next = std::min(next, peer.wakeup());
            if (peer.frozen && sc.freeze_for_us >= 0)
                next = std::min(next, peer.frozen_at + sc.freeze_for_us);
        }
        next = std::min(next, server.next_wakeup());
        if (!last_player_spawned) next = std::min(next, last_player_at);
        clock.set(std::max(next, clock.now_us() + 1));
    }
    result.simulated_us = clock.now_us() - 1'000'000;

    for (std::size_t i = 0; i < peers.size(); ++i) {
        Peer& peer = peers[i];
        auto& r = result.clients[i];
        r.hashes = peer.emulator->hash_log();
        r.inputs = peer.emulator->input_log();
        r.first_frame = peer.client->first_frame();
        r.log_stride = sc.log_stride;
        r.present = peer.client->present_slots();
        r.load_stamp = peer.emulator->load_stamp();
        r.final_state_hash =
            peer.external ? peer.external->state_hash() : peer.emulator->state_hash();
        // Frames run on predictions at the end were never confirmed: not final.
        r.hashes.resize(
            std::min<std::size_t>(r.hashes.size(), peer.client->final_frames() / sc.log_stride));
        r.inputs.resize(std::min<std::size_t>(r.inputs.size(), peer.client->final_frames()));
        if (!peer.dropped) r.stats = peer.client->stats();
        r.stall_frames = r.stats.stall_frames;
        r.stall_frames_after_warmup = r.stats.stall_frames - r.stall_frames_after_warmup;
        r.frames_fast_forwarded = r.stats.frames_fast_forwarded;
        while (auto event = peer.client->poll_event()) {
            if (sc.keep_events) r.events.push_back(*event);
        }
        if (!peer.dropped && peer.number <= n)
            result.total_stalls_after_warmup += r.stall_frames_after_warmup;
    }
    while (auto event = server.poll_event()) {
        ++result.server_event_counts[static_cast<std::size_t>(event->type)];
        if (sc.keep_events) result.server_events.push_back(*event);
    }
    result.schedule = server.schedule();
    result.hash_frames_matched = server.hash_frames_matched();
    result.slots = server.slot_stats();
    result.start_offset_us = server.start_time_us() - 1'000'000;
    result.fps = sc.fps;

    result.hashes_identical = true;
    for (std::size_t c = 1; c < result.clients.size(); ++c) {
        if (!result.clients[c].hashes.empty() &&
            SimResult::first_difference(result.clients[0], result.clients[c]) >= 0)
            result.hashes_identical = false;
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
    if (server.started() && n > 0) {
        const FrameTime frame =
            FrameTime::from_fps_milli(static_cast<std::uint32_t>(std::lround(sc.fps * 1000)));
        std::vector<std::string> names;
        for (int c = 1; c <= n; ++c) names.push_back("client" + std::to_string(c));
        Micros worst = 0;
        // path_floor_budget: frame k's input also rides in the next frames' datagrams, and the
        // next updates carry it down: it arrives with the first that is not lost in a burst.
        constexpr std::uint32_t kCarriers = 8;
        const auto first_carrier = [&](const std::string& from, const std::string& to, Micros at) {
            Micros best = std::numeric_limits<Micros>::max();
            for (std::uint32_t m = 0; m < kCarriers; ++m) {
                const Micros later = frame.span_us(m);
                if (net.in_burst(from, to, at + later)) continue;
                best = std::min(best, later + net.path_delay(from, to, at + later));
            }
            return best;
        };
        std::vector<std::vector<Micros>> trips(names.size());  // per client, every frame's
        for (std::uint32_t k = sc.warmup_frames; k < sc.frames; ++k) {
            const Micros sampled = server.start_time_us() + frame.span_us(k);
            Micros up = 0, up_carried = 0;
            for (const auto& name : names) {
                up = std::max(up, net.path_delay(name, "server", sampled));
                up_carried = std::max(up_carried, first_carrier(name, "server", sampled));
            }
            for (std::size_t i = 0; i < names.size(); ++i) {
                worst = std::max(worst, up + net.path_delay("server", names[i], sampled + up));
                trips[i].push_back(up_carried +
                                   first_carrier("server", names[i], sampled + up_carried));
            }
        }
        result.path_round_trip_max = worst;
        result.path_floor = std::max(1, static_cast<int>(frame.frames_covering(worst)));
        Micros covered = 0;  // the trip each client exceeds on at most 0.1 % of its frames
        for (auto& t : trips) {
            if (t.empty()) continue;
            const std::size_t at = t.size() - 1 - t.size() / 1000;
            std::nth_element(t.begin(), t.begin() + static_cast<long>(at), t.end());
            covered = std::max(covered, t[at]);
        }
        result.path_floor_budget = std::max(1, static_cast<int>(frame.frames_covering(covered)));
    }
    result.mean_delay_after_warmup =
        sum_warm / std::max<std::uint32_t>(1, sc.frames - sc.warmup_frames);
    return result;
}

long SimResult::first_difference(const SimClientResult& a, const SimClientResult& b,
                                 std::uint32_t from) {
    const std::size_t stride = a.log_stride;
    const std::size_t first = std::max<std::size_t>({a.first_frame, b.first_frame, from});
    const std::size_t begin = (first + 1 + stride - 1) / stride - 1;  // frame i*stride+stride-1
    const std::size_t end = std::min(a.hashes.size(), b.hashes.size());
    for (std::size_t i = begin; i < end; ++i) {
        if (a.hashes[i] != b.hashes[i]) return static_cast<long>(i * stride + stride - 1);
    }
    return -1;
}

}  // namespace framelock::netplay
