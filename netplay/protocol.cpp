#include "netplay/protocol.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "netplay/codec.h"
#include "netplay/wire.h"

namespace framelock::netplay {

void write_identity(WireWriter& w, const SessionIdentity& id) {
    w.string(id.core_name);
    w.string(id.core_version);
    w.u64(id.content_hash);
    w.u64(id.options_hash);
    w.u32(id.fps_milli);
    w.u8(id.ports);
}

SessionIdentity read_identity(WireReader& r) {
    SessionIdentity id;
    id.core_name = r.string();
    id.core_version = r.string();
    id.content_hash = r.u64();
    id.options_hash = r.u64();
    id.fps_milli = r.u32();
    id.ports = r.u8();
    return id;
}

// Run-length coding of one player's words: run count, then (word, length 1..255) pairs.
void write_runs(WireWriter& w, const std::vector<InputWord>& words) {
    std::vector<std::pair<InputWord, std::uint8_t>> runs;
    for (InputWord word : words) {
        if (!runs.empty() && runs.back().first == word && runs.back().second < 255) {
            ++runs.back().second;
        } else {
            runs.push_back({word, 1});
        }
    }
    w.u8(static_cast<std::uint8_t>(runs.size()));
    for (const auto& [word, length] : runs) {
        w.u16(word);
        w.u8(length);
    }
}

// Reads runs that must add up to exactly `count` words.
bool read_runs(WireReader& r, std::size_t count, std::vector<InputWord>& out) {
    out.clear();
    const std::size_t runs = r.u8();
    for (std::size_t i = 0; i < runs && !r.failed(); ++i) {
        const InputWord word = r.u16();
        const std::size_t length = r.u8();
        if (length == 0 || out.size() + length > count) return false;
        out.insert(out.end(), length, word);
    }
    return !r.failed() && out.size() == count;
}

namespace {

WireWriter start(MsgId id) {
    WireWriter w;
    w.u8(static_cast<std::uint8_t>(id));
    return w;
}

// A reader positioned after the id byte, or a failed one if the id is not `id`.
WireReader open(std::span<const std::uint8_t> bytes, MsgId id) {
    WireReader r(bytes);
    if (r.u8() != static_cast<std::uint8_t>(id)) r.fail();
    return r;
}

template <class T>
std::optional<T> finish(const WireReader& r, T value) {
    if (!r.done()) return std::nullopt;
    return value;
}

}  // namespace

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

namespace {

void write_proof(WireWriter& w, const std::optional<Proof>& proof) {
    w.u8(proof ? 1 : 0);
    if (proof) w.bytes(*proof);
}

std::optional<Proof> read_proof(WireReader& r) {
    const std::uint8_t present = r.u8();
    if (present > 1) r.fail();
    if (present != 1) return std::nullopt;
    Proof proof{};
    const auto bytes = r.bytes(proof.size());
    if (bytes.size() == proof.size()) std::copy(bytes.begin(), bytes.end(), proof.begin());
    return proof;
}

template <std::size_t N>
void read_array(WireReader& r, std::array<std::uint8_t, N>& out) {
    const auto bytes = r.bytes(N);
    if (bytes.size() == N) std::copy(bytes.begin(), bytes.end(), out.begin());
}

}  // namespace

std::vector<std::uint8_t> encode(const Challenge& m) {
    WireWriter w = start(MsgId::kChallenge);
    w.u32(m.magic);
    w.u16(m.version);
    w.bytes(m.nonce);
    w.bytes(m.salt);
    w.u8(m.kdf.passes);
    w.u32(m.kdf.memory_kib);
    w.u8(static_cast<std::uint8_t>((m.player_password ? 1 : 0) | (m.spectator_password ? 2 : 0)));
    return w.take();
}

namespace {

enum class Head { kNotOurs, kForeign, kThisVersion };

// The magic and the version, the fields every protocol version shares. A foreign version's
// message is read no further, so that the other side can still name the mismatch.
template <class M>
Head read_head(WireReader& r, M& m) {
    m.magic = r.u32();
    m.version = r.u16();
    if (r.failed() || m.magic != kProtocolMagic) return Head::kNotOurs;
    return m.version == kProtocolVersion ? Head::kThisVersion : Head::kForeign;
}

}  // namespace

std::optional<Challenge> decode_challenge(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kChallenge);
    Challenge m;
    if (const Head head = read_head(r, m); head != Head::kThisVersion) {
        if (head == Head::kNotOurs) return std::nullopt;
        return m;
    }
    read_array(r, m.nonce);
    read_array(r, m.salt);
    m.kdf.passes = r.u8();
    m.kdf.memory_kib = r.u32();
    const std::uint8_t flags = r.u8();
    if (flags > 3) r.fail();
    m.player_password = flags & 1;
    m.spectator_password = flags & 2;
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const Hello& m) {
    WireWriter w = start(MsgId::kHello);
    w.u32(m.magic);
    w.u16(m.version);
    w.u8(m.requested_slot);
    w.string(m.player_name, kMaxNameBytes);
    w.string(m.content_name);
    write_identity(w, m.identity);
    w.u8(static_cast<std::uint8_t>(m.role));
    write_proof(w, m.password_proof);
    write_proof(w, m.rejoin_proof);
    w.bytes(m.box_key);
    return w.take();
}

