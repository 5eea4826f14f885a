// The state-transfer half of Client: the snapshots a player keeps, uploading one when the
// server asks, joining a running session from one, and replacing a divergent state with
// the reference's (resync), naming the memory that differed.
#include <algorithm>

#include "netplay/client/client.h"
#include "netplay/determinism/synctest.h"

namespace framelock::netplay {

void Client::after_frame(std::uint32_t frame, const InputFrame& inputs) {
    if (spectator()) return;
    // Confirmed inputs since the oldest snapshot, for re-running after a resync.
    if (m_history.empty()) m_history_base = frame;
    m_history.push_back(inputs);
    const std::uint32_t next = frame + 1;
    const std::uint32_t si = m_welcome.snapshot_interval;
    const bool pending_here = m_pending_request && m_pending_request->frame == next;
    if (frame % si == 0 || pending_here) {
        std::vector<std::uint8_t> state;
        if (m_emulator.save_state(state)) take_snapshot(next, std::move(state));
    }
    if (pending_here) {
        const StateRequest request = *m_pending_request;
        m_pending_request.reset();
        handle_state_request(request);
    }
}

void Client::take_snapshot(std::uint32_t next_frame, std::vector<std::uint8_t> state) {
    if (!m_snapshots.empty() && m_snapshots.back().frame == next_frame) return;
    m_snapshots.push_back({next_frame, std::move(state)});
    while (m_snapshots.size() > static_cast<std::size_t>(std::max(1, m_config.snapshots_kept)))
        m_snapshots.pop_front();
    // Inputs older than the oldest snapshot can never be re-run.
    const std::uint32_t oldest = m_snapshots.front().frame;
    while (!m_history.empty() && Frame(m_history_base) < Frame(oldest)) {
        m_history.pop_front();
        ++m_history_base;
    }
}

void Client::handle_state_request(const StateRequest& request) {
    StateHeader none;
    none.transfer_id = request.transfer_id;
    none.available = false;
    none.frame = request.frame;
    if (spectator()) return;
    if (m_state == State::kLobby) {
        // Before the start: the session's start state, this emulator's right after power-on
        // (none when the core cannot save its state).
        std::vector<std::uint8_t> state;
        if (request.frame == 0 && m_frames.next_frame() == 0 && m_emulator.save_state(state)) {
            upload(request.transfer_id, 0, state);
            apply_start(std::move(state));  // the same bytes the others load
        } else {
            m_link.send(Channel::kBulk, encode(none));
        }
        return;
    }
    if (m_state != State::kRunning) return;
    for (const Snapshot& snapshot : m_snapshots) {
        if (snapshot.frame == request.frame) {
            upload(request.transfer_id, snapshot.frame, snapshot.state);
            return;
        }
    }
    const std::uint32_t reached = m_welcome.mode == SessionMode::kRollback
                                      ? m_rollback.verified_end()
                                      : m_frames.next_frame();
    if (Frame(request.frame) > Frame(reached)) {
        m_pending_request = request;  // taken when that frame is reached
        return;
    }
    if (request.frame == m_frames.next_frame() && m_welcome.mode != SessionMode::kRollback) {
        std::vector<std::uint8_t> state;
        if (m_emulator.save_state(state)) {
            take_snapshot(request.frame, state);
            upload(request.transfer_id, request.frame, state);
            return;
        }
    }
    m_link.send(Channel::kBulk, encode(none));
}

void Client::upload(std::uint32_t transfer_id, std::uint32_t frame,
                    const std::vector<std::uint8_t>& state) {
    m_upload.emplace(transfer_id, StatePurpose::kUpload, pack_state(state, frame));
    for (const auto& message : m_upload->take_messages()) m_link.send(Channel::kBulk, message);
}

void Client::handle_bulk(std::span<const std::uint8_t> bytes) {
    switch (*peek_id(bytes)) {
        case MsgId::kStateAck: {
            if (auto ack = decode_state_ack(bytes); ack && m_upload) m_upload->on_ack(*ack);
            return;
        }
        case MsgId::kStateHeader: {
            auto header = decode_state_header(bytes);
            if (!header || header->purpose == StatePurpose::kUpload) return;
            if (header->purpose == StatePurpose::kStart) {
                if (m_state == State::kConnecting) {
                    m_early_bulk.assign(1, std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
                    return;
                }
                if (m_state != State::kLobby || m_frames.next_frame() != 0) return;
                if (auto ok = m_rx.begin(*header); !ok) {
                    emit({ClientEvent::Type::kStateError, slot(), 0, 0, 0, ok.error().message});
                    end("the session's start state was refused: " + ok.error().message);
                    return;
                }
                emit({ClientEvent::Type::kJoining, slot(), 0, 0, 0,
                      "receiving the session's start state (" +
                          std::to_string(header->compressed_size) + " bytes)"});
                return;
            }
            if (header->purpose == StatePurpose::kJoin &&
                (m_state == State::kConnecting || m_state == State::kLobby)) {
                // The bulk channel is not ordered with the control channel: the state can
                // overtake the Welcome and Start it belongs to. Kept until they arrive.
                m_early_bulk.assign(1, std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
                return;
            }
            const bool join = header->purpose == StatePurpose::kJoin;
            if (join != (m_state == State::kJoining)) return;  // not what this client waits for
            if (auto ok = m_rx.begin(*header); !ok) {
                emit({ClientEvent::Type::kStateError, slot(), header->frame, 0, 0,
                      ok.error().message});
                if (join) end("the session's state was refused: " + ok.error().message);
                return;
            }
            if (join) {
                // Confirmed inputs from the state's frame on are collected from now.
                m_join_header = true;
                m_frames.join(header->frame, header->delay);
                m_first_frame = header->frame;
                // Frames before the state are final. (Rollback players never join late, but
                // a server saying so must not leave the rollback bookkeeping at frame 0.)
                m_rollback.join(header->frame);
                emit({ClientEvent::Type::kJoining, slot(), header->frame, 0, 0,
                      "receiving the state of frame " + std::to_string(header->frame) + " (" +
                          std::to_string(header->compressed_size) + " bytes)"});
            }
            return;
        }
        case MsgId::kStateChunk: {
            auto chunk = decode_state_chunk(bytes);
            if (!m_early_bulk.empty() && !m_rx.active()) {
                // Bounded by the largest state there is.
                if (m_early_bulk.size() <= kMaxStateBytes / kStateChunkBytes + 1)
                    m_early_bulk.emplace_back(bytes.begin(), bytes.end());
                return;
            }
            if (!chunk || !m_rx.active()) return;
            const bool start = m_rx.header().purpose == StatePurpose::kStart;
            auto ack = m_rx.add(*chunk);
            if (!ack) {
                emit({ClientEvent::Type::kStateError, slot(), m_rx.header().frame, 0, 0,
                      ack.error().message});
                if (m_state == State::kJoining || start)
                    end((start ? "receiving the start state failed: " : "joining failed: ") +
                        ack.error().message);
                return;
            }
            m_link.send(Channel::kBulk, encode(ack.value()));
            if (!m_rx.complete()) return;
            const StateHeader header = m_rx.header();
            auto raw = m_rx.finish();
            m_rx.reset();
            if (!raw) {
                emit({ClientEvent::Type::kStateError, slot(), header.frame, 0, 0,
                      raw.error().message});
                if (m_state == State::kJoining || start)
                    end((start ? "receiving the start state failed: " : "joining failed: ") +
                        raw.error().message);
                return;
            }
            if (start) {
                // Only before frame 0: a start state completing later is never loaded.
                if (m_state == State::kLobby && m_frames.next_frame() == 0)
                    apply_start(std::move(raw).value());
            } else if (header.purpose == StatePurpose::kJoin) {
                apply_join(std::move(raw).value());
            } else if (Frame(header.frame) > Frame(m_frames.next_frame())) {
                m_resync_waiting.emplace(header.frame, std::move(raw).value());
            } else {
                apply_resync(header.frame, raw.value());
            }
            return;
        }
        default:
            return;
    }
}

void Client::apply_join(std::vector<std::uint8_t> state) {
    if (!m_emulator.load_state(state)) {
        end("the session's state of frame " + std::to_string(m_first_frame) +
            " does not load into this core (" + std::to_string(state.size()) +
            " bytes): is it the same core version?");
        return;
    }
    // No `before`: a field a load resets to its power-on value would look not restored.
    report_moved(state, m_first_frame, {});
    m_emulator.rewind_to(m_first_frame);
    m_snapshots.clear();
    m_history.clear();
    m_history_base = m_first_frame;
    take_snapshot(m_first_frame, std::move(state));
    // From the present on, this player's pad is sampled like everyone's.
    const Micros now = m_clock.now_us();
    const std::uint32_t present = timeline().scheduled_frame(now) + 1;
    m_pad.join(Frame(present) > Frame(m_first_frame) ? present : m_first_frame);
    m_rollback.forget_own();
    m_frames.forget_stall();
    m_state = State::kRunning;
    emit({ClientEvent::Type::kJoined, slot(), m_first_frame, delay_at(m_first_frame), 0,
          "joined at frame " + std::to_string(m_first_frame)});
}

void Client::apply_start(std::vector<std::uint8_t> state) {
    if (!m_emulator.load_state(state)) {
        end("the session's start state does not load into this core (" +
            std::to_string(state.size()) + " bytes): is it the same core version?");
        return;
    }
    report_moved(state, 0, {});  // as for a join: the machine before is its power-on
    m_emulator.rewind_to(0);
    m_snapshots.clear();
    m_history.clear();
    m_history_base = 0;
    const std::size_t size = state.size();
    take_snapshot(0, std::move(state));
    emit({ClientEvent::Type::kStartLoaded, slot(), 0, 0, 0,
          "loaded the session's start state (" + std::to_string(size) +
              " bytes): every player starts from the same bytes"});
}

void Client::report_moved(std::span<const std::uint8_t> state, std::uint32_t frame,
                          std::span<const std::uint8_t> before) {
    if (spectator()) return;  // reports no hashes
    m_link.send(Channel::kControl, encode(probe_moved_bytes(m_emulator, state, frame, before)));
}

bool Client::apply_resync(std::uint32_t frame, const std::vector<std::uint8_t>& state) {
    const auto fail = [&](const std::string& why) {
        emit({ClientEvent::Type::kStateError, slot(), frame, 0, 0, "resync refused: " + why});
        return false;
    };
    if (m_welcome.mode == SessionMode::kRollback) return fail("not supported in rollback sessions");
    if (Frame(frame) < Frame(m_history_base) ||
        Frame(m_history_base) + static_cast<std::int32_t>(m_history.size()) !=
            Frame(m_frames.next_frame()))
        return fail("the inputs since frame " + std::to_string(frame) + " are no longer held");
    // What differed: this client's own state of that frame against the reference.
    std::string regions;
    std::vector<std::uint8_t> current;
    const bool have_current = m_emulator.save_state(current);
    for (const Snapshot& own : m_snapshots) {
        if (own.frame != frame || !m_emulator.load_state(own.state)) continue;
        const auto mine = copy_regions(m_emulator);
        if (m_emulator.load_state(state)) {
            const auto diffs = diff_regions(mine, copy_regions(m_emulator));
            regions = diffs.empty() ? "no memory region differs (the difference is in state "
                                      "the core does not expose)"
                                    : describe_regions(diffs);
        }
        break;
    }
    if (!m_emulator.load_state(state)) {
        if (have_current) m_emulator.load_state(current);
        return fail("the reference state does not load (" + std::to_string(state.size()) +
                    " bytes)");
    }
    report_moved(
        state, frame,
        have_current ? std::span<const std::uint8_t>(current) : std::span<const std::uint8_t>());
    m_emulator.rewind_to(frame);
    // Re-run to the present on the confirmed inputs, retaking the snapshots on the way.
    std::deque<Snapshot> kept;
    for (Snapshot& s : m_snapshots) {
        if (Frame(s.frame) < Frame(frame)) kept.push_back(std::move(s));
    }
    m_snapshots = std::move(kept);
    take_snapshot(frame, state);
    const std::uint32_t si = m_welcome.snapshot_interval;
    for (std::uint32_t f = frame; Frame(f) < Frame(m_frames.next_frame()); ++f) {
        m_emulator.run_frame(m_history[f - m_history_base], false);
        if (f % si == 0) {
            std::vector<std::uint8_t> snap;
            if (m_emulator.save_state(snap)) take_snapshot(f + 1, std::move(snap));
        }
    }
    ResyncReport report;
    report.frame = frame;
    report.desync_frame = m_last_desync_frame;
    report.resumed_frame = m_frames.next_frame();
    report.regions = regions;
    m_link.send(Channel::kControl, encode(report));
    emit({ClientEvent::Type::kResynced, slot(), frame, 0, 0,
          "resynced from the reference state of frame " + std::to_string(frame) +
              " (desync first seen at frame " + std::to_string(m_last_desync_frame) +
              "; re-ran to frame " + std::to_string(m_frames.next_frame()) +
              "); differing memory: " +
              (regions.empty() ? "unknown (no own snapshot of that frame)" : regions)});
    return true;
}

}  // namespace framelock::netplay
