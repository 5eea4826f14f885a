#include "frontend/session/client_runner.h"

#include <fmt/core.h>

#include <unistd.h>

#include <algorithm>
#include <limits>

#include "common/log.h"
#include "frontend/session/desync_bundles.h"
#include "frontend/session/realtime_loop.h"
#include "frontend/session/recording_emulator.h"
#include "frontend/session/session_identity.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {
namespace {

using netplay::Micros;

// While a due frame waits for inputs, the loop sleeps on the socket; this bounds the sleep
// so the client's own timers (input resends) still run.
constexpr Micros kStallWaitUs = 4'000;

double seconds(Micros us) {
    return static_cast<double>(us) / 1e6;
}

std::string slot_list(std::uint8_t slots) {
    std::string text;
    for (int s = 0; s < netplay::kMaxPlayers; ++s) {
        if (slots & (1u << s)) text += (text.empty() ? "" : ", ") + std::to_string(s + 1);
    }
    return text.empty() ? "-" : text;
}

}  // namespace

ClientRunner::ClientRunner(RetroEmulator& emulator, InputSource& input, const netplay::Clock& clock,
                           ClientRunConfig config)
    : m_emulator(emulator),
      m_input(input),
      m_clock(clock),
      m_config(std::move(config)),
      m_chat(m_config.muted, m_config.say) {}

ClientRunner::~ClientRunner() {
    // The client borrows the emulator's video sink; do not leave it pointing here.
    if (m_config.screenshot_frame) m_emulator.set_video_sink(m_video.forwards_to());
}

Result<std::unique_ptr<ClientRunner>> ClientRunner::create(
    RetroEmulator& emulator, InputSource& input, const netplay::Clock& clock,
    const ClientRunConfig& config, std::unique_ptr<netplay::EnetTransport> socket) {
    std::unique_ptr<ClientRunner> runner(new ClientRunner(emulator, input, clock, config));
    if (!config.hash_log.empty()) {
        auto log = HashLogWriter::open(config.hash_log, false);
        if (!log) return log.error();
        runner->m_hash_log = std::move(log).value();
    }
    if (config.screenshot_frame) {
        if (config.screenshot_path.empty())
            return make_error(ErrorCode::kUsage, "a screenshot frame needs a file to write to");
        runner->m_video.keep_last_frame(true);
        // A window keeps getting every picture.
        runner->m_video.forward_to(emulator.video_sink());
        emulator.set_video_sink(&runner->m_video);
    }
    runner->m_recording =
        std::make_unique<RecordingEmulator>(emulator, runner->m_hash_log.get(), config.frames,
                                            config.screenshot_frame ? &runner->m_video : nullptr,
                                            config.screenshot_frame, !config.record_path.empty());

    if (socket) {
        runner->m_transport = std::move(socket);
    } else {
        auto transport = netplay::EnetTransport::client();
        if (!transport) return transport.error();
        runner->m_transport = std::move(transport).value();
    }

    netplay::ClientConfig client;
    client.server_address = config.server_address;
    client.requested_slot = static_cast<std::uint8_t>(config.slot);
    client.player_name = config.player_name;
    client.content_name = config.content_name;
    client.identity = session_identity(emulator);
    client.server_timeout_us = config.server_timeout_us;
    if (!config.desync_bundle_dir.empty() && !config.spectate) {
        runner->m_bundles = std::make_unique<DesyncBundles>(config.desync_bundle_dir,
                                                            client.identity, config.content_name);
        runner->m_recording->keep_for_bundles(runner->m_bundles.get());
    }
    client.role = config.spectate ? netplay::Role::kSpectator : netplay::Role::kPlayer;
    client.password = config.password;
    client.server_key = config.server_key;
    if (!config.spectate && config.rejoin_file != "-") {
        // The token of the slot an earlier run held (it crashed): the server gives it back.
        auto file = config.rejoin_file.empty() ? RejoinFile::open_free(RejoinFile::default_path(
                                                     config.server_address, config.player_name))
                                               : RejoinFile::open(config.rejoin_file);
        if (!file && !config.rejoin_file.empty()) return file.error();
        if (!file) {
            log_warn("{}; the rejoin token stays in memory only", file.error().message);
        } else {
            runner->m_rejoin_file = std::move(file).value();
            client.rejoin_token = runner->m_rejoin_file->token();
            log_info("rejoin token kept in {}{}", runner->m_rejoin_file->path().string(),
                     client.rejoin_token ? " (holds one: asking for that slot back)" : "");
        }
    }
    if (config.savestate_check) {
        ClientRunner* self = runner.get();
        client.savestate_check = [self]() -> std::optional<Status> {
            if (!self->m_savestate_check.valid()) {
                log_info("the server asks every player to vouch for its savestates: checking");
                self->m_savestate_check =
                    std::async(std::launch::async, self->m_config.savestate_check);
            }
            if (self->m_savestate_check.wait_for(std::chrono::seconds(0)) !=
                std::future_status::ready)
                return std::nullopt;
            Status checked = self->m_savestate_check.get();
            if (checked)
                log_info("savestates checked: they reload faithfully, vouched for");
            else
                log_warn("savestates cannot be vouched for: {}", checked.error().message);
            return checked;
        };
    }
    // Exactly the frames asked for, even when catching up runs several in one tick.
    client.stop_at_frame = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(config.frames, std::numeric_limits<std::uint32_t>::max()));
    runner->m_client = std::make_unique<netplay::Client>(*runner->m_transport, clock,
                                                         *runner->m_recording, client);
    runner->m_recording->set_client(runner->m_client.get());
    runner->m_summary.frames_requested = config.frames;
    runner->m_summary.spectator = config.spectate;
    runner->m_created_at = clock.now_us();
    log_info("connecting to {} as {} '{}' ({} {}, content {}, options {})", config.server_address,
             config.spectate ? "spectator" : "player", config.player_name,
             client.identity.core_name, client.identity.core_version,
             netplay::hash_to_hex(client.identity.content_hash),
             netplay::hash_to_hex(client.identity.options_hash));
    runner->m_client->start();
    if (runner->m_client->state() == netplay::Client::State::kEnded)
        return make_error(ErrorCode::kUsage, runner->m_client->end_reason());
    return runner;
}