std::optional<Hello> decode_hello(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kHello);
    Hello m;
    if (const Head head = read_head(r, m); head != Head::kThisVersion) {
        if (head == Head::kNotOurs) return std::nullopt;
        return m;
    }
    m.requested_slot = r.u8();
    m.player_name = r.string(kMaxNameBytes);
    m.content_name = r.string();
    m.identity = read_identity(r);
    const std::uint8_t role = r.u8();
    if (role > static_cast<std::uint8_t>(Role::kSpectator)) r.fail();
    m.role = static_cast<Role>(role);
    m.password_proof = read_proof(r);
    m.rejoin_proof = read_proof(r);
    read_array(r, m.box_key);
    if (m.requested_slot > kMaxPlayers) r.fail();
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const Welcome& m) {
    WireWriter w = start(MsgId::kWelcome);
    w.u8(m.slot);
    w.u8(m.players);
    w.u16(m.hash_interval);
    w.u16(m.keyframe_interval);
    w.u8(m.send_interval);
    w.i64(m.server_time_us);
    w.u8(static_cast<std::uint8_t>(m.mode));
    w.u8(m.prediction_window);
    w.u8(static_cast<std::uint8_t>(m.role));
    w.u8(m.late ? 1 : 0);
    w.u16(m.snapshot_interval);
    w.string(m.name, kMaxNameBytes);
    w.bytes(m.sealed_token);
    return w.take();
}

std::optional<Welcome> decode_welcome(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kWelcome);
    Welcome m;
    m.slot = r.u8();
    m.players = r.u8();
    m.hash_interval = r.u16();
    m.keyframe_interval = r.u16();
    m.send_interval = r.u8();
    m.server_time_us = r.i64();
    const std::uint8_t mode = r.u8();
    if (mode > static_cast<std::uint8_t>(SessionMode::kNoWait)) r.fail();
    m.mode = static_cast<SessionMode>(mode);
    m.prediction_window = r.u8();
    const std::uint8_t role = r.u8();
    const std::uint8_t late = r.u8();
    m.snapshot_interval = r.u16();
    m.name = r.string(kMaxNameBytes);
    read_array(r, m.sealed_token);
    if (role > static_cast<std::uint8_t>(Role::kSpectator) || late > 1) r.fail();
    m.role = static_cast<Role>(role);
    m.late = late == 1;
    const bool spectator = m.role == Role::kSpectator;
    if ((spectator ? m.slot != 0 : (m.slot < 1 || m.slot > m.players)) || m.players < 1 ||
        m.players > kMaxPlayers || m.keyframe_interval == 0 || m.send_interval == 0 ||
        m.snapshot_interval == 0 || m.server_time_us < -kMaxClockUs ||
        m.server_time_us > kMaxClockUs) {
        r.fail();
    }
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const Reject& m) {
    WireWriter w = start(MsgId::kReject);
    w.u8(static_cast<std::uint8_t>(m.reason));
    w.string(m.message, 1024);
    return w.take();
}

std::optional<Reject> decode_reject(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kReject);
    Reject m;
    m.reason = static_cast<RejectReason>(r.u8());
    m.message = r.string(1024);
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const Start& m) {
    WireWriter w = start(MsgId::kStart);
    w.i64(m.start_time_us);
    w.u32(m.frame_time_ns);
    w.u8(m.delay);
    w.u8(m.players);
    return w.take();
}

