// State transfers (state_transfers.h): asking a player for its state, receiving it in chunks,
// and sending it to joiners, rejoiners and divergent players (and, before the start, the
// common start state to every member).
#include "netplay/server/state_transfers.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "netplay/determinism/evidence.h"
#include "netplay/determinism/state_hash.h"
#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

using namespace server_tuning;

StateTransfers::StateTransfers(Transport& transport, const Clock& clock, const ServerConfig& config,
                               ServerEvents& events)
    : m_transport(transport), m_clock(clock), m_config(config), m_events(events) {
    // Snapshots fall on keyframes (a joiner needs that keyframe's delay) and on hash frames
    // (a resync compares a hashed state), at least half a second apart.
    const std::uint32_t key = m_config.keyframe_interval;
    const std::uint32_t hash = std::max<std::uint32_t>(m_config.hash_interval, 1);
    std::uint32_t step = std::lcm(key, hash);
    std::uint32_t interval = step;
    const std::uint32_t wanted = std::max<std::uint32_t>(m_config.snapshot_interval, 30);
    while (interval < wanted) interval += step;
    m_snapshot_interval = static_cast<std::uint16_t>(std::min<std::uint32_t>(interval, 60000));
}

void StateTransfers::request_state(std::uint32_t frame, int prefer_slot,
                                   std::span<const ServerSlot> players) {
    // Ask one playing slot: the preferred one, else the lowest (the host) that did not just
    // fail, else any.
    int reference = prefer_slot && players[prefer_slot - 1].active() ? prefer_slot : 0;
    for (int pass = 0; pass < 2 && !reference; ++pass) {
        for (int s = 1; s <= static_cast<int>(players.size()) && !reference; ++s) {
            if (players[s - 1].active() && (pass == 1 || s != m_bad_reference)) reference = s;
        }
    }
    if (!reference) return;  // nobody to ask: asked again on the next update
    Upload upload;
    upload.slot = reference;
    upload.id = m_next_transfer_id++;
    upload.frame = frame;
    upload.asked_at = m_clock.now_us();
    m_upload = upload;
    m_upload_rx.reset();
    m_transport.send(players[reference - 1].peer, Channel::kControl,
                     encode(StateRequest{upload.id, frame}));
}