void ClientRunner::step() {
    const Micros now = m_clock.now_us();
    if (m_left) {
        // Only services the socket now, so the goodbye goes out.
        m_client->tick(0);
        while (auto event = m_client->poll_event()) handle_event(*event);
        return;
    }
    // The client samples the pad on the session's timeline, not on emulation progress:
    // a script or bot is read for the frame being sampled.
    const netplay::InputWord pad = m_input.input_for(m_client->next_sample_frame()).pads[0];
    m_last_ran = m_client->tick(pad);
    // Events first: a late joiner's replay is opened on kJoined, before the frames it ran
    // in the same tick are flushed to it.
    while (auto event = m_client->poll_event()) handle_event(*event);
    m_chat.poll(*m_client, m_replay.get(), now);
    if (m_bundles) m_bundles->poll(*m_client, false);
    if (!m_left && (m_client->state() == netplay::Client::State::kJoining ||
                    m_client->receiving_start_state()))
        show_transfer_progress();
    m_recording->flush_log(m_client->final_frames());
    if (!m_left && m_config.frames > 0 && m_client->final_frames() >= m_config.frames) {
        end_of_play(now);
        m_summary.completed = true;
        leave("finished " + std::to_string(m_config.frames) + " frames");
    }
}

void ClientRunner::leave(const std::string& reason) {
    if (m_left) return;
    end_of_play(m_clock.now_us());
    if (m_config.frames == 0 && m_summary.started) m_summary.completed = true;
    m_client->leave(reason);
    while (auto event = m_client->poll_event()) handle_event(*event);
    m_left = true;
    // Left on purpose: there is no slot to take back.
    if (m_rejoin_file) m_rejoin_file->remove();
    m_linger_until = m_clock.now_us() + kGoodbyeLingerUs;
}

void ClientRunner::end_of_play(Micros now) {
    if (m_ended_at >= 0) return;
    m_ended_at = now;
    m_summary.stats = m_client->stats();
    m_summary.round_trip_median = m_client->round_trip_quantile(0.5);
    m_summary.round_trip_p99 = m_client->round_trip_quantile(0.99);
    m_traffic_at_end = m_summary.stats.traffic;
}

void ClientRunner::note_delay(int delay) {
    if (!m_delay_seen) {
        m_delay_seen = true;
        m_summary.delay_initial = m_summary.delay_min = m_summary.delay_max = delay;
    } else if (delay != m_summary.delay_final) {
        ++m_summary.delay_changes;
    }
    m_summary.delay_min = std::min(m_summary.delay_min, delay);
    m_summary.delay_max = std::max(m_summary.delay_max, delay);
    m_summary.delay_final = delay;
}