std::optional<Start> decode_start(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kStart);
    Start m;
    m.start_time_us = r.i64();
    m.frame_time_ns = r.u32();
    m.delay = r.u8();
    m.players = r.u8();
    // 1 ms .. 1 s per frame covers every real machine (1000 Hz .. 1 Hz).
    if (m.frame_time_ns < 1'000'000 || m.frame_time_ns > 1'000'000'000 || m.players < 1 ||
        m.players > kMaxPlayers || m.start_time_us < -kMaxClockUs ||
        m.start_time_us > kMaxClockUs) {
        r.fail();
    }
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const Bye& m) {
    WireWriter w = start(MsgId::kBye);
    w.u8(static_cast<std::uint8_t>(m.reason));
    w.string(m.message, 1024);
    return w.take();
}

std::optional<Bye> decode_bye(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kBye);
    Bye m;
    m.reason = static_cast<ByeReason>(r.u8());
    m.message = r.string(1024);
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const PlayerLeft& m) {
    WireWriter w = start(MsgId::kPlayerLeft);
    w.u8(m.slot);
    w.u32(m.frame);
    w.string(m.reason);
    return w.take();
}

std::optional<PlayerLeft> decode_player_left(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kPlayerLeft);
    PlayerLeft m;
    m.slot = r.u8();
    m.frame = r.u32();
    m.reason = r.string();
    if (m.slot < 1 || m.slot > kMaxPlayers) r.fail();
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const ClientInput& m) {
    WireWriter w = start(MsgId::kClientInput);
    w.u8(m.seq);
    w.u16(m.confirmed_ack);
    w.u16(m.latency_100us);
    w.u8(m.late_ms);
    w.u8(m.echo_seq);
    w.u16(m.echo_hold_10us);
    w.u16(m.first_frame);
    w.u8(static_cast<std::uint8_t>(m.inputs.size()));
    write_runs(w, m.inputs);
    return w.take();
}

std::optional<ClientInput> decode_client_input(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kClientInput);
    ClientInput m;
    m.seq = r.u8();
    m.confirmed_ack = r.u16();
    m.latency_100us = r.u16();
    m.late_ms = r.u8();
    m.echo_seq = r.u8();
    m.echo_hold_10us = r.u16();
    m.first_frame = r.u16();
    const std::size_t count = r.u8();
    if (!read_runs(r, count, m.inputs)) r.fail();
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const ServerUpdate& m) {
    WireWriter w = start(MsgId::kServerUpdate);
    w.u8(m.seq);
    w.u32(m.server_time);
    w.u8(m.echo_seq);
    w.u16(m.echo_hold_10us);
    w.u16(m.input_ack);
    w.u8(static_cast<std::uint8_t>(m.schedule.size()));
    for (const auto& entry : m.schedule) {
        w.u32(entry.frame);
        w.u8(entry.delay);
    }
    w.u16(m.first_frame);
    w.u8(m.players);
    w.u8(m.present);
    w.u8(m.copies);
    w.u8(m.path_floor);
    w.u8(static_cast<std::uint8_t>(m.frames.size()));
    std::vector<InputWord> column(m.frames.size());
    for (int p = 0; p < m.players; ++p) {
        for (std::size_t f = 0; f < m.frames.size(); ++f) column[f] = m.frames[f].pads[p];
        write_runs(w, column);
    }
    w.u8(static_cast<std::uint8_t>(m.tails.size()));
    for (const auto& tail : m.tails) {
        w.u8(static_cast<std::uint8_t>(tail.size()));
        write_runs(w, tail);
    }
    return w.take();
}

std::optional<ServerUpdate> decode_server_update(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kServerUpdate);
    ServerUpdate m;
    m.seq = r.u8();
    m.server_time = r.u32();
    m.echo_seq = r.u8();
    m.echo_hold_10us = r.u16();
    m.input_ack = r.u16();
    const std::size_t entries = r.u8();
    if (entries > kMaxScheduleEntries) return std::nullopt;
    for (std::size_t i = 0; i < entries && !r.failed(); ++i) {
        ScheduleEntry entry;
        entry.frame = r.u32();
        entry.delay = r.u8();
        m.schedule.push_back(entry);
    }
    m.first_frame = r.u16();
    m.players = r.u8();
    m.present = r.u8();
    m.copies = r.u8();
    m.path_floor = r.u8();
    const std::size_t count = r.u8();
    if (m.copies < 1 || m.copies > kMaxCopies) r.fail();
    if (m.players > kMaxPlayers || count > kMaxFramesPerMessage) return std::nullopt;
    m.frames.resize(count);
    std::vector<InputWord> column;
    for (int p = 0; p < m.players && !r.failed(); ++p) {
        if (!read_runs(r, count, column)) {
            r.fail();
            break;
        }
        for (std::size_t f = 0; f < count; ++f) m.frames[f].pads[p] = column[f];
    }
    const std::size_t tails = r.u8();
    if (tails != 0 && tails != m.players) return std::nullopt;
    m.tails.resize(tails);
    for (auto& tail : m.tails) {
        const std::size_t length = r.u8();
        if (r.failed() || length > kMaxFramesPerMessage || !read_runs(r, length, tail)) {
            r.fail();
            break;
        }
    }
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const HashReport& m) {
    WireWriter w = start(MsgId::kHashReport);
    w.u32(m.frame);
    w.u64(m.hash);
    w.u16(m.generation);
    return w.take();
}

