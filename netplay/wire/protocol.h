// The netplay wire protocol: message structs and their encoders/decoders.
//
// Every message starts with a one-byte id. Ids are grouped by range:
//   0x01-0x0f  session control, reliable (Channel::kControl)
//   0x10-0x1f  real-time traffic, unreliable (Channel::kInput)
//   0x20-0x2f  integrity and statistics, reliable (Channel::kControl)
//   0x30-0x3f  state transfer, reliable (Channel::kBulk, its own queue)
// The handshake (Hello) carries a magic number and the protocol version. Decoders return
// nullopt for anything malformed: truncated, trailing bytes, counts out of range.
// Each message's fields are listed once, in wire order with their wire types and what a
// decoder accepts, by its `fields` function in protocol.cpp: the encoder and the decoder both
// walk that list (netplay/wire/wire_fields.h).
//
// Latency comes first, bytes second: inputs travel every frame and, on a lossy link, twice.
// Within that, the real-time messages stay small: frame numbers travel as their low 16 bits and are
// expanded against the receiver's own frame (valid within +-32767 frames, 9 minutes at 60 fps),
// times as the low 32 bits of microseconds, and input words run-length coded.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/types.h"
#include "netplay/crypto/join_proof.h"
#include "netplay/crypto/server_identity.h"
#include "netplay/crypto/session_keys.h"

