#include "netplay/wire/protocol.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <optional>
#include <utility>

#include "netplay/wire/codec.h"
#include "netplay/wire/wire.h"
#include "netplay/wire/wire_fields.h"

// Each message's fields are listed once, in wire order, by a `fields` function (netplay/
// wire_fields.h): encode() walks it with a FieldWriter, the decoders with a FieldReader.
namespace framelock::netplay {

namespace {

// Text on the wire: names, versions and reasons; and what a person reads in full.
constexpr std::size_t kMaxTextBytes = 255;
constexpr std::size_t kMaxMessageBytes = 1024;

}  // namespace

namespace {

// ClientInput::inputs, a ServerUpdate tail: a u8 count of words (at most `most`), then their
// runs (write_known_runs).
struct CountedRuns {
    std::size_t most = std::numeric_limits<std::uint8_t>::max();
    void write(WireWriter& w, const std::vector<InputWord>& words) const {
        w.u8(static_cast<std::uint8_t>(words.size()));
        write_known_runs(w, words);
    }
    bool read(WireReader& r, std::vector<InputWord>& words) const {
        const std::size_t count = r.u8();
        return !r.failed() && count <= most && read_runs_up_to(r, std::nullopt, count, words);
    }
};

// ServerUpdate::frames: a u8 frame count (at most kMaxFramesPerMessage), then the column of
// each slot's words (slots 1..players) as runs (write_known_runs).
struct InputColumns {
    int players = 0;
    void write(WireWriter& w, const std::vector<InputFrame>& frames) const {
        w.u8(static_cast<std::uint8_t>(frames.size()));
        std::vector<InputWord> column(frames.size());
        for (int p = 0; p < players; ++p) {
            for (std::size_t f = 0; f < frames.size(); ++f) column[f] = frames[f].pads[p];
            write_known_runs(w, column);
        }
    }
    bool read(WireReader& r, std::vector<InputFrame>& frames) const {
        const std::size_t count = r.u8();
        if (count > kMaxFramesPerMessage || players > kMaxPlayers) return false;
        frames.assign(count, InputFrame{});
        std::vector<InputWord> column;
        for (int p = 0; p < players; ++p) {
            if (!read_runs_up_to(r, std::nullopt, count, column)) return false;
            for (std::size_t f = 0; f < count; ++f) frames[f].pads[p] = column[f];
        }
        return !r.failed();
    }
};

// ServerUpdate::server_time: its low 24 bits (a u16, then a u8).
struct Low24 {
    void write(WireWriter& w, std::uint32_t v) const {
        w.u16(static_cast<std::uint16_t>(v));
        w.u8(static_cast<std::uint8_t>(v >> 16));
    }
    bool read(WireReader& r, std::uint32_t& v) const {
        v = r.u16();
        v |= static_cast<std::uint32_t>(r.u8()) << 16;
        return !r.failed();
    }
};

// A 16-bit frame number near another of the same record (`base`, on the wire before it): the
// difference (mod 2^16, so across the wrap) as a signed byte when it is within 127 either
// way, else the byte -128 and the number whole.
struct NearFrame {
    const std::uint16_t& base;
    void write(WireWriter& w, std::uint16_t v) const {
        const auto d = static_cast<std::int16_t>(static_cast<std::uint16_t>(v - base));
        if (d >= -127 && d <= 127) {
            w.u8(static_cast<std::uint8_t>(d));
        } else {
            w.u8(0x80);
            w.u16(v);
        }
    }
    bool read(WireReader& r, std::uint16_t& v) const {
        const std::uint8_t d = r.u8();
        v = d == 0x80 ? r.u16() : static_cast<std::uint16_t>(base + static_cast<std::int8_t>(d));
        return !r.failed();
    }
};

// A ServerUpdate's shape in two bytes: players (bits 0-3) and the schedule's length (bits
// 4-7); then copies (bits 0-1), whether tails follow (bit 2), whether exactly slots 1..players
// are present (bit 3) and the path floor (bits 4-7, up to 14). Then `present` unless bit 3
// says it, and the path floor whole if it is 15 or more. The reader sizes the schedule and the
// tails (every slot's, or none) by them.
struct UpdateShape {
    static constexpr unsigned kFloorWhole = 15;
    static std::uint8_t every_slot(unsigned players) {
        return static_cast<std::uint8_t>((1u << players) - 1);
    }
    void write(WireWriter& w, const ServerUpdate& m) const {
        const bool all_present = m.players <= kMaxPlayers && m.present == every_slot(m.players);
        const unsigned floor = std::min<unsigned>(m.path_floor, kFloorWhole);
        w.u8(static_cast<std::uint8_t>((m.players & 0x0f) | (m.schedule.size() << 4)));
        w.u8(static_cast<std::uint8_t>((m.copies & 0x03) | (m.tails.empty() ? 0 : 0x04) |
                                       (all_present ? 0x08 : 0) | (floor << 4)));
        if (!all_present) w.u8(m.present);
        if (floor == kFloorWhole) w.u8(m.path_floor);
    }
    bool read(WireReader& r, ServerUpdate& m) const {
        const std::uint8_t sizes = r.u8();
        const std::uint8_t flags = r.u8();
        m.players = sizes & 0x0f;
        m.copies = flags & 0x03;
        const std::size_t schedule = sizes >> 4;
        if (r.failed() || m.players > kMaxPlayers || schedule > kMaxScheduleEntries ||
            m.copies < 1 || m.copies > kMaxCopies)
            return false;
        m.present = (flags & 0x08) != 0 ? every_slot(m.players) : r.u8();
        m.path_floor = static_cast<std::uint8_t>(flags >> 4);
        if (m.path_floor == kFloorWhole) m.path_floor = r.u8();
        m.schedule.assign(schedule, ScheduleEntry{});
        m.tails.assign((flags & 0x04) != 0 ? m.players : 0, {});
        return !r.failed();
    }
};

// StateChunk::bytes: a u16 of the length less one (1..kStateChunkBytes), then the bytes; the
// writer sends the first kStateChunkBytes.
struct ChunkBytes {
    void write(WireWriter& w, const std::vector<std::uint8_t>& bytes) const {
        const std::size_t n = std::min(bytes.size(), kStateChunkBytes);
        w.u16(static_cast<std::uint16_t>(n - 1));
        w.bytes(std::span(bytes).first(n));
    }
    bool read(WireReader& r, std::vector<std::uint8_t>& bytes) const {
        const std::size_t n = static_cast<std::size_t>(r.u16()) + 1;
        if (r.failed() || n > kStateChunkBytes) return false;
        const auto data = r.bytes(n);
        bytes.assign(data.begin(), data.end());
        return !r.failed();
    }
};

// Ranges of a state (MovedBytes, EvidenceMask): sorted, disjoint, non-empty and inside the
// largest state; anything else is malformed.
bool well_formed(const std::vector<ByteRange>& ranges) {
    std::uint64_t end = 0;
    for (const ByteRange& range : ranges) {
        const std::uint64_t last = std::uint64_t{range.offset} + range.length;
        if (range.length == 0 || range.offset < end || last > kMaxStateBytes) return false;
        end = last;
    }
    return true;
}

// The magic and the version, the fields every protocol version shares. A foreign version's
// message is read no further, so that the other side can still name the mismatch; true then
// (and when the message is not ours at all).
bool foreign_head(auto& io, auto& m) {
    io.u32(m.magic).is(kProtocolMagic);
    io.u16(m.version);
    return io.end_here_if(m.version != kProtocolVersion);
}

}  // namespace

// ---- The messages' fields, in wire order ----------------------------------------------------
// (In this namespace, not an unnamed one: write_record and read_record find them by
// argument-dependent lookup.)

void fields(auto& io, Is<SessionIdentity> auto& m) {
    io.string(m.core_name, kMaxTextBytes);
    io.string(m.core_version, kMaxTextBytes);
    io.u64(m.content_hash, m.options_hash);
    io.u32(m.fps_milli);
    io.u8(m.ports);
}

void fields(auto& io, Is<ScheduleEntry> auto& m) {
    io.u32(m.frame);
    io.u8(m.delay);
}

void fields(auto& io, Is<ByteRange> auto& m) {
    io.u32(m.offset, m.length);
}

void fields(auto& io, Is<Challenge> auto& m) {
    io.tag(MsgId::kChallenge);
    if (foreign_head(io, m)) return;
    io.bytes(m.nonce);
    io.bytes(m.salt);
    io.u8(m.kdf.passes);
    io.u32(m.kdf.memory_kib);
    io.bits(m.player_password, m.spectator_password);
}

void fields(auto& io, Is<Hello> auto& m) {
    io.tag(MsgId::kHello);
    if (foreign_head(io, m)) return;
    io.u8(m.requested_slot).at_most(kMaxPlayers);  // 0: any free slot
    io.string(m.player_name, kMaxNameBytes);
    io.string(m.content_name, kMaxTextBytes);
    fields(io, m.identity);
    io.u8(m.role).at_most(Role::kSpectator);
    io.optional(m.password_proof);
    io.optional(m.rejoin_proof);
    io.bytes(m.box_key);
    io.bytes(m.kx_key);
}

void fields(auto& io, Is<Welcome> auto& m) {
    io.tag(MsgId::kWelcome);
    io.u8(m.slot);  // checked against players and role below
    io.u8(m.players).within(1, kMaxPlayers);
    io.u16(m.hash_interval);
    io.u16(m.keyframe_interval).at_least(1);
    io.u8(m.send_interval).at_least(1);
    io.i64(m.server_time_us).within(-kMaxClockUs, kMaxClockUs);
    io.u8(m.mode).at_most(SessionMode::kNoWait);
    io.u8(m.prediction_window);
    io.u8(m.role).at_most(Role::kSpectator);
    io.flag(m.late);
    io.flag(m.vouch_savestates);
    io.u16(m.snapshot_interval).at_least(1);
    io.flag(m.chat);
    io.string(m.name, kMaxNameBytes);
    io.bytes(m.sealed_token);
    io.bytes(m.kx_key);
    io.bytes(m.server_key);
    io.bytes(m.signature);
    // Spectators have slot 0, players one of the session's.
    io.check(m.role == Role::kSpectator ? m.slot == 0 : m.slot >= 1 && m.slot <= m.players);
}

// Reject and Bye: a reason (any value) and a message for the person.
void reason_and_message(auto& io, auto& m) {
    io.u8(m.reason);
    io.string(m.message, kMaxMessageBytes);
}

void fields(auto& io, Is<Reject> auto& m) {
    io.tag(MsgId::kReject);
    reason_and_message(io, m);
}

void fields(auto& io, Is<Start> auto& m) {
    io.tag(MsgId::kStart);
    io.i64(m.start_time_us).within(-kMaxClockUs, kMaxClockUs);
    // 1 ms .. 1 s per frame covers every real machine (1000 Hz .. 1 Hz).
    io.u32(m.frame_time_ns).within(1'000'000, 1'000'000'000);
    io.u8(m.delay);
    io.u8(m.players).within(1, kMaxPlayers);
}

void fields(auto& io, Is<Bye> auto& m) {
    io.tag(MsgId::kBye);
    reason_and_message(io, m);
}

void fields(auto& io, Is<PlayerLeft> auto& m) {
    io.tag(MsgId::kPlayerLeft);
    io.u8(m.slot).within(1, kMaxPlayers);
    io.u32(m.frame);
    io.string(m.reason, kMaxTextBytes);
}

void fields(auto& io, Is<ClientInput> auto& m) {
    io.tag(MsgId::kClientInput);
    io.u8(m.seq);
    io.u16(m.first_frame);
    io.custom(m.confirmed_ack, NearFrame{m.first_frame});
    io.u16(m.latency_100us);
    io.u8(m.late_ms, m.echo_seq);
    io.u16(m.echo_hold_10us);
    io.custom(m.inputs, CountedRuns{});  // its u8 count is its only bound
}

void fields(auto& io, Is<ServerUpdate> auto& m) {
    io.tag(MsgId::kServerUpdate);
    io.u8(m.seq);
    io.custom(m.server_time, Low24{});
    io.u8(m.echo_seq);
    io.u16(m.echo_hold_10us, m.first_frame);
    io.custom(m.input_ack, NearFrame{m.first_frame});
    io.custom(m, UpdateShape{});  // with present and path_floor; sizes the schedule, the tails
    for (auto& entry : m.schedule) fields(io, entry);
    io.custom(m.frames, InputColumns{m.players});
    for (auto& tail : m.tails) io.custom(tail, CountedRuns{kMaxFramesPerMessage});
    io.check(m.tails.empty() || m.tails.size() == m.players);  // none, or every slot's
}

void fields(auto& io, Is<HashReport> auto& m) {
    io.tag(MsgId::kHashReport);
    io.u32(m.frame);
    io.u64(m.hash);
    io.u16(m.generation);
}

void fields(auto& io, Is<Desync> auto& m) {
    io.tag(MsgId::kDesync);
    io.u32(m.frame);
    io.u8(m.differing_slots);
    io.list(m.hashes, kMaxPlayers, [](auto& hash_io, auto& hash) { hash_io.u64(hash); });
}

void fields(auto& io, Is<ClientStats> auto& m) {
    io.tag(MsgId::kClientStats);
    io.u32(m.frames_run, m.stall_frames);
    io.u16(m.srtt_100us, m.rttvar_100us, m.down_loss_permille);
    io.u32(m.down_lost);
    io.i64(m.clock_us).within(-kMaxClockUs, kMaxClockUs);
    io.u16(m.rerun_frame_us, m.up_100us, m.down_100us);
}

void fields(auto& io, Is<StateRequest> auto& m) {
    io.tag(MsgId::kStateRequest);
    io.u32(m.transfer_id, m.frame);
}

void fields(auto& io, Is<StateHeader> auto& m) {
    io.tag(MsgId::kStateHeader);
    io.u32(m.transfer_id);
    io.u8(m.purpose).at_most(StatePurpose::kStart);
    io.flag(m.available);
    io.u32(m.frame);
    io.u8(m.delay);
    io.u32(m.raw_size, m.compressed_size, m.crc32);
    // Sizes are checked against the caps by whoever accepts the transfer (with a message
    // that names them); here only what cannot be a state at all.
    io.check(!m.available || (m.raw_size != 0 && m.compressed_size != 0));
}

void fields(auto& io, Is<StateChunk> auto& m) {
    io.tag(MsgId::kStateChunk);
    io.u32(m.transfer_id, m.offset);
    io.custom(m.bytes, ChunkBytes{});
}

void fields(auto& io, Is<StateAck> auto& m) {
    io.tag(MsgId::kStateAck);
    io.u32(m.transfer_id, m.received);
}

void fields(auto& io, Is<ResyncReport> auto& m) {
    io.tag(MsgId::kResyncReport);
    io.u32(m.frame, m.desync_frame, m.resumed_frame);
    io.string(m.regions, kMaxMessageBytes);
}

void fields(auto& io, Is<ModeChange> auto& m) {
    io.tag(MsgId::kModeChange);
    io.u8(m.mode).at_most(SessionMode::kNoWait);
    io.u32(m.frame);
    io.string(m.reason, kMaxTextBytes);
}

void fields(auto& io, Is<FrameLockFrom> auto& m) {
    io.tag(MsgId::kFrameLockFrom);
    io.u32(m.frame);
}

void fields(auto& io, Is<SavestateVouch> auto& m) {
    io.tag(MsgId::kSavestateVouch);
    io.flag(m.passed);
    io.string(m.note, kMaxNoteBytes);
}

void fields(auto& io, Is<ChatSay> auto& m) {
    io.tag(MsgId::kChatSay);
    io.string(m.text, kMaxChatWireBytes);
}

void fields(auto& io, Is<ChatLine> auto& m) {
    io.tag(MsgId::kChatLine);
    io.u32(m.frame);
    io.u8(m.from_slot);
    io.check(m.from_slot <= kMaxPlayers || m.from_slot == kChatFromServer);
    io.string(m.from, kMaxNameBytes);
    io.string(m.text, kMaxChatWireBytes);
}

void fields(auto& io, Is<MovedBytes> auto& m) {
    io.tag(MsgId::kMovedBytes);
    io.u32(m.frame);
    io.u32(m.state_size).at_most(kMaxStateBytes);
    io.flag(m.overflow);
    io.capped_list(m.ranges, m.overflow ? 0 : kMaxMaskRanges);  // none when overflowing
    io.check(well_formed(m.ranges));
}

void fields(auto& io, Is<EvidenceMask> auto& m) {
    io.tag(MsgId::kEvidenceMask);
    io.u16(m.generation);
    io.u32(m.from_frame);
    io.u8(m.kind).at_most(EvidenceKind::kMemory);
    io.capped_list(m.ranges, kMaxMaskRanges);
    io.check(well_formed(m.ranges));
}

// ---- Encoders and decoders: each message's field list, walked --------------------------------

void write_identity(WireWriter& w, const SessionIdentity& id) {
    FieldWriter io(w);
    fields(io, id);
}

SessionIdentity read_identity(WireReader& r) {
    FieldReader io(r);
    SessionIdentity id;
    fields(io, id);
    return id;
}

std::string chat_line_text(const ChatLine& line) {
    if (line.from_slot == kChatFromServer) return "server: " + line.text;
    if (line.from_slot == 0) return "spectator " + line.from + ": " + line.text;
    return "P" + std::to_string(line.from_slot) + " " + line.from + ": " + line.text;
}

std::string describe_unknown(std::span<const std::uint8_t> bytes) {
    char text[64];
    std::snprintf(text, sizeof text, "unknown message id 0x%02x (%zu bytes)",
                  bytes.empty() ? 0 : bytes[0], bytes.size());
    return text;
}

std::optional<MsgId> peek_id(std::span<const std::uint8_t> bytes) {
    if (bytes.empty()) return std::nullopt;
    switch (static_cast<MsgId>(bytes[0])) {
        case MsgId::kHello:
        case MsgId::kWelcome:
        case MsgId::kReject:
        case MsgId::kStart:
        case MsgId::kBye:
        case MsgId::kPlayerLeft:
        case MsgId::kClientInput:
        case MsgId::kServerUpdate:
        case MsgId::kHashReport:
        case MsgId::kDesync:
        case MsgId::kClientStats:
        case MsgId::kStateRequest:
        case MsgId::kChallenge:
        case MsgId::kModeChange:
        case MsgId::kFrameLockFrom:
        case MsgId::kSavestateVouch:
        case MsgId::kChatSay:
        case MsgId::kChatLine:
        case MsgId::kResyncReport:
        case MsgId::kMovedBytes:
        case MsgId::kEvidenceMask:
        case MsgId::kStateHeader:
        case MsgId::kStateChunk:
        case MsgId::kStateAck:
            return static_cast<MsgId>(bytes[0]);
    }
    return std::nullopt;
}

using Bytes = std::span<const std::uint8_t>;

// One line a message.
// clang-format off
std::vector<std::uint8_t> encode(const Challenge& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const Hello& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const Welcome& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const Reject& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const Start& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const Bye& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const PlayerLeft& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const ClientInput& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const ServerUpdate& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const HashReport& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const Desync& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const ClientStats& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const StateRequest& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const StateHeader& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const StateChunk& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const StateAck& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const ResyncReport& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const MovedBytes& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const EvidenceMask& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const ModeChange& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const FrameLockFrom& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const SavestateVouch& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const ChatSay& m) { return write_record(m); }
std::vector<std::uint8_t> encode(const ChatLine& m) { return write_record(m); }

std::optional<Challenge> decode_challenge(Bytes b) { return read_record<Challenge>(b); }
std::optional<Hello> decode_hello(Bytes b) { return read_record<Hello>(b); }
std::optional<Welcome> decode_welcome(Bytes b) { return read_record<Welcome>(b); }
std::optional<Reject> decode_reject(Bytes b) { return read_record<Reject>(b); }
std::optional<Start> decode_start(Bytes b) { return read_record<Start>(b); }
std::optional<Bye> decode_bye(Bytes b) { return read_record<Bye>(b); }
std::optional<PlayerLeft> decode_player_left(Bytes b) { return read_record<PlayerLeft>(b); }
std::optional<ClientInput> decode_client_input(Bytes b) { return read_record<ClientInput>(b); }
std::optional<ServerUpdate> decode_server_update(Bytes b) { return read_record<ServerUpdate>(b); }
std::optional<HashReport> decode_hash_report(Bytes b) { return read_record<HashReport>(b); }
std::optional<Desync> decode_desync(Bytes b) { return read_record<Desync>(b); }
std::optional<ClientStats> decode_client_stats(Bytes b) { return read_record<ClientStats>(b); }
std::optional<StateRequest> decode_state_request(Bytes b) { return read_record<StateRequest>(b); }
std::optional<StateHeader> decode_state_header(Bytes b) { return read_record<StateHeader>(b); }
std::optional<StateChunk> decode_state_chunk(Bytes b) { return read_record<StateChunk>(b); }
std::optional<StateAck> decode_state_ack(Bytes b) { return read_record<StateAck>(b); }
std::optional<ResyncReport> decode_resync_report(Bytes b) { return read_record<ResyncReport>(b); }
std::optional<MovedBytes> decode_moved_bytes(Bytes b) { return read_record<MovedBytes>(b); }
std::optional<EvidenceMask> decode_evidence_mask(Bytes b) { return read_record<EvidenceMask>(b); }
std::optional<ModeChange> decode_mode_change(Bytes b) { return read_record<ModeChange>(b); }
std::optional<FrameLockFrom> decode_frame_lock_from(Bytes b) { return read_record<FrameLockFrom>(b); }
std::optional<SavestateVouch> decode_savestate_vouch(Bytes b) { return read_record<SavestateVouch>(b); }
std::optional<ChatSay> decode_chat_say(Bytes b) { return read_record<ChatSay>(b); }
std::optional<ChatLine> decode_chat_line(Bytes b) { return read_record<ChatLine>(b); }
// clang-format on

Frame expand_frame(std::uint16_t low, Frame reference) {
    const auto delta =
        static_cast<std::int16_t>(static_cast<std::uint16_t>(low - (reference.value() & 0xffff)));
    return reference + delta;
}

std::int64_t expand_time(std::uint32_t low, std::int64_t reference) {
    constexpr std::uint32_t kMask = (1u << 24) - 1;
    const std::uint32_t up = (low - static_cast<std::uint32_t>(reference)) & kMask;
    const std::int64_t delta = up > kMask / 2 ? std::int64_t{up} - (kMask + 1) : up;
    return reference + delta;
}

// Why two identities differ, naming both sides' values.
std::string identity_mismatch(const SessionIdentity& session, const std::string& session_content,
                              const SessionIdentity& yours, const std::string& your_content,
                              const std::string& reference) {
    std::string why;
    const auto add = [&](const std::string& line) { why += (why.empty() ? "" : "; ") + line; };
    if (session.core_name != yours.core_name || session.core_version != yours.core_version) {
        add("core: " + reference + " runs '" + session.core_name + " " + session.core_version +
            "', you run '" + yours.core_name + " " + yours.core_version + "'");
    }
    if (session.content_hash != yours.content_hash) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "content: %s plays %s (hash %016" PRIx64 "), you have %s (hash %016" PRIx64
                      ")",
                      reference.c_str(), session_content.c_str(), session.content_hash,
                      your_content.c_str(), yours.content_hash);
        add(text);
    }
    if (session.options_hash != yours.options_hash) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "core options: %s hash %016" PRIx64 ", yours %016" PRIx64
                      " (make [core_options] and --option match the host's)",
                      reference.c_str(), session.options_hash, yours.options_hash);
        add(text);
    }
    if (session.ports != yours.ports) {
        add("controller ports: " + reference + " " + std::to_string(session.ports) + ", yours " +
            std::to_string(yours.ports) + " (use the same --ports)");
    }
    if (session.fps_milli != yours.fps_milli) {
        char text[120];
        std::snprintf(text, sizeof text, "frame rate: %s %.3f fps, yours %.3f fps",
                      reference.c_str(), session.fps_milli / 1000.0, yours.fps_milli / 1000.0);
        add(text);
    }
    return why;
}

}  // namespace framelock::netplay