std::optional<HashReport> decode_hash_report(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kHashReport);
    HashReport m;
    m.frame = r.u32();
    m.hash = r.u64();
    m.generation = r.u16();
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const Desync& m) {
    WireWriter w = start(MsgId::kDesync);
    w.u32(m.frame);
    w.u8(m.differing_slots);
    w.u8(static_cast<std::uint8_t>(m.hashes.size()));
    for (auto h : m.hashes) w.u64(h);
    return w.take();
}

std::optional<Desync> decode_desync(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kDesync);
    Desync m;
    m.frame = r.u32();
    m.differing_slots = r.u8();
    const std::size_t n = r.u8();
    if (n > kMaxPlayers) return std::nullopt;
    for (std::size_t i = 0; i < n; ++i) m.hashes.push_back(r.u64());
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const ClientStats& m) {
    WireWriter w = start(MsgId::kClientStats);
    w.u32(m.frames_run);
    w.u32(m.stall_frames);
    w.u16(m.srtt_100us);
    w.u16(m.rttvar_100us);
    w.u16(m.down_loss_permille);
    w.u32(m.down_lost);
    w.i64(m.clock_us);
    return w.take();
}

std::optional<ClientStats> decode_client_stats(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kClientStats);
    ClientStats m;
    m.frames_run = r.u32();
    m.stall_frames = r.u32();
    m.srtt_100us = r.u16();
    m.rttvar_100us = r.u16();
    m.down_loss_permille = r.u16();
    m.down_lost = r.u32();
    m.clock_us = r.i64();
    if (m.clock_us < -kMaxClockUs || m.clock_us > kMaxClockUs) r.fail();
    return finish(r, m);
}

Frame expand_frame(std::uint16_t low, Frame reference) {
    const auto delta =
        static_cast<std::int16_t>(static_cast<std::uint16_t>(low - (reference.value() & 0xffff)));
    return reference + delta;
}

std::int64_t expand_time(std::uint32_t low, std::int64_t reference) {
    const auto delta = static_cast<std::int32_t>(low - static_cast<std::uint32_t>(reference));
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

std::vector<std::uint8_t> encode(const StateRequest& m) {
    WireWriter w = start(MsgId::kStateRequest);
    w.u32(m.transfer_id);
    w.u32(m.frame);
    return w.take();
}

std::optional<StateRequest> decode_state_request(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kStateRequest);
    StateRequest m;
    m.transfer_id = r.u32();
    m.frame = r.u32();
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const StateHeader& m) {
    WireWriter w = start(MsgId::kStateHeader);
    w.u32(m.transfer_id);
    w.u8(static_cast<std::uint8_t>(m.purpose));
    w.u8(m.available ? 1 : 0);
    w.u32(m.frame);
    w.u8(m.delay);
    w.u32(m.raw_size);
    w.u32(m.compressed_size);
    w.u32(m.crc32);
    return w.take();
}

std::optional<StateHeader> decode_state_header(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kStateHeader);
    StateHeader m;
    m.transfer_id = r.u32();
    const std::uint8_t purpose = r.u8();
    const std::uint8_t available = r.u8();
    m.frame = r.u32();
    m.delay = r.u8();
    m.raw_size = r.u32();
    m.compressed_size = r.u32();
    m.crc32 = r.u32();
    if (purpose > static_cast<std::uint8_t>(StatePurpose::kStart) || available > 1) r.fail();
    m.purpose = static_cast<StatePurpose>(purpose);
    m.available = available == 1;
    // Sizes are checked against the caps by whoever accepts the transfer (with a message
    // that names them); here only what cannot be a state at all.
    if (m.available && (m.raw_size == 0 || m.compressed_size == 0)) r.fail();
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const StateChunk& m) {
    WireWriter w = start(MsgId::kStateChunk);
    w.u32(m.transfer_id);
    w.u32(m.offset);
    w.u16(static_cast<std::uint16_t>(std::min(m.bytes.size(), kStateChunkBytes) - 1));
    w.bytes(std::span(m.bytes).first(std::min(m.bytes.size(), kStateChunkBytes)));
    return w.take();
}