namespace framelock::netplay {

inline constexpr std::uint32_t kProtocolMagic = 0x4b434c46;  // "FLCK"
// 2: rollback; 3: join/resync; 4: inputs every frame, the server's own round trip (echo of its
// updates), sampling lateness, redundant copies; 5: one start state for every player; 6: desync
// evidence without the state bytes a load moves (MovedBytes, EvidenceMask); 8: every message
// after the Welcome sealed (key exchange keys in Hello and Welcome, netplay/crypto/
// session_keys.h); 9: the per-frame messages within the bandwidth budget with the seal (runs
// without a run count, acknowledgements a byte from the frame beside them, a ServerUpdate's
// shape in two bytes); 10: the Welcome signed by the server's key (server_identity.h); 11: a
// rollback client reports what re-running a frame costs it (ClientStats::rerun_frame_us); 12: up
// to 15 schedule entries in a ServerUpdate (keyframes every 15 frames), the client's one-way
// trips in its ClientStats (the path floor measured, one_way_trips.h), and a third copy of each
// datagram on a bursty link (ServerUpdate::copies up to 3); 13: the hybrid turns into the frame
// lock mid-session on a desync (ModeChange, and each player's FrameLockFrom), and a server
// without a core plays it only while its players vouch for their savestates (SavestateVouch);
// 14: chat (ChatSay up, ChatLine down, Welcome::chat).
inline constexpr std::uint16_t kProtocolVersion = 14;
inline constexpr std::size_t kStateChunkBytes = 16 * 1024;
// The largest state a session transfers, uncompressed (the largest libretro states, of
// disc-based systems, are a few MiB).
inline constexpr std::uint32_t kMaxStateBytes = 64u << 20;
inline constexpr std::size_t kMaxFramesPerMessage = 240;
// Player names on the wire (bytes of UTF-8); a suffix that tells two alike apart fits too.
inline constexpr std::size_t kMaxNameBytes = 40;
// A player's Bye reason as the server keeps it and relays it to the others (bytes of safe
// text, netplay/base/safe_text.h): the wire carries up to 1 KiB, a reason needs a line.
inline constexpr std::size_t kMaxReasonBytes = 120;
// A chat message as the server keeps and relays it (bytes of safe text: a line a person
// reads at a glance); the wire carries up to kMaxChatWireBytes, the server cuts the rest.
inline constexpr std::size_t kMaxChatBytes = 160;
inline constexpr std::size_t kMaxChatWireBytes = 1024;
// A SavestateVouch's note (why a player's savestates fail the check: the check's own message,
// which names the frame and the memory that differed): two lines.
inline constexpr std::size_t kMaxNoteBytes = 240;
// Schedule entries a ServerUpdate carries at most (its shape holds the count in 4 bits): with
// keyframes every 15 frames, 225 frames' decisions, about what it carries of frames (240).
inline constexpr std::size_t kMaxScheduleEntries = 15;
inline constexpr std::uint8_t kMaxCopies = 3;  // ServerUpdate::copies
// Each datagram goes ServerUpdate::copies times (both ways), the copies these long after the
// first. On a lossy link, twice: the copy 2 ms later, so an independent loss of the first
// costs next to nothing. On a bursty link (every copy of two datagrams in a row was lost
// lately, server_tuning.h: a burst of loss, tens of milliseconds on a real link, a queue
// overflowing or a radio fading, takes the two copies together), three times: the third half a 60
// fps frame after the first, so a frame's inputs wait at most 8 ms after a burst that began with
// the first, where they would wait for the next frame's datagram, up to 16.7. Spacing the one copy
// 8 ms instead costs every independent loss 6 ms (bench_netplay_delay --quick: the adaptive delay
// 0.4-0.9 frames higher at 20-100 ms with 1 % loss); sending three on every lossy link costs half
// its bytes again (a bursty link: 397 B/frame both ways against 268 with two copies).
inline constexpr std::int64_t kCopySpacingUs = 2'000;
inline constexpr std::int64_t kSpreadCopyUs = 8'000;
inline constexpr std::array<std::int64_t, 2> kCopyOffsetsUs = {kCopySpacingUs, kSpreadCopyUs};
// Clock readings on the wire (Welcome::server_time_us, Start::start_time_us) lie within
// +-2^60 us (36,000 years): beyond, sums and differences of two of them could overflow.
inline constexpr std::int64_t kMaxClockUs = std::int64_t{1} << 60;

enum class MsgId : std::uint8_t {
    kHello = 0x01,
    kWelcome = 0x02,
    kReject = 0x03,
    kStart = 0x04,
    kBye = 0x05,
    kPlayerLeft = 0x06,
    kStateRequest = 0x07,
    kChallenge = 0x08,
    kModeChange = 0x09,
    kChatSay = 0x0a,
    kChatLine = 0x0b,
    kClientInput = 0x10,
    kServerUpdate = 0x11,
    kHashReport = 0x20,
    kDesync = 0x21,
    kClientStats = 0x22,
    kResyncReport = 0x23,
    kMovedBytes = 0x24,
    kEvidenceMask = 0x25,
    kFrameLockFrom = 0x26,
    kSavestateVouch = 0x27,
    kStateHeader = 0x30,
    kStateChunk = 0x31,
    kStateAck = 0x32,
};

// What must be equal on every peer for emulators to stay identical.
struct SessionIdentity {
    std::string core_name;
    std::string core_version;
    std::uint64_t content_hash = 0;
    std::uint64_t options_hash = 0;
    std::uint32_t fps_milli = 0;  // frames per second x 1000, rounded
    std::uint8_t ports = 0;       // controller ports connected (a game may read every one)
    friend bool operator==(const SessionIdentity&, const SessionIdentity&) = default;
};

// Server -> client, first on every connection: what the client's Hello must answer
// (join_proof.h). Its first fields are every version's, so a client can name a mismatch.
struct Challenge {
    std::uint32_t magic = kProtocolMagic;
    std::uint16_t version = kProtocolVersion;
    Nonce nonce{};
    Salt salt{};                      // password keys are derived with it ...
    KdfCost kdf;                      // ... at this cost
    bool player_password = false;     // the session's players need a password
    bool spectator_password = false;  // its spectators need one
};

struct Hello {
    std::uint32_t magic = kProtocolMagic;
    std::uint16_t version = kProtocolVersion;
    std::uint8_t requested_slot = 0;  // 1..8, 0 = any free slot
    std::string player_name;          // a display name, never a key to a slot
    std::string content_name;         // for messages only ("game.nes")
    SessionIdentity identity;
    Role role = Role::kPlayer;
    // The Challenge's nonce answered under the password (the players' or the spectators'),
    // and under the rejoin token of the slot this client held before (join_proof.h).
    std::optional<Proof> password_proof;
    std::optional<Proof> rejoin_proof;
    BoxPublicKey box_key{};  // this connection's: the Welcome seals the rejoin token to it
    KxPublicKey kx_key{};    // this connection's: the keys that seal what follows the Welcome
};

// How a session runs its emulators.
enum class SessionMode : std::uint8_t {
    kFrameLock = 0,  // a frame runs only with every player's input
    kRollback = 1,   // run ahead on predicted input, re-run when the real input differs
    kNoWait = 2,     // the server confirms each frame on time with the inputs it has
};

struct Welcome {
    std::uint8_t slot = 0;     // 1..8
    std::uint8_t players = 0;  // slots in the session
    std::uint16_t hash_interval = 0;
    std::uint16_t keyframe_interval = 0;
    std::uint8_t send_interval = 0;  // frames between input datagrams
    std::int64_t server_time_us = 0;
    SessionMode mode = SessionMode::kFrameLock;
    std::uint8_t prediction_window = 0;  // rollback: frames run ahead of confirmed input
    Role role = Role::kPlayer;           // spectators get slot 0
    bool late = false;                   // the session runs already: a state follows
    // The hybrid on a server without a core of its own: this player says whether its
    // savestates pass the rollback check (SavestateVouch), or the session plays frame lock.
    bool vouch_savestates = false;
    // Players keep their state at every multiple of this frame count (a multiple of the
    // hash and keyframe intervals): late joiners and resyncs start from one of them.
    std::uint16_t snapshot_interval = 60;
    bool chat = true;  // the server relays chat (off: `--no-chat`, ChatSay is dropped)
    std::string name;  // this client's display name here (a clash gets a suffix)
    // Players: the secret that takes this slot back from a new process (Hello::rejoin_proof),
    // a new one with every Welcome, sealed to the Hello's box key. Spectators: zero.
    SealedToken sealed_token{};
    // The server's key exchange key for this connection: with the Hello's, the keys that seal
    // every message after this one (session_keys.h).
    KxPublicKey kx_key{};
    // The server's key, and its signature over the Challenge's nonce, the Hello's key
    // exchange key and the one above (server_identity.h): a client that knows the server's
    // key joins only the server that holds it.
    ServerKey server_key{};
    ServerSignature signature{};
};

enum class RejectReason : std::uint8_t {
    kVersion = 1,
    kMismatch = 2,
    kFull = 3,
    kSlotTaken = 4,
    kAlreadyStarted = 5,
    kBadHello = 6,
    kPassword = 7,
    kNotSupported = 8,
};

struct Reject {
    RejectReason reason = RejectReason::kBadHello;
    std::string message;  // for the person: names both sides' values
};

struct Start {
    std::int64_t start_time_us = 0;  // server clock time of frame 0
    std::uint32_t frame_time_ns = 0;
    std::uint8_t delay = 0;  // input delay from frame 0 on
    std::uint8_t players = 0;
};

enum class ByeReason : std::uint8_t {
    kQuit = 1,
    kTimeout = 2,
    kProtocolError = 3,
    kServerShutdown = 4,
    kRejected = 5,
};

struct Bye {
    ByeReason reason = ByeReason::kQuit;
    std::string message;
};

struct PlayerLeft {
    std::uint8_t slot = 0;
    std::uint32_t frame = 0;  // from this frame on the slot's input is neutral
    std::string reason;
};

// One delay decision: from `frame` on, inputs sampled at frame f are for frame f + delay.
struct ScheduleEntry {
    std::uint32_t frame = 0;
    std::uint8_t delay = 0;
    friend bool operator==(const ScheduleEntry&, const ScheduleEntry&) = default;
};

struct ClientInput {
    // Per datagram, for the server's upstream loss count; echoed (ServerUpdate::echo_seq) so
    // the client measures its round trip and clock offset against its own send times.
    std::uint8_t seq = 0;
    std::uint16_t confirmed_ack = 0;  // low 16 bits: every confirmed frame <= this is held
    std::uint16_t latency_100us = 0;  // worst input round trip since the last datagram, 0.1 ms
    // How late this process took the samples since the last datagram, after their scheduled
    // time (ms, saturated at 255): a stalled process, not the network (the server does not
    // let such frames raise the delay).
    std::uint8_t late_ms = 0;
    // The newest ServerUpdate received (its seq) and how long it was held before this
    // datagram left (10 us units; kEchoHoldUnknown: nothing to echo, or held 655 ms or more).
    // The server measures its own round trip to this client with it, to check what the
    // client reports.
    std::uint8_t echo_seq = 0;
    std::uint16_t echo_hold_10us = 0;
    std::uint16_t first_frame = 0;  // low 16 bits of the frame of inputs[0]
    std::vector<InputWord> inputs;  // this player's pads from first_frame on
};

// ServerUpdate::echo_hold_10us saturated: the server held the echoed time too long to say
// (a client silent through a network outage); the echo measures no round trip.
inline constexpr std::uint16_t kEchoHoldUnknown = 65535;

struct ServerUpdate {
    std::uint8_t seq = 0;  // per datagram to this client, for its loss count
    // Low 24 bits of the server clock at sending, us: the client expands them (expand_time)
    // against its own estimate of the server clock, seeded by the Welcome, within a round
    // trip of it.
    std::uint32_t server_time = 0;
    std::uint8_t echo_seq = 0;            // newest ClientInput::seq received from this client
    std::uint16_t echo_hold_10us = 0;     // how long the server held it, 10 us units
                                          // (kEchoHoldUnknown: 655 ms or more)
    std::uint16_t input_ack = 0;          // low 16 bits: this client's inputs are held up to here
    std::vector<ScheduleEntry> schedule;  // decisions the client may not have yet
    std::uint16_t first_frame = 0;        // low 16 bits of the first confirmed frame below
    std::uint8_t players = 0;
    std::uint8_t present = 0;  // bit s-1: slot s has a player connected and playing
    // Times the client sends each input datagram (1; 2 when the server saw loss on this
    // client's link in either direction lately; 3 when it saw every copy of one lost: bursts),
    // the copies kCopyOffsetsUs after the first.
    std::uint8_t copies = 1;
    // The path floor as the server sees it now (Server::path_floor), frames; 0: not known yet.
    std::uint8_t path_floor = 0;
    std::vector<InputFrame> frames;  // confirmed inputs, every slot, from first_frame on
    // Rollback sessions: each slot's inputs the server holds beyond the confirmed frames
    // (from first_frame + frames.size() on), index = slot - 1; empty in frame lock.
    std::vector<std::vector<InputWord>> tails;
};

struct HashReport {
    std::uint32_t frame = 0;
    std::uint64_t hash = 0;        // desync evidence of the state after `frame` (evidence.h)
    std::uint16_t generation = 0;  // the EvidenceMask it was computed with (0: none yet)
};

// Ranges (ByteRange: on the wire u32 offset and length, inside kMaxStateBytes) one MovedBytes
// or EvidenceMask carries at most: a core with more scattered moving
// bytes is compared on its memory instead (EvidenceKind::kMemory).
inline constexpr std::size_t kMaxMaskRanges = 64;

// Player -> server, right after it loaded a state (the start state, a join or resync state):
// the bytes that moved, i.e. differ between the state it loaded and the state it saved right
// after, or between that save and a save after loading it once more. They are not game state
// (the game ran no frame), and they are what can differ between players who loaded the same
// bytes. `overflow`: more ranges than kMaxMaskRanges (none listed).
struct MovedBytes {
    std::uint32_t frame = 0;       // the loaded state's frame (the next frame to run)
    std::uint32_t state_size = 0;  // bytes of the loaded state
    bool overflow = false;
    std::vector<ByteRange> ranges;  // sorted, disjoint
};

// How players compare their machines for desyncs.
enum class EvidenceKind : std::uint8_t {
    kState = 0,   // the serialized state without the masked ranges
    kMemory = 1,  // the memory regions the core exposes (a state mostly made of moving bytes)
};

// Server -> players: from `from_frame` on, hash reports are computed this way and carry
// `generation`. Sent before Start (from frame 0) when a player's start state moved, and again
// whenever a later load (a joiner's, a resync's) moves bytes the mask does not cover yet.
struct EvidenceMask {
    std::uint16_t generation = 0;
    std::uint32_t from_frame = 0;
    EvidenceKind kind = EvidenceKind::kState;
    std::vector<ByteRange> ranges;  // sorted, disjoint
};

struct Desync {
    std::uint32_t frame = 0;            // first frame whose hashes disagreed
    std::uint8_t differing_slots = 0;   // bit s-1 set: slot s differs from the majority
    std::vector<std::uint64_t> hashes;  // per slot, 0 = not reported
};

// Server -> player: send your state at `frame` (a snapshot frame; the one you hold, or the
// one you reach next if it is ahead of you).
struct StateRequest {
    std::uint32_t transfer_id = 0;
    std::uint32_t frame = 0;
};

enum class StatePurpose : std::uint8_t {
    kUpload = 0,  // player -> server, answering a StateRequest
    kJoin = 1,    // server -> late joiner: start from this state
    kResync = 2,  // server -> divergent player: replace your state at `frame` with this
    kStart = 3,   // server -> every player before frame 0: the session's one start state
};

// Opens a transfer on Channel::kBulk; StateChunks follow in order, each acknowledged.
struct StateHeader {
    std::uint32_t transfer_id = 0;
    StatePurpose purpose = StatePurpose::kUpload;
    bool available = true;  // false: the sender no longer holds that frame (nothing follows)
    std::uint32_t frame = 0;
    std::uint8_t delay = 0;  // the input delay in force at `frame` (join)
    std::uint32_t raw_size = 0;
    std::uint32_t compressed_size = 0;
    std::uint32_t crc32 = 0;  // of the raw state
};

struct StateChunk {
    std::uint32_t transfer_id = 0;
    std::uint32_t offset = 0;  // into the compressed bytes
    std::vector<std::uint8_t> bytes;
};

struct StateAck {
    std::uint32_t transfer_id = 0;
    std::uint32_t received = 0;  // compressed bytes received so far
};

// A divergent player, after loading the reference state: what differed.
// Server -> every member: the hybrid saw a desync (its savestates or the core are not
// deterministic here), so the session runs in frame lock from now on: a player runs no frame
// ahead of its confirmed inputs, and a divergent one is repaired as in the frame lock. The one
// change a session makes: from kRollback to kFrameLock.
struct ModeChange {
    SessionMode mode = SessionMode::kFrameLock;
    std::uint32_t frame = 0;  // the server's confirmed frames when it decided
    std::string reason;       // why, for the log and the overlay (safe text, a line)
};

// Player -> server, once after a ModeChange: every frame from `frame` on runs in frame lock
// here (the frames it had predicted before are verified), so a repair may reach it from there.
struct FrameLockFrom {
    std::uint32_t frame = 0;
};

// Player -> server, once, when its Welcome asked (Welcome::vouch_savestates): whether its own
// core's savestates, with this content, reload faithfully as rollback reloads them (1 frame
// and a prediction window back), and if not, why (safe text, a line).
struct SavestateVouch {
    bool passed = false;
    std::string note;  // at most kMaxNoteBytes
};

// Member -> server: one chat message (a player's or a spectator's). The server makes it safe
// text, cuts it to kMaxChatBytes and, within the sender's rate, relays it as a ChatLine.
struct ChatSay {
    std::string text;
};

// The sender of a ChatLine that is the server's own notice (to one member: a message it did
// not relay, and why).
inline constexpr std::uint8_t kChatFromServer = 0xff;

// Server -> every member (players and spectators, the sender too): one chat line, safe text.
struct ChatLine {
    std::uint32_t frame = 0;     // the server's confirmed frames when it relayed the line
    std::uint8_t from_slot = 0;  // 1..8: a player; 0: a spectator; kChatFromServer: the server
    std::string from;            // the sender's display name (empty from the server)
    std::string text;
};

// A chat line as every place shows it: "P2 ann: gl hf", "spectator sam: go!", "server: not
// sent: ...". The sender's slot (which the server sets, never the sender) comes before the
// name, so that no name can pose as the server's notice or as another member's line. The name
// and text as they are (make them safe text first).
std::string chat_line_text(const ChatLine& line);

struct ResyncReport {
    std::uint32_t frame = 0;          // the reference state's frame
    std::uint32_t desync_frame = 0;   // the first frame whose hashes disagreed
    std::uint32_t resumed_frame = 0;  // its next frame after re-running to the present
    std::string regions;              // the differing memory regions, described
};

struct ClientStats {
    std::uint32_t frames_run = 0;
    std::uint32_t stall_frames = 0;
    std::uint16_t srtt_100us = 0;
    std::uint16_t rttvar_100us = 0;
    std::uint16_t down_loss_permille = 0;  // server datagrams lost on the way to this client
    std::uint32_t down_lost = 0;           // how many, since the session began
    // The client's own clock as this message left, in server time by the offset it took from
    // the Welcome and never corrected since (within +-kMaxClockUs). The server checks that it
    // only moves forward and keeps pace with its own (clock_check.h).
    std::int64_t clock_us = 0;
    // A rollback client: the 99th percentile of what one frame of its corrections cost (their
    // time over their depth), us; 0 before it has corrected enough to say (PredictionBudget).
    std::uint16_t rerun_frame_us = 0;
    // The client's worst one-way trips of the last 10 s, up (its datagrams to the server) and
    // down (the server's updates to it), on the synchronised clocks (one_way_trips.h), 0.1 ms;
    // 0: none measured yet.
    std::uint16_t up_100us = 0;
    std::uint16_t down_100us = 0;
};

std::optional<MsgId> peek_id(std::span<const std::uint8_t> bytes);
// What a message peek_id() does not know is, for a log line: "unknown message id 0x.. (N bytes)".
std::string describe_unknown(std::span<const std::uint8_t> bytes);

std::vector<std::uint8_t> encode(const Challenge& m);
std::vector<std::uint8_t> encode(const Hello& m);
std::vector<std::uint8_t> encode(const Welcome& m);
std::vector<std::uint8_t> encode(const Reject& m);
std::vector<std::uint8_t> encode(const Start& m);
std::vector<std::uint8_t> encode(const Bye& m);
std::vector<std::uint8_t> encode(const PlayerLeft& m);
std::vector<std::uint8_t> encode(const ClientInput& m);
std::vector<std::uint8_t> encode(const ServerUpdate& m);
std::vector<std::uint8_t> encode(const HashReport& m);
std::vector<std::uint8_t> encode(const Desync& m);
std::vector<std::uint8_t> encode(const ClientStats& m);
std::vector<std::uint8_t> encode(const StateRequest& m);
std::vector<std::uint8_t> encode(const StateHeader& m);
std::vector<std::uint8_t> encode(const StateChunk& m);
std::vector<std::uint8_t> encode(const StateAck& m);
std::vector<std::uint8_t> encode(const ResyncReport& m);
std::vector<std::uint8_t> encode(const MovedBytes& m);
std::vector<std::uint8_t> encode(const EvidenceMask& m);
std::vector<std::uint8_t> encode(const ModeChange& m);
std::vector<std::uint8_t> encode(const FrameLockFrom& m);
std::vector<std::uint8_t> encode(const SavestateVouch& m);
std::vector<std::uint8_t> encode(const ChatSay& m);
std::vector<std::uint8_t> encode(const ChatLine& m);

std::optional<Challenge> decode_challenge(std::span<const std::uint8_t> bytes);
std::optional<Hello> decode_hello(std::span<const std::uint8_t> bytes);
std::optional<Welcome> decode_welcome(std::span<const std::uint8_t> bytes);
std::optional<Reject> decode_reject(std::span<const std::uint8_t> bytes);
std::optional<Start> decode_start(std::span<const std::uint8_t> bytes);
std::optional<Bye> decode_bye(std::span<const std::uint8_t> bytes);
std::optional<PlayerLeft> decode_player_left(std::span<const std::uint8_t> bytes);
std::optional<ClientInput> decode_client_input(std::span<const std::uint8_t> bytes);
std::optional<ServerUpdate> decode_server_update(std::span<const std::uint8_t> bytes);
std::optional<HashReport> decode_hash_report(std::span<const std::uint8_t> bytes);
std::optional<Desync> decode_desync(std::span<const std::uint8_t> bytes);
std::optional<ClientStats> decode_client_stats(std::span<const std::uint8_t> bytes);
std::optional<StateRequest> decode_state_request(std::span<const std::uint8_t> bytes);
std::optional<StateHeader> decode_state_header(std::span<const std::uint8_t> bytes);
std::optional<StateChunk> decode_state_chunk(std::span<const std::uint8_t> bytes);
std::optional<StateAck> decode_state_ack(std::span<const std::uint8_t> bytes);
std::optional<ResyncReport> decode_resync_report(std::span<const std::uint8_t> bytes);
std::optional<MovedBytes> decode_moved_bytes(std::span<const std::uint8_t> bytes);
std::optional<EvidenceMask> decode_evidence_mask(std::span<const std::uint8_t> bytes);
std::optional<ModeChange> decode_mode_change(std::span<const std::uint8_t> bytes);
std::optional<FrameLockFrom> decode_frame_lock_from(std::span<const std::uint8_t> bytes);
std::optional<SavestateVouch> decode_savestate_vouch(std::span<const std::uint8_t> bytes);
std::optional<ChatSay> decode_chat_say(std::span<const std::uint8_t> bytes);
std::optional<ChatLine> decode_chat_line(std::span<const std::uint8_t> bytes);

// Why two identities differ, naming both sides' values ("" when equal): `reference`'s
// values (called `reference`, e.g. "session") against "yours".
std::string identity_mismatch(const SessionIdentity& reference,
                              const std::string& reference_content, const SessionIdentity& yours,
                              const std::string& your_content,
                              const std::string& reference_name = "session");

// The full frame whose low 16 bits are `low`, nearest to `reference`.
Frame expand_frame(std::uint16_t low, Frame reference);
// The full time whose low 24 bits are `low` (ServerUpdate::server_time), nearest to
// `reference`: right while `reference` is within 8.3 s of it.
std::int64_t expand_time(std::uint32_t low, std::int64_t reference);

}  // namespace framelock::netplay
