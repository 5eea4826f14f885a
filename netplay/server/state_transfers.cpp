// State transfers: asking a player for its state, receiving it in chunks, and sending it to
// joiners, rejoiners and divergent players (and, before the start, the common start state).
#include "netplay/server/server.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "netplay/determinism/evidence.h"
#include "netplay/determinism/state_hash.h"
#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

using namespace server_tuning;

void Server::request_state(std::uint32_t frame, int prefer_slot) {
    // Ask one playing slot: the preferred one, else the lowest (the host) that did not just
    // fail, else any.
    int reference = prefer_slot && m_roster.player(prefer_slot).active() ? prefer_slot : 0;
    for (int pass = 0; pass < 2 && !reference; ++pass) {
        for (int s = 1; s <= m_config.players && !reference; ++s) {
            if (m_roster.player(s).active() && (pass == 1 || s != m_bad_reference)) reference = s;
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
    m_transport.send(m_roster.player(reference).peer, Channel::kControl,
                     encode(StateRequest{upload.id, frame}));
}

void Server::handle_bulk(Slot& slot, int slot_number, std::span<const std::uint8_t> bytes) {
    const auto refuse = [&](const std::string& why) {
        emit({ServerEvent::Type::kRefused, slot_number, m_upload ? m_upload->frame : 0, 0, 0,
              "state upload from " + slot.name + " refused: " + why});
        m_upload.reset();
        m_upload_rx.reset();
        m_bad_reference = slot_number;
    };
    switch (*peek_id(bytes)) {
        case MsgId::kStateAck: {
            auto ack = decode_state_ack(bytes);
            if (!ack) return refuse("malformed StateAck");
            if (slot.sender) slot.sender->on_ack(*ack);
            return;
        }
        case MsgId::kStateHeader: {
            auto header = decode_state_header(bytes);
            const bool expected = m_upload && slot_number == m_upload->slot && header &&
                                  header->transfer_id == m_upload->id &&
                                  header->purpose == StatePurpose::kUpload;
            if (!expected) {
                ++slot.malformed;
                emit({ServerEvent::Type::kRefused, slot_number, 0, 0, 0,
                      "unrequested state from " + slot.name + " dropped"});
                return;
            }
            if (!header->available && !m_roster.started()) {
                // The core cannot save its state: no common start.
                m_upload.reset();
                m_start_state_refused = true;
                emit({ServerEvent::Type::kRefused, slot_number, 0, 0, 0,
                      "no common start state: " + slot.name +
                          "'s core cannot save its state, so every player starts from its "
                          "own power-on state (a core that keeps a clock or leftover memory "
                          "in its state may then report desyncs that are not)"});
                return;
            }
            if (!header->available) {
                // It no longer holds that frame: ask for the next snapshot instead.
                m_upload.reset();
                const std::uint32_t si = m_snapshot_interval;
                request_state((m_confirmed_end + si - 1) / si * si + 1, slot_number);
                return;
            }
            if (auto ok = m_upload_rx.begin(*header); !ok) return refuse(ok.error().message);
            m_upload->frame = header->frame;
            return;
        }
        case MsgId::kStateChunk: {
            auto chunk = decode_state_chunk(bytes);
            if (!m_upload || slot_number != m_upload->slot || !m_upload_rx.active()) {
                ++slot.malformed;
                return;
            }
            if (!chunk) return refuse("malformed StateChunk");
            auto ack = m_upload_rx.add(*chunk);
            if (!ack) return refuse(ack.error().message);
            m_upload->asked_at = m_clock.now_us();  // the timeout is for a stalled upload
            m_transport.send(slot.peer, Channel::kBulk, encode(ack.value()));
            if (!m_upload_rx.complete()) return;
            // Checked here, once, before anyone else receives it: bounded inflate + CRC.
            auto raw = m_upload_rx.finish();
            if (!raw) return refuse(raw.error().message);
            PackedState packed = m_upload_rx.packed();
            m_upload.reset();
            m_upload_rx.reset();
            m_bad_reference = 0;
            if (!m_roster.started()) {
                // The start state: to every other member (its source loaded it already).
                emit({ServerEvent::Type::kStateSent, slot_number, 0, 0, 0,
                      "start state from " + slot.name + " (" + std::to_string(packed.raw_size) +
                          " bytes, " + std::to_string(packed.compressed->size()) +
                          " compressed) to every player"});
                m_start_state = std::move(packed);
                slot.start_loaded = true;  // it loaded the bytes it sent
                for (int s = 0; s < m_config.players; ++s)
                    offer_start_state(m_roster.player(s + 1));
                for (Slot& spectator : m_roster.spectators()) offer_start_state(spectator);
                return;
            }
            packed.delay = m_schedule.delay_in_force(packed.frame);
            m_cached = std::move(packed);
            serve_states();
            return;
        }
        default:
            return;
    }
}

bool Server::expire_upload(const char* what) {
    if (!m_upload || m_clock.now_us() - m_upload->asked_at <= m_config.state_request_timeout_us)
        return false;
    emit({ServerEvent::Type::kRefused, m_upload->slot, m_upload->frame, 0, 0,
          std::string("no ") + what + " from " + m_roster.player(m_upload->slot).name + " within " +
              std::to_string(m_config.state_request_timeout_us / 1000) + " ms; asking again"});
    m_bad_reference = m_upload->slot;
    m_upload.reset();
    m_upload_rx.reset();
    return true;
}

void Server::serve_states() {
    expire_upload("state");
    const std::uint32_t si = m_snapshot_interval;
    // A cached state serves joiners while the inputs since its frame are still held and it
    // is recent (a joiner fast-forwards from it).
    const bool cache_usable =
        m_cached && Frame(m_cached->frame) >= Frame(m_confirmed_base) &&
        Frame(m_confirmed_end) - Frame(m_cached->frame) <= static_cast<std::int32_t>(4 * si + 1);
    bool need_join_state = false;
    const auto serve = [&](Slot& member, int number) {
        if (!member.awaiting_state()) return;
        if (!cache_usable) {
            need_join_state = true;
            return;
        }
        m_roster.set_life(member, member.spectator ? SlotLife::kWatching : SlotLife::kJoining,
                          m_clock.now_us());
        member.client_ack_end = m_cached->frame;
        member.hash_from = m_cached->frame;
        member.moved_due.emplace(m_cached->frame, m_cached->raw_size);
        member.sender.emplace(m_next_transfer_id++, StatePurpose::kJoin, *m_cached);
        emit({ServerEvent::Type::kStateSent, number, m_cached->frame, 0, 0,
              "state of frame " + std::to_string(m_cached->frame) + " (" +
                  std::to_string(m_cached->raw_size) + " bytes, " +
                  std::to_string(m_cached->compressed->size()) + " compressed) to " + member.name});
    };
    for (int s = 1; s <= m_config.players; ++s) serve(m_roster.player(s), s);
    for (Slot& spectator : m_roster.spectators()) serve(spectator, 0);
    if (m_repair && !m_repair->sent && m_cached &&
        Frame(m_cached->frame) >= Frame(m_repair->state_frame)) {
        for (int s = 1; s <= m_config.players; ++s) {
            Slot& slot = m_roster.player(s);
            if (!(m_repair->slots & (1u << (s - 1))) || !slot.active()) continue;
            slot.moved_due.emplace(m_cached->frame, m_cached->raw_size);
            slot.sender.emplace(m_next_transfer_id++, StatePurpose::kResync, *m_cached);
            // Its hashes compare again once it reports having loaded the state.
            slot.resync_pending = true;
            emit({ServerEvent::Type::kStateSent, s, m_cached->frame, 0, 0,
                  "reference state of frame " + std::to_string(m_cached->frame) + " from slot " +
                      std::to_string(m_repair->reference) + " to " + slot.name +
                      " (desync at frame " + std::to_string(m_repair->desync_frame) + ")"});
        }
        m_repair->sent = true;
    }
    if (m_repair && m_repair->sent) {
        // Done when every target has loaded it (or is gone).
        bool pending = false;
        for (int s = 1; s <= m_config.players; ++s) {
            Slot& slot = m_roster.player(s);
            if (!slot.active()) slot.resync_pending = false;
            pending |= slot.resync_pending;
        }
        if (!pending) m_repair.reset();
    }
    if (m_upload) return;
    if (m_repair && !m_repair->sent) {
        request_state(m_repair->state_frame, m_repair->reference);
    } else if (need_join_state) {
        // The newest snapshot the host has surely taken: the one at or before its newest
        // hash report; without one yet, the next snapshot ahead.
        int reference = 0;
        for (int s = 1; s <= m_config.players && !reference; ++s) {
            if (m_roster.player(s).active() && s != m_bad_reference) reference = s;
        }
        std::uint32_t frame = (m_confirmed_end + si - 1) / si * si + 1;
        if (reference && m_roster.player(reference).any_hash) {
            const std::uint32_t h = m_roster.player(reference).last_hash_frame;
            frame = h - h % si + 1;
        }
        request_state(frame, reference);
    }
}

void Server::prepare_start_state() {
    if (!m_config.common_start || m_start_state || m_start_state_refused) return;
    if (m_upload && !expire_upload("start state")) return;
    request_state(0, 0);  // the first player in (the host), at once
}

void Server::offer_start_state(Slot& member) {
    if (m_roster.started() || !m_start_state || !member.in_session() || member.start_loaded ||
        member.sender)
        return;
    member.sender.emplace(m_next_transfer_id++, StatePurpose::kStart, *m_start_state);
}

bool Server::start_state_everywhere() const {
    if (!m_config.common_start || m_start_state_refused) return true;
    if (!m_start_state) return false;
    for (int s = 0; s < m_config.players; ++s) {
        if (m_roster.player(s + 1).taken() && !m_roster.player(s + 1).start_loaded) return false;
    }
    for (const Slot& spectator : m_roster.spectators()) {
        if (!spectator.start_loaded) return false;
    }
    return true;
}

void Server::pump_senders() {
    const auto pump = [&](Slot& member) {
        if (!member.sender) return;
        for (const auto& message : member.sender->take_messages())
            m_transport.send(member.peer, Channel::kBulk, message);
        if (!member.sender->done()) return;
        // A client loads a state the moment its last chunk arrives, before it acknowledges.
        if (member.sender->purpose() == StatePurpose::kStart) member.start_loaded = true;
        member.sender.reset();
    };
    for (int s = 0; s < m_config.players; ++s) pump(m_roster.player(s + 1));
    for (Slot& spectator : m_roster.spectators()) pump(spectator);
}

}  // namespace framelock::netplay