std::optional<StateChunk> decode_state_chunk(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kStateChunk);
    StateChunk m;
    m.transfer_id = r.u32();
    m.offset = r.u32();
    const std::size_t n = static_cast<std::size_t>(r.u16()) + 1;
    if (n > kStateChunkBytes) r.fail();
    const auto data = r.bytes(r.failed() ? 0 : n);
    m.bytes.assign(data.begin(), data.end());
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const StateAck& m) {
    WireWriter w = start(MsgId::kStateAck);
    w.u32(m.transfer_id);
    w.u32(m.received);
    return w.take();
}

std::optional<StateAck> decode_state_ack(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kStateAck);
    StateAck m;
    m.transfer_id = r.u32();
    m.received = r.u32();
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const ResyncReport& m) {
    WireWriter w = start(MsgId::kResyncReport);
    w.u32(m.frame);
    w.u32(m.desync_frame);
    w.u32(m.resumed_frame);
    w.string(m.regions, 1024);
    return w.take();
}

std::optional<ResyncReport> decode_resync_report(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kResyncReport);
    ResyncReport m;
    m.frame = r.u32();
    m.desync_frame = r.u32();
    m.resumed_frame = r.u32();
    m.regions = r.string(1024);
    return finish(r, m);
}

namespace {

void write_ranges(WireWriter& w, const std::vector<ByteRange>& ranges) {
    w.u8(static_cast<std::uint8_t>(std::min(ranges.size(), kMaxMaskRanges)));
    for (std::size_t i = 0; i < ranges.size() && i < kMaxMaskRanges; ++i) {
        w.u32(static_cast<std::uint32_t>(ranges[i].offset));
        w.u32(static_cast<std::uint32_t>(ranges[i].length));
    }
}

// Sorted, disjoint, non-empty and inside the largest state: anything else is malformed.
bool read_ranges(WireReader& r, std::vector<ByteRange>& out) {
    const std::size_t n = r.u8();
    if (n > kMaxMaskRanges) return false;
    std::uint64_t end = 0;
    for (std::size_t i = 0; i < n; ++i) {
        ByteRange range;
        range.offset = r.u32();
        range.length = r.u32();
        const std::uint64_t last = std::uint64_t{range.offset} + range.length;
        if (r.failed() || range.length == 0 || range.offset < end || last > kMaxStateBytes)
            return false;
        end = last;
        out.push_back(range);
    }
    return true;
}

}  // namespace

std::vector<std::uint8_t> encode(const MovedBytes& m) {
    WireWriter w = start(MsgId::kMovedBytes);
    w.u32(m.frame);
    w.u32(m.state_size);
    w.u8(m.overflow ? 1 : 0);
    write_ranges(w, m.overflow ? std::vector<ByteRange>{} : m.ranges);
    return w.take();
}

std::optional<MovedBytes> decode_moved_bytes(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kMovedBytes);
    MovedBytes m;
    m.frame = r.u32();
    m.state_size = r.u32();
    const std::uint8_t overflow = r.u8();
    if (overflow > 1 || m.state_size > kMaxStateBytes || !read_ranges(r, m.ranges))
        return std::nullopt;
    m.overflow = overflow == 1;
    if (m.overflow && !m.ranges.empty()) return std::nullopt;
    return finish(r, m);
}

std::vector<std::uint8_t> encode(const EvidenceMask& m) {
    WireWriter w = start(MsgId::kEvidenceMask);
    w.u16(m.generation);
    w.u32(m.from_frame);
    w.u8(static_cast<std::uint8_t>(m.kind));
    write_ranges(w, m.ranges);
    return w.take();
}

std::optional<EvidenceMask> decode_evidence_mask(std::span<const std::uint8_t> bytes) {
    WireReader r = open(bytes, MsgId::kEvidenceMask);
    EvidenceMask m;
    m.generation = r.u16();
    m.from_frame = r.u32();
    const std::uint8_t kind = r.u8();
    if (kind > static_cast<std::uint8_t>(EvidenceKind::kMemory) || !read_ranges(r, m.ranges))
        return std::nullopt;
    m.kind = static_cast<EvidenceKind>(kind);
    return finish(r, m);
}

}  // namespace framelock::netplay