StateTransfers::Bulk StateTransfers::handle_bulk(ServerSlot& slot, int number,
                                                 std::span<const std::uint8_t> bytes, bool started,
                                                 std::uint32_t confirmed_end,
                                                 const DelaySchedule& schedule,
                                                 std::span<ServerSlot> players,
                                                 std::vector<ServerSlot>& spectators) {
    const auto refuse = [&](const std::string& why) {
        m_events.emit({ServerEvent::Type::kRefused, number, m_upload ? m_upload->frame : 0, 0, 0,
                       "state upload from " + slot.name + " refused: " + why});
        m_upload.reset();
        m_upload_rx.reset();
        distrust(number, players);
        return Bulk::kTaken;
    };
    switch (*peek_id(bytes)) {
        case MsgId::kStateAck: {
            auto ack = decode_state_ack(bytes);
            if (!ack) return refuse("malformed StateAck");
            if (slot.transfer.m_sender) slot.transfer.m_sender->on_ack(*ack);
            return Bulk::kTaken;
        }
        case MsgId::kStateHeader: {
            auto header = decode_state_header(bytes);
            const bool expected = m_upload && number == m_upload->slot && header &&
                                  header->transfer_id == m_upload->id &&
                                  header->purpose == StatePurpose::kUpload;
            if (!expected) {
                m_events.emit({ServerEvent::Type::kRefused, number, 0, 0, 0,
                               "unrequested state from " + slot.name + " dropped"});
                return Bulk::kMalformed;
            }
            if (!header->available && !started) {
                // The core cannot save its state: no common start.
                m_upload.reset();
                m_start_state_refused = true;
                m_events.emit({ServerEvent::Type::kRefused, number, 0, 0, 0,
                               "no common start state: " + slot.name +
                                   "'s core cannot save its state, so every player starts from "
                                   "its own power-on state (a core that keeps a clock or "
                                   "leftover memory in its state may then report desyncs that "
                                   "are not)"});
                return Bulk::kTaken;
            }
            if (!header->available) {
                // It no longer holds that frame: ask for the next snapshot instead.
                m_upload.reset();
                const std::uint32_t si = m_snapshot_interval;
                request_state((confirmed_end + si - 1) / si * si + 1, number, players);
                return Bulk::kTaken;
            }
            if (auto ok = m_upload_rx.begin(*header); !ok) return refuse(ok.error().message);
            m_upload->frame = header->frame;
            return Bulk::kTaken;
        }
        case MsgId::kStateChunk: {
            auto chunk = decode_state_chunk(bytes);
            if (!m_upload || number != m_upload->slot || !m_upload_rx.active())
                return Bulk::kMalformed;
            if (!chunk) return refuse("malformed StateChunk");
            auto ack = m_upload_rx.add(*chunk);
            if (!ack) return refuse(ack.error().message);
            m_upload->asked_at = m_clock.now_us();  // the timeout is for a stalled upload
            m_transport.send(slot.peer, Channel::kBulk, encode(ack.value()));
            if (!m_upload_rx.complete()) return Bulk::kTaken;
            // Checked here, once, before anyone else receives it: bounded inflate + CRC (and,
            // once its frame's vote settled, its hash: serve()).
            auto raw = m_upload_rx.finish();
            if (!raw) return refuse(raw.error().message);
            PackedState packed = m_upload_rx.packed();
            m_upload.reset();
            m_upload_rx.reset();
            if (!started) {
                // Before frame 0 nobody has hashed anything to check it against: the start
                // state is the power-on state of the player asked (docs/netplay.md).
                m_bad_reference = 0;
                // The start state: to every other member (its source loaded it already).
                m_events.emit({ServerEvent::Type::kStateSent, number, 0, 0, 0,
                               "start state from " + slot.name + " (" +
                                   std::to_string(packed.raw_size) + " bytes, " +
                                   std::to_string(packed.compressed->size()) +
                                   " compressed) to every player"});
                m_start_state = std::move(packed);
                slot.transfer.m_start_loaded = true;  // it loaded the bytes it sent
                for (ServerSlot& player : players) offer_start_state(player, started);
                for (ServerSlot& spectator : spectators) offer_start_state(spectator, started);
                return Bulk::kTaken;
            }
            packed.delay = schedule.delay_in_force(packed.frame);
            m_received =
                Received{number, std::move(packed), std::move(raw).value(), m_clock.now_us()};
            return Bulk::kCached;
        }
        default:
            return Bulk::kTaken;
    }
}

bool StateTransfers::busy(const TransferRecord& record, int number) const {
    return record.m_sender.has_value() || (m_upload && number != 0 && m_upload->slot == number);
}

std::optional<Micros> StateTransfers::upload_expiry() const {
    if (m_received) return m_received->at + m_config.state_request_timeout_us + 1;
    if (!m_upload) return std::nullopt;
    return m_upload->asked_at + m_config.state_request_timeout_us + 1;
}

void StateTransfers::forget_upload_from(int number) {
    if (m_upload && m_upload->slot == number) m_upload.reset();
    if (m_received && m_received->slot == number) m_received.reset();
}

bool StateTransfers::expire_upload(const char* what, std::span<const ServerSlot> players) {
    if (!m_upload || m_clock.now_us() - m_upload->asked_at <= m_config.state_request_timeout_us)
        return false;
    m_events.emit({ServerEvent::Type::kRefused, m_upload->slot, m_upload->frame, 0, 0,
                   std::string("no ") + what + " from " + players[m_upload->slot - 1].name +
                       " within " + std::to_string(m_config.state_request_timeout_us / 1000) +
                       " ms; asking again"});
    const int slot = m_upload->slot;
    m_upload.reset();
    m_upload_rx.reset();
    distrust(slot, players);
    return true;
}