void ClientRunner::handle_event(const netplay::ClientEvent& event) {
    using Type = netplay::ClientEvent::Type;
    const Micros now = m_clock.now_us();
    m_view_events.keep(event);
    switch (event.type) {
        case Type::kWelcome:
            m_summary.slot = m_client->slot();
            m_summary.name = m_client->display_name();
            m_summary.players = m_client->players();
            m_summary.rollback = m_client->mode() == netplay::SessionMode::kRollback;
            // Cores like FBNeo switch to netplay-safe savestates when told.
            if (m_summary.rollback)
                m_emulator.set_savestate_context(RETRO_SAVESTATE_CONTEXT_ROLLBACK_NETPLAY);
            log_info(
                "joined {}: slot {} of {}, server key {} ({})", m_config.server_address,
                m_client->slot(), m_client->players(),
                netplay::server_key_text(m_client->server_key().value_or(netplay::ServerKey{})),
                m_config.server_key ? "the key it was expected to hold"
                                    : "not checked: no key was given");
            if (m_client->display_name() != m_config.player_name) {
                log_info("playing as '{}': another player here goes by '{}'",
                         m_client->display_name(), m_config.player_name);
            }
            if (m_rejoin_file) {
                if (const auto token = m_client->rejoin_token()) {
                    if (auto written = m_rejoin_file->write(*token); !written)
                        log_warn("{}: after a crash this slot cannot be taken back",
                                 written.error().message);
                }
            }
            if (static_cast<unsigned>(m_client->players()) > m_config.ports) {
                log_warn(
                    "the session has {} players but this emulator has {} controller ports "
                    "(--ports): the pads of slots above {} do nothing here",
                    m_client->players(), m_config.ports, m_config.ports);
            }
            break;
        case Type::kRejected:
            m_summary.rejected = true;
            log_error("the server refused this client: {}", event.message);
            // A file made for this run and never given a token is of no use to the next.
            if (m_rejoin_file && !m_rejoin_file->token()) m_rejoin_file->remove();
            break;
        case Type::kStarted: {
            m_summary.started = true;
            m_started_at = now;
            if (!m_config.record_path.empty()) open_replay(0, m_common_start);
            m_traffic_at_start = m_client->stats().traffic;
            const double frame_ms = 1000.0 / m_emulator.frames_per_second();
            log_info("session started: input delay {} frames ({:.0f} ms)", event.delay,
                     event.delay * frame_ms);
            note_delay(event.delay);
            break;
        }
        case Type::kDelayChanged:
            log_info("input delay {} frames from frame {}", event.delay, event.frame);
            note_delay(event.delay);
            break;
        case Type::kPlayerLeft:
            log_info("slot {} left, neutral input from frame {}: {}", event.slot, event.frame,
                     event.message);
            break;
        case Type::kDesync: {
            ++m_summary.desyncs;
            if (!m_summary.first_desync_frame) m_summary.first_desync_frame = event.frame;
            const std::string bundle = m_bundles ? m_bundles->on_desync(*m_client, event) : "";
            log_error("desync at frame {}: slot(s) {} differ from the majority; {}", event.frame,
                      slot_list(event.differing_slots),
                      !bundle.empty() ? "its bundle for a core developer goes to " + bundle
                      : m_bundles ? fmt::format("no bundle (one per desync frame, {} a session)",
                                                DesyncBundles::kMaxPerSession)
                                  : std::string("no bundle (--desync-bundle is off)"));
            break;
        }
        case Type::kJoining:
            log_info("{}", event.message);
            m_transfer_on_tty = isatty(2) && log_level() <= LogLevel::kInfo;
            break;
        case Type::kJoined: {
            show_transfer_progress(1.0);
            if (m_transfer_bar) m_transfer_bar->done();
            m_summary.started = true;
            m_summary.late_join = true;
            m_summary.first_frame = event.frame;
            m_summary.join_seconds = seconds(now - m_created_at);
            m_started_at = now;
            m_traffic_at_start = m_client->stats().traffic;
            log_info("{} ({:.1f} ms after connecting; input delay {} frames)", event.message,
                     m_summary.join_seconds * 1000, event.delay);
            note_delay(event.delay);
            if (!m_config.record_path.empty()) {
                if (m_recording->start_state().empty() ||
                    m_recording->start_frame() != event.frame) {
                    log_error(
                        "cannot record this late join: the state of frame {} was not captured; "
                        "the session is not recorded",
                        event.frame);
                } else {
                    open_replay(event.frame, m_recording->start_state());
                }
            }
            break;
        }
        case Type::kResynced:
            log_warn("{}", event.message);
            break;
        case Type::kModeChanged:
            log_warn("{} (the server decided at frame {})", event.message, event.frame);
            break;
        case Type::kStateError:
            log_error("state transfer: {}", event.message);
            break;
        case Type::kStartLoaded:
            show_transfer_progress(1.0);
            if (m_transfer_bar) m_transfer_bar->done();
            m_transfer_bar.reset();
            m_transfer_quarter = 0;
            log_info("{}", event.message);
            // A replay starts from the same bytes (no frame has run yet).
            if (!m_config.record_path.empty() && !m_emulator.save_state(m_common_start))
                m_common_start.clear();
            break;
        case Type::kDisconnected:
            end_of_play(now);
            m_summary.end_reason = event.message;
            // The server ended the session or gave the slot up: its token opens nothing.
            if (m_rejoin_file && m_client->closed_by_server()) m_rejoin_file->remove();
            if (m_left || m_summary.completed) {
                log_info("left the session at frame {}: {}", event.frame, event.message);
            } else if (m_summary.rejected) {
                // Already said why.
            } else {
                log_error("disconnected at frame {}: {}", event.frame, event.message);
            }
            if (!m_left) {
                m_left = true;
                m_linger_until = now;  // the server is gone or has dropped us
            }
            break;
    }
}

