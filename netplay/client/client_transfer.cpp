#include "netplay/client/client_transfer.h"

#include <algorithm>
#include <string>

#include "netplay/determinism/evidence.h"
#include "netplay/determinism/synctest.h"

namespace framelock::netplay {
namespace {
// The answer to a request for a state this client does not hold.
StateHeader unavailable(const StateRequest& request) {
    StateHeader none;
    none.transfer_id = request.transfer_id;
    none.available = false;
    none.frame = request.frame;
    return none;
}
}  // namespace

void ClientTransfer::configure(const Welcome& welcome) {
    m_slot = welcome.slot;
    m_spectator = welcome.role == Role::kSpectator;
    m_mode = welcome.mode;
    m_snapshot_interval = welcome.snapshot_interval;
}

std::vector<std::vector<std::uint8_t>> ClientTransfer::take_early() {
    auto early = std::move(m_early_bulk);
    m_early_bulk.clear();
    return early;
}

void ClientTransfer::emit(std::deque<ClientEvent>& events, ClientEvent::Type type,
                          std::uint32_t frame, std::string message) const {
    events.push_back({type, m_slot, frame, 0, 0, std::move(message)});
}

void ClientTransfer::after_frame(std::uint32_t frame, const InputFrame& inputs,
                                 std::vector<std::uint8_t> state, const Position& position,
                                 ClientLink& link) {
    if (m_spectator) return;
    // Confirmed inputs since the oldest snapshot, for re-running after a resync.
    if (m_history.empty()) m_history_base = frame;
    m_history.push_back(inputs);
    if (!state.empty()) take_snapshot(frame + 1, std::move(state));
    serve_pending(position, link);
}

bool ClientTransfer::wants_snapshot(std::uint32_t frame) const {
    return frame % m_snapshot_interval == 0 ||
           (m_pending_request && m_pending_request->frame == frame + 1);
}

void ClientTransfer::take_snapshot(std::uint32_t next_frame, std::vector<std::uint8_t> state) {
    if (!m_snapshots.empty() && m_snapshots.back().frame == next_frame) return;
    m_snapshots.push_back({next_frame, std::move(state)});
    while (m_snapshots.size() > static_cast<std::size_t>(std::max(1, m_snapshots_kept)))
        m_snapshots.pop_front();
    // Inputs older than the oldest snapshot can never be re-run.
    const std::uint32_t oldest = m_snapshots.front().frame;
    while (!m_history.empty() && Frame(m_history_base) < Frame(oldest)) {
        m_history.pop_front();
        ++m_history_base;
    }
}

const std::vector<std::uint8_t>* ClientTransfer::snapshot_of(std::uint32_t frame) const {
    for (const Snapshot& snapshot : m_snapshots) {
        if (snapshot.frame == frame) return &snapshot.state;
    }
    return nullptr;
}

void ClientTransfer::serve_pending(const Position& position, ClientLink& link) {
    if (!m_pending_request || m_pending_request->frame != position.final_end) return;
    const StateRequest request = *m_pending_request;
    m_pending_request.reset();
    serve(request, position, link);
}

Status ClientTransfer::on_request(const StateRequest& request, const Position& position,
                                  ClientLink& link, std::deque<ClientEvent>& events) {
    if (m_spectator) return {};
    if (position.stage == Stage::kLobby) {
        // Before the start: the session's start state, this emulator's right after power-on
        // (none when the core cannot save its state).
        std::vector<std::uint8_t> state;
        if (request.frame == 0 && position.next_frame == 0 && m_emulator.save_state(state)) {
            upload(request.transfer_id, 0, state, link);
            return load_start(std::move(state), link, events);  // the same bytes the others load
        }
        link.send(Channel::kBulk, encode(unavailable(request)));
        return {};
    }
    if (position.stage == Stage::kRunning) serve(request, position, link);
    return {};
}

void ClientTransfer::serve(const StateRequest& request, const Position& position,
                           ClientLink& link) {
    for (const Snapshot& snapshot : m_snapshots) {
        if (snapshot.frame == request.frame) {
            upload(request.transfer_id, snapshot.frame, snapshot.state, link);
            return;
        }
    }
    if (Frame(request.frame) > Frame(position.final_end)) {
        m_pending_request = request;  // taken when that frame is reached
        return;
    }
    if (request.frame == position.next_frame && m_mode != SessionMode::kRollback) {
        std::vector<std::uint8_t> state;
        if (m_emulator.save_state(state)) {
            take_snapshot(request.frame, state);
            upload(request.transfer_id, request.frame, state, link);
            return;
        }
    }
    link.send(Channel::kBulk, encode(unavailable(request)));
}

void ClientTransfer::upload(std::uint32_t transfer_id, std::uint32_t frame,
                            const std::vector<std::uint8_t>& state, ClientLink& link) {
    m_upload.emplace(transfer_id, StatePurpose::kUpload, pack_state(state, frame));
    for (const auto& message : m_upload->take_messages()) link.send(Channel::kBulk, message);
}

void ClientTransfer::pump(ClientLink& link) {
    if (!m_upload) return;  // a state the server asked for (before the start too)
    for (const auto& message : m_upload->take_messages()) link.send(Channel::kBulk, message);
    if (m_upload->done()) m_upload.reset();
}

ClientTransfer::Received ClientTransfer::receive(std::span<const std::uint8_t> bytes,
                                                 const Position& position, ClientLink& link,
                                                 std::deque<ClientEvent>& events) {
    const Stage stage = position.stage;
    Received received;
    const auto fail = [&](std::string reason) {
        received.status = make_error(ErrorCode::kState, std::move(reason));
        return received;
    };
    switch (*peek_id(bytes)) {
        case MsgId::kStateAck: {
            if (auto ack = decode_state_ack(bytes); ack && m_upload) m_upload->on_ack(*ack);
            return received;
        }
        case MsgId::kStateHeader: {
            auto header = decode_state_header(bytes);
            if (!header || header->purpose == StatePurpose::kUpload) return received;
            if (header->purpose == StatePurpose::kStart) {
                if (stage == Stage::kConnecting) {
                    m_early_bulk.assign(1, std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
                    return received;
                }
                if (stage != Stage::kLobby || position.next_frame != 0) return received;
                if (auto ok = m_rx.begin(*header); !ok) {
                    emit(events, ClientEvent::Type::kStateError, 0, ok.error().message);
                    return fail("the session's start state was refused: " + ok.error().message);
                }
                emit(events, ClientEvent::Type::kJoining, 0,
                     "receiving the session's start state (" +
                         std::to_string(header->compressed_size) + " bytes)");
                return received;
            }
            if (header->purpose == StatePurpose::kJoin &&
                (stage == Stage::kConnecting || stage == Stage::kLobby)) {
                // The bulk channel is not ordered with the control channel: the state can
                // overtake the Welcome and Start it belongs to. Kept until they arrive.
                m_early_bulk.assign(1, std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
                return received;
            }
            const bool join = header->purpose == StatePurpose::kJoin;
            // Not what this client waits for.
            if (join != (stage == Stage::kJoining)) return received;
            if (auto ok = m_rx.begin(*header); !ok) {
                emit(events, ClientEvent::Type::kStateError, header->frame, ok.error().message);
                if (join) return fail("the session's state was refused: " + ok.error().message);
                return received;
            }
            if (join) {
                m_join_header = true;
                m_first_frame = header->frame;
                received.join_header = *header;
                emit(events, ClientEvent::Type::kJoining, header->frame,
                     "receiving the state of frame " + std::to_string(header->frame) + " (" +
                         std::to_string(header->compressed_size) + " bytes)");
            }
            return received;
        }
        case MsgId::kStateChunk: {
            auto chunk = decode_state_chunk(bytes);
            if (!m_early_bulk.empty() && !m_rx.active()) {
                // Bounded by the largest state there is.
                if (m_early_bulk.size() <= kMaxStateBytes / kStateChunkBytes + 1)
                    m_early_bulk.emplace_back(bytes.begin(), bytes.end());
                return received;
            }
            if (!chunk || !m_rx.active()) return received;
            const bool start = m_rx.header().purpose == StatePurpose::kStart;
            const char* failed = start ? "receiving the start state failed: " : "joining failed: ";
            auto ack = m_rx.add(*chunk);
            if (!ack) {
                emit(events, ClientEvent::Type::kStateError, m_rx.header().frame,
                     ack.error().message);
                if (stage == Stage::kJoining || start) return fail(failed + ack.error().message);
                return received;
            }
            link.send(Channel::kBulk, encode(ack.value()));
            if (!m_rx.complete()) return received;
            const StateHeader header = m_rx.header();
            auto raw = m_rx.finish();
            m_rx.reset();
            if (!raw) {
                emit(events, ClientEvent::Type::kStateError, header.frame, raw.error().message);
                if (stage == Stage::kJoining || start) return fail(failed + raw.error().message);
                return received;
            }
            if (start) {
                // Only before frame 0: a start state completing later is never loaded.
                if (stage == Stage::kLobby && position.next_frame == 0)
                    received.status = load_start(std::move(raw).value(), link, events);
            } else if (header.purpose == StatePurpose::kJoin) {
                received.status = load_join(std::move(raw).value(), link);
                received.joined = received.status.ok();
            } else if (Frame(header.frame) > Frame(position.next_frame)) {
                m_resync_waiting.emplace(header.frame, std::move(raw).value());
            } else {
                resync(header.frame, raw.value(), position.next_frame, link, events);
            }
            return received;
        }
        default:
            return received;
    }
}

Status ClientTransfer::load_join(std::vector<std::uint8_t> state, ClientLink& link) {
    if (!m_emulator.load_state(state)) {
        return make_error(ErrorCode::kState,
                          "the session's state of frame " + std::to_string(m_first_frame) +
                              " does not load into this core (" + std::to_string(state.size()) +
                              " bytes): is it the same core version?");
    }
    // No `before`: a field a load resets to its power-on value would look not restored.
    report_moved(state, m_first_frame, {}, link);
    m_emulator.rewind_to(m_first_frame);
    m_snapshots.clear();
    m_history.clear();
    m_history_base = m_first_frame;
    take_snapshot(m_first_frame, std::move(state));
    return {};
}

Status ClientTransfer::load_start(std::vector<std::uint8_t> state, ClientLink& link,
                                  std::deque<ClientEvent>& events) {
    if (!m_emulator.load_state(state)) {
        return make_error(ErrorCode::kState,
                          "the session's start state does not load into this core (" +
                              std::to_string(state.size()) +
                              " bytes): is it the same core version?");
    }
    report_moved(state, 0, {}, link);  // as for a join: the machine before is its power-on
    m_emulator.rewind_to(0);
    m_snapshots.clear();
    m_history.clear();
    m_history_base = 0;
    const std::size_t size = state.size();
    take_snapshot(0, std::move(state));
    emit(events, ClientEvent::Type::kStartLoaded, 0,
         "loaded the session's start state (" + std::to_string(size) +
             " bytes): every player starts from the same bytes");
    return {};
}

void ClientTransfer::report_moved(std::span<const std::uint8_t> state, std::uint32_t frame,
                                  std::span<const std::uint8_t> before, ClientLink& link) {
    if (m_spectator) return;  // reports no hashes
    link.send(Channel::kControl, encode(probe_moved_bytes(m_emulator, state, frame, before)));
}

void ClientTransfer::resync_if_due(const Position& position, ClientLink& link,
                                   std::deque<ClientEvent>& events) {
    if (!m_resync_waiting || m_resync_waiting->first != position.next_frame) return;
    auto waiting = std::move(*m_resync_waiting);
    m_resync_waiting.reset();
    resync(waiting.first, waiting.second, position.next_frame, link, events);
}

void ClientTransfer::resync(std::uint32_t frame, const std::vector<std::uint8_t>& state,
                            std::uint32_t next_frame, ClientLink& link,
                            std::deque<ClientEvent>& events) {
    const auto fail = [&](const std::string& why) {
        emit(events, ClientEvent::Type::kStateError, frame, "resync refused: " + why);
    };
    if (m_mode == SessionMode::kRollback) return fail("not supported in rollback sessions");
    if (Frame(frame) < Frame(m_history_base) ||
        Frame(m_history_base) + static_cast<std::int32_t>(m_history.size()) != Frame(next_frame))
        return fail("the inputs since frame " + std::to_string(frame) + " are no longer held");
    // What differed: this client's own state of that frame against the reference.
    std::string regions;
    ResyncEvidence evidence;
    evidence.frame = frame;
    evidence.desync_frame = m_last_desync_frame;
    std::vector<std::uint8_t> current;
    const bool have_current = m_emulator.save_state(current);
    for (const Snapshot& own : m_snapshots) {
        if (own.frame != frame || !m_emulator.load_state(own.state)) continue;
        evidence.own_state = own.state;
        evidence.own_regions = copy_regions(m_emulator);
        if (m_emulator.load_state(state)) {
            const auto diffs = diff_regions(evidence.own_regions, copy_regions(m_emulator));
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
    evidence.reference_state = state;
    evidence.reference_regions = copy_regions(m_emulator);
    m_last_resync = std::move(evidence);
    report_moved(
        state, frame,
        have_current ? std::span<const std::uint8_t>(current) : std::span<const std::uint8_t>(),
        link);
    m_emulator.rewind_to(frame);
    // Re-run to the present on the confirmed inputs, retaking the snapshots on the way.
    std::deque<Snapshot> kept;
    for (Snapshot& s : m_snapshots) {
        if (Frame(s.frame) < Frame(frame)) kept.push_back(std::move(s));
    }
    m_snapshots = std::move(kept);
    take_snapshot(frame, state);
    const std::uint32_t si = m_snapshot_interval;
    for (std::uint32_t f = frame; Frame(f) < Frame(next_frame); ++f) {
        m_emulator.run_frame(m_history[f - m_history_base], false);
        if (f % si == 0) {
            std::vector<std::uint8_t> snap;
            if (m_emulator.save_state(snap)) take_snapshot(f + 1, std::move(snap));
        }
    }
    ResyncReport report;
    report.frame = frame;
    report.desync_frame = m_last_desync_frame;
    report.resumed_frame = next_frame;
    report.regions = regions;
    link.send(Channel::kControl, encode(report));
    emit(events, ClientEvent::Type::kResynced, frame,
         "resynced from the reference state of frame " + std::to_string(frame) +
             " (desync first seen at frame " + std::to_string(m_last_desync_frame) +
             "; re-ran to frame " + std::to_string(next_frame) + "); differing memory: " +
             (regions.empty() ? "unknown (no own snapshot of that frame)" : regions));
}

}  // namespace framelock::netplay