void StateTransfers::distrust(int number, std::span<const ServerSlot> players) {
    m_bad_reference = number;
    if (!m_repair || m_repair->sent || m_repair->reference != number) return;
    m_repair->holders &= static_cast<std::uint8_t>(~(1u << (number - 1)));
    m_repair->reference = 0;
    for (int s = 1; s <= static_cast<int>(players.size()) && !m_repair->reference; ++s) {
        if ((m_repair->holders & (1u << (s - 1))) && players[s - 1].active())
            m_repair->reference = s;
    }
    if (m_repair->reference) return;
    m_events.emit({ServerEvent::Type::kRefused, 0, m_repair->state_frame, 0, 0,
                   "repair of the desync at frame " + std::to_string(m_repair->desync_frame) +
                       " given up: no other player holding the majority's state is left to "
                       "ask"});
    m_repair.reset();
}

void StateTransfers::check_received(std::span<ServerSlot> players, const HashVotes& votes) {
    if (!m_received) return;
    Received& got = *m_received;
    ServerSlot& sender = players[got.slot - 1];
    const std::uint32_t frame = got.packed.frame;
    const std::uint32_t hashed = frame - 1;  // the state of `frame` is the state after this one
    const auto accept = [&] {
        m_cached = std::move(got.packed);
        m_received.reset();
        m_bad_reference = 0;
        m_said_no_agreement = false;
    };
    // Without hash reports there is nothing to check against.
    if (m_config.hash_interval == 0) return accept();
    const HashVotes::Vote vote = votes.vote_on(hashed);
    if (vote.kind == HashVotes::Vote::Kind::kOpen) {
        if (m_clock.now_us() - got.at <= m_config.state_request_timeout_us) return;
    } else if (vote.kind == HashVotes::Vote::Kind::kSettled && vote.reference) {
        const std::uint64_t reported = vote.hashes[got.slot - 1];
        if (vote.mask.kind == EvidenceKind::kMemory) {
            // Memory evidence needs the machine: a state alone cannot be hashed that way. It
            // is used only from a player whose own report of its frame is the reference (what
            // else it holds is taken on its word: docs/netplay.md).
            if (reported == vote.reference) return accept();
            m_events.emit({ServerEvent::Type::kRefused, got.slot, frame, 0, 0,
                           "state of frame " + std::to_string(frame) + " from " + sender.name +
                               " not used: its memory hash of frame " + std::to_string(hashed) +
                               " was not the players' majority (" +
                               (reported ? hash_to_hex(reported) : std::string("none")) + ", not " +
                               hash_to_hex(vote.reference) +
                               "), and memory evidence cannot check a state; asking another "
                               "player"});
            m_received.reset();
            distrust(got.slot, players);
            return;
        }
        const std::uint64_t hash = evidence_hash(got.raw, vote.mask);
        if (hash == vote.reference) return accept();
        // Not the state the players agreed on: sent to nobody. A player whose state differs
        // as its own report said is divergent, not lying; any other is counted and named.
        const std::string head = "state of frame " + std::to_string(frame) + " from " +
                                 sender.name + " refused, sent to nobody: it hashes to " +
                                 hash_to_hex(hash) + ", not to " + hash_to_hex(vote.reference) +
                                 ", the hash the players agreed on for frame " +
                                 std::to_string(hashed);
        if (reported && hash == reported) {
            m_events.emit({ServerEvent::Type::kRefused, got.slot, frame, 0, 0,
                           head + " (its state differs, as its report said); asking another "
                                  "player"});
        } else {
            ++sender.transfer.m_states_refused;
            m_events.emit(
                {ServerEvent::Type::kRefused, got.slot, frame, 0, 0,
                 head +
                     (reported == vote.reference ? " (it reported that one too: an edited state)"
                      : reported                 ? " (it reported " + hash_to_hex(reported) + ")"
                                                 : " (it reported none)") +
                     "; asking another player"});
        }
        m_received.reset();
        distrust(got.slot, players);
        return;
    }
    // The players agreed on no state of that frame (a tie without a reference, or no report
    // of it counted): nobody is blamed, and a join waits for a later snapshot.
    if (!m_said_no_agreement) {
        m_events.emit({ServerEvent::Type::kRefused, got.slot, frame, 0, 0,
                       "state of frame " + std::to_string(frame) + " from " + sender.name +
                           " not used: the players' hashes of frame " + std::to_string(hashed) +
                           " agreed on no state to check it against; a later one is asked for"});
        m_said_no_agreement = true;
    }
    m_join_after = frame;
    m_received.reset();
    if (m_repair && !m_repair->sent && m_repair->state_frame == frame) m_repair.reset();
}