void ClientRunner::open_replay(std::uint32_t start_frame, std::vector<std::uint8_t> start_state) {
    netplay::ReplayHeader header;
    header.identity = session_identity(m_emulator);
    header.players = static_cast<std::uint8_t>(m_client->players());
    // A late joiner's replay starts from the state it was sent: the format carries a start
    // state, and `replay play` loads it before the first frame.
    header.start_frame = start_frame;
    header.start_state = std::move(start_state);
    auto writer = ReplayWriter::open(m_config.record_path, header);
    if (writer) {
        m_replay = std::move(writer).value();
        m_recording->record_to(m_replay.get());
        if (start_frame > 0) {
            log_info("recording the session to {} from frame {} (with its {}-byte state)",
                     m_config.record_path, start_frame, header.start_state.size());
        } else {
            log_info("recording the session to {}", m_config.record_path);
        }
    } else {
        m_recording->record_to(nullptr);
        log_error("{}; the session is not recorded", writer.error().message);
    }
}

void ClientRunner::show_transfer_progress(std::optional<double> fraction) {
    const double done = std::clamp(fraction.value_or(m_client->transfer_progress()), 0.0, 1.0);
    if (m_transfer_on_tty) {
        // Drawn once the first bytes are in: until then log lines ("receiving the state of
        // frame N") still come, and would land on the bar's line.
        if (!m_transfer_bar && done > 0) {
            // Per mille of the compressed state received.
            m_transfer_bar = std::make_unique<ProgressBar>("state", 1000, true);
        }
        if (m_transfer_bar) m_transfer_bar->update(static_cast<std::uint64_t>(done * 1000));
        return;
    }
    // Not a terminal: a line per quarter keeps logs short and still shows a stuck transfer.
    const int quarter = static_cast<int>(done * 4);
    while (m_transfer_quarter < quarter) {
        ++m_transfer_quarter;
        log_info("receiving the session's state: {}%", m_transfer_quarter * 25);
    }
}

bool ClientRunner::finished() const {
    return m_left && m_clock.now_us() >= m_linger_until;
}

Micros ClientRunner::next_wakeup() const {
    const Micros now = m_clock.now_us();
    if (m_left) return std::min(m_linger_until, now + 10'000);
    const Micros wake = m_client->next_wakeup();
    if (wake > now) return wake;
    // Due but not run: either the catch-up limit was hit (run on at once) or the frame is
    // waiting for inputs (sleep until a datagram arrives, briefly).
    if (m_last_ran > 0) return now;
    return now + kStallWaitUs;
}

bool ClientRunner::wait(Micros max_wait) {
    return m_transport->wait(max_wait);
}

Status ClientRunner::finish() {
    // A bundle still waiting for a state writes what it has.
    if (m_bundles) m_bundles->poll(*m_client, true);
    m_summary.frames_run = m_summary.stats.frames_run;
    m_summary.frames_logged = m_recording->logged();
    m_summary.slot = m_client->slot();
    m_summary.players = m_client->players();
    if (m_started_at >= 0 && m_ended_at > m_started_at) {
        m_summary.running_seconds = seconds(m_ended_at - m_started_at);
        m_summary.rates =
            traffic_rates(m_traffic_at_start, m_traffic_at_end, m_summary.running_seconds);
    }
    if (m_summary.end_reason.empty()) m_summary.end_reason = m_client->end_reason();
    if (m_hash_log) {
        Status closed = m_hash_log->close();
        if (!closed) return closed;
    }
    if (m_replay) {
        m_recording->record_to(nullptr);
        Status closed = m_replay->close();
        if (!closed) return closed;
        log_info("replay written: {}", m_config.record_path);
    }
    if (m_config.screenshot_frame) {
        const Image& picture = m_recording->picture();
        if (picture.width == 0) {
            return make_error(ErrorCode::kIo,
                              fmt::format("no picture of frame {} for {}: the session ended "
                                          "before it, or the core showed none",
                                          *m_config.screenshot_frame, m_config.screenshot_path));
        }
        return write_png(m_config.screenshot_path, picture);
    }
    return {};
}

ClientRunSummary ClientRunner::summary() const {
    return m_summary;
}

}  // namespace framelock::frontend