std::vector<StateTransfers::Served> StateTransfers::serve(std::span<ServerSlot> players,
                                                          std::vector<ServerSlot>& spectators,
                                                          std::uint32_t confirmed_base,
                                                          std::uint32_t confirmed_end,
                                                          const HashVotes& votes) {
    std::vector<Served> served;
    expire_upload("state", players);
    check_received(players, votes);
    const std::uint32_t si = m_snapshot_interval;
    // A cached state serves joiners while the inputs since its frame are still held and it
    // is recent (a joiner fast-forwards from it).
    const bool cache_usable =
        m_cached && Frame(m_cached->frame) >= Frame(confirmed_base) &&
        Frame(confirmed_end) - Frame(m_cached->frame) <= static_cast<std::int32_t>(4 * si + 1);
    bool need_join_state = false;
    const auto serve_join = [&](ServerSlot& member, int number) {
        if (!member.awaiting_state()) return;
        if (!cache_usable) {
            need_join_state = true;
            return;
        }
        served.push_back({&member, StatePurpose::kJoin, m_cached->frame, m_cached->raw_size});
        member.transfer.m_sender.emplace(m_next_transfer_id++, StatePurpose::kJoin, *m_cached);
        m_events.emit({ServerEvent::Type::kStateSent, number, m_cached->frame, 0, 0,
                       "state of frame " + std::to_string(m_cached->frame) + " (" +
                           std::to_string(m_cached->raw_size) + " bytes, " +
                           std::to_string(m_cached->compressed->size()) + " compressed) to " +
                           member.name});
    };
    for (int s = 1; s <= static_cast<int>(players.size()); ++s) serve_join(players[s - 1], s);
    for (ServerSlot& spectator : spectators) serve_join(spectator, 0);
    if (m_repair && !m_repair->sent && m_cached &&
        Frame(m_cached->frame) >= Frame(m_repair->state_frame)) {
        for (int s = 1; s <= static_cast<int>(players.size()); ++s) {
            ServerSlot& slot = players[s - 1];
            if (!(m_repair->slots & (1u << (s - 1))) || !slot.active()) continue;
            served.push_back({&slot, StatePurpose::kResync, m_cached->frame, m_cached->raw_size});
            slot.transfer.m_sender.emplace(m_next_transfer_id++, StatePurpose::kResync, *m_cached);
            // Its hashes compare again once it reports having loaded the state.
            slot.transfer.m_resync_pending = true;
            m_events.emit({ServerEvent::Type::kStateSent, s, m_cached->frame, 0, 0,
                           "reference state of frame " + std::to_string(m_cached->frame) +
                               " from slot " + std::to_string(m_repair->reference) + " to " +
                               slot.name + " (desync at frame " +
                               std::to_string(m_repair->desync_frame) + ")"});
        }
        m_repair->sent = true;
    }
    if (m_repair && m_repair->sent) {
        // Done when every target has loaded it (or is gone).
        bool pending = false;
        for (ServerSlot& slot : players) {
            if (!slot.active()) slot.transfer.m_resync_pending = false;
            pending |= slot.transfer.m_resync_pending;
        }
        if (!pending) m_repair.reset();
    }
    if (m_upload || m_received) return served;
    if (m_repair && !m_repair->sent) {
        request_state(m_repair->state_frame, m_repair->reference, players);
    } else if (need_join_state) {
        // The newest snapshot the host has surely taken: the one at or before its newest
        // hash report; without one yet, the next snapshot ahead.
        int reference = 0;
        for (int s = 1; s <= static_cast<int>(players.size()) && !reference; ++s) {
            if (players[s - 1].active() && s != m_bad_reference) reference = s;
        }
        std::uint32_t frame = (confirmed_end + si - 1) / si * si + 1;
        if (reference) {
            if (const std::optional<std::uint32_t> h = players[reference - 1].votes.last_hash())
                frame = *h - *h % si + 1;
        }
        // Not one the players were found to agree on no state of: the next snapshot after it.
        if (m_join_after && Frame(frame) <= Frame(m_join_after)) frame = m_join_after + si;
        request_state(frame, reference, players);
    }
    return served;
}

void StateTransfers::start_repair(std::uint32_t desync_frame, std::uint8_t slots,
                                  std::uint8_t holders, std::span<const ServerSlot> players) {
    // The first snapshot at or after the divergence: the divergent players still hold
    // their own state of that frame, to name the memory that differs.
    const std::uint32_t si = m_snapshot_interval;
    const std::uint32_t snap = (desync_frame + si - 1) / si * si;
    Repair repair;
    repair.desync_frame = desync_frame;
    repair.state_frame = snap + 1;  // the state after `snap`: the next frame to run
    repair.slots = slots;
    repair.holders = holders;
    // The first holder still playing, one whose upload just failed last.
    for (int pass = 0; pass < 2 && !repair.reference; ++pass) {
        for (int s = 1; s <= static_cast<int>(players.size()) && !repair.reference; ++s) {
            if ((holders & (1u << (s - 1))) && players[s - 1].active() &&
                (pass == 1 || s != m_bad_reference))
                repair.reference = s;
        }
    }
    if (!repair.reference) return;
    m_repair = repair;
    request_state(repair.state_frame, repair.reference, players);
}

void StateTransfers::prepare_start_state(std::span<const ServerSlot> players) {
    if (!m_config.common_start || m_start_state || m_start_state_refused) return;
    if (m_upload && !expire_upload("start state", players)) return;
    request_state(0, 0, players);  // the first player in (the host), at once
}

void StateTransfers::offer_start_state(ServerSlot& member, bool started) {
    if (started || !m_start_state || !member.in_session() || member.transfer.m_start_loaded ||
        member.transfer.m_sender)
        return;
    member.transfer.m_sender.emplace(m_next_transfer_id++, StatePurpose::kStart, *m_start_state);
}

bool StateTransfers::start_state_everywhere(std::span<const ServerSlot> players,
                                            const std::vector<ServerSlot>& spectators) const {
    if (!m_config.common_start || m_start_state_refused) return true;
    if (!m_start_state) return false;
    for (const ServerSlot& player : players) {
        if (player.taken() && !player.transfer.m_start_loaded) return false;
    }
    for (const ServerSlot& spectator : spectators) {
        if (!spectator.transfer.m_start_loaded) return false;
    }
    return true;
}

std::optional<std::uint32_t> StateTransfers::start_state_size() const {
    if (!m_start_state) return std::nullopt;
    return m_start_state->raw_size;
}

void StateTransfers::pump(std::span<ServerSlot> players, std::vector<ServerSlot>& spectators) {
    const auto pump_one = [&](ServerSlot& member) {
        std::optional<StateSender>& sender = member.transfer.m_sender;
        if (!sender) return;
        for (const auto& message : sender->take_messages())
            m_transport.send(member.peer, Channel::kBulk, message);
        if (!sender->done()) return;
        // A client loads a state the moment its last chunk arrives, before it acknowledges.
        if (sender->purpose() == StatePurpose::kStart) member.transfer.m_start_loaded = true;
        sender.reset();
    };
    for (ServerSlot& player : players) pump_one(player);
    for (ServerSlot& spectator : spectators) pump_one(spectator);
}

std::optional<std::uint32_t> StateTransfers::state_to_keep(std::uint32_t confirmed_end) const {
    if (!m_cached || Frame(confirmed_end) - Frame(m_cached->frame) >=
                         static_cast<std::int32_t>(4 * m_snapshot_interval + 1))
        return std::nullopt;
    return m_cached->frame;
}

}  // namespace framelock::netplay
