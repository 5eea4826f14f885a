// The client side: a netplay::Client (with a small hash-chain emulator) on the simulated network,
// whose server is the input (fuzz_session.h has the format): Welcome, Start, updates,
// state requests and transfers, desync notices, anything. Unless the flags say otherwise
// the harness first welcomes the client as a real server does (a Challenge, the client's
// Hello, a signed Welcome with the key exchange, then Start), so mutated traffic reaches a
// running client.
//
// The harness's server talks through a SealedTransport, as the real one: once the Welcome is
// sent, everything the input sends is sealed with the connection's keys before the client
// sees it, so the input is the traffic above the seal (a datagram that fails to open would
// only be dropped). A Welcome of the input is signed by the harness for the client's Hello
// and the first Challenge sent (the client answers that one): its other fields stay the
// input's. A send op with h & 0x04 goes as is: neither signed nor sealed.
//
// Invariants checked after every op: the client's state only moves forward (connecting,
// lobby, joining, running, ended); once running, its next frame never goes back; frames it
// calls final never exceed the frames it ran; transfer progress stays within 0..1.
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "netplay/client/client.h"
#include "netplay/crypto/server_identity.h"
#include "netplay/sim/sim_network.h"
#include "netplay/wire/sealed_transport.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_session.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/support/welcome_keys.h"

namespace framelock::fuzz {
namespace {

using namespace netplay;

constexpr Micros kMaxClientSimulatedUs = 30'000'000;

// The harness server's key, one per process: its bytes change nothing the client does.
const ServerIdentity& harness_identity() {
    static const ServerIdentity identity;
    return identity;
}

// A game for the client to run: its state a hash chain over the inputs, like
// HashingEmulator's, without HashingEmulator's per-frame logs (indexed by frame number, they
// would grow to whatever frame a hostile server names).
class ChainEmulator final : public Emulator {
  public:
    void run_frame(const InputFrame& inputs, bool) override {
        for (InputWord pad : inputs.pads) m_state = (m_state ^ pad) * 0x9e3779b97f4a7c15ull + 1;
        ++m_frames;
    }
    std::uint64_t frame_count() const override { return m_frames; }
    bool save_state(std::vector<std::uint8_t>& out) override {
        out.resize(16);
        for (int i = 0; i < 8; ++i) {
            out[i] = static_cast<std::uint8_t>(m_state >> (8 * i));
            out[8 + i] = static_cast<std::uint8_t>(m_frames >> (8 * i));
        }
        return true;
    }
    bool load_state(std::span<const std::uint8_t> state) override {
        if (state.size() != 16) return false;
        m_state = m_frames = 0;
        for (int i = 0; i < 8; ++i) {
            m_state |= static_cast<std::uint64_t>(state[i]) << (8 * i);
            m_frames |= static_cast<std::uint64_t>(state[8 + i]) << (8 * i);
        }
        return true;
    }
    void rewind_to(std::uint64_t next_frame) override { m_frames = next_frame; }
    std::uint64_t state_hash() override { return m_state; }
    std::vector<MemoryRegion> memory_regions() override {
        for (int i = 0; i < 8; ++i) m_ram[i] = static_cast<std::uint8_t>(m_state >> (8 * i));
        return {MemoryRegion{"CHAIN", 0x100, std::span<const std::uint8_t>(m_ram)}};
    }
    double frames_per_second() const override { return 60.0; }

  private:
    std::uint64_t m_state = 0x6a09e667f3bcc908ull, m_frames = 0;
    std::array<std::uint8_t, 8> m_ram{};
};

ClientConfig client_config() {
    ClientConfig c;
    c.server_address = "server";
    c.requested_slot = 1;
    c.player_name = kFuzzPeerNames[0];
    c.identity = fuzz_identity();
    return c;
}

class ClientHarness {
  public:
    explicit ClientHarness(std::uint8_t flags) : m_mode(fuzz_mode(flags)) { m_client.start(); }

    // A message of the server's: a Welcome signed for this connection, and from the Welcome
    // on everything sealed; `as_is`: neither.
    void send(Channel channel, std::span<const std::uint8_t> bytes, bool as_is = false) {
        if (!m_peer) return;
        const auto id = peek_id(bytes);
        if (id == MsgId::kChallenge && !m_nonce) {
            if (const auto challenge = decode_challenge(bytes)) m_nonce = challenge->nonce;
        }
        if (as_is) {
            m_wire->send(*m_peer, channel, bytes);
            return;
        }
        if (id == MsgId::kWelcome && m_hello && m_nonce && !m_server.sealed(*m_peer)) {
            if (auto welcome = decode_welcome(bytes)) {
                const auto keys =
                    test::sign_welcome(*welcome, *m_nonce, m_hello->kx_key, harness_identity());
                m_server.send(*m_peer, channel, encode(*welcome));
                // The client's own key exchange key: always usable.
                if (keys) m_server.seal(*m_peer, *keys);
                return;
            }
        }
        m_server.send(*m_peer, channel, bytes);
    }
    // A real server's welcome: its Challenge, the client's Hello (a step of the client), the
    // Welcome, and the Start.
    void send_handshake() {
        Challenge challenge;
        challenge.nonce = random_array<kNonceBytes>();
        send(Channel::kControl, encode(challenge));
        step();
        Welcome welcome;
        welcome.slot = 1;
        welcome.players = 2;
        welcome.hash_interval = 60;
        welcome.keyframe_interval = 30;
        welcome.send_interval = m_mode == SessionMode::kRollback ? 1 : 2;
        welcome.server_time_us = m_clock.now_us();
        welcome.mode = m_mode;
        welcome.prediction_window = 8;
        send(Channel::kControl, encode(welcome));
        Start start;
        start.start_time_us = m_clock.now_us() + 100'000;
        start.frame_time_ns = 16'666'667;
        start.delay = m_mode == SessionMode::kFrameLock ? 2 : 1;
        start.players = 2;
        send(Channel::kControl, encode(start));
    }
    void close() {
        if (m_peer) m_server.disconnect(*m_peer);
        m_peer.reset();
    }
    void advance(Micros us) { m_clock.advance(us); }
    Micros elapsed() const { return m_clock.now_us() - kFuzzClockStart; }

    // The network delivers what is due, the client runs what it can, the server hears what
    // it said (its Hello), then the checks.
    void step() {
        drain_server();
        m_client.tick(static_cast<InputWord>(m_pad++ * 37));
        drain_server();
        check();
    }

  private:
    void drain_server() {
        while (auto event = m_server.poll()) {
            if (event->type == TransportEvent::Type::kConnected && !m_closed) m_peer = event->peer;
            if (event->type == TransportEvent::Type::kDisconnected) m_closed = true;
            if (event->type == TransportEvent::Type::kMessage && !m_hello &&
                peek_id(event->data) == MsgId::kHello)
                m_hello = decode_hello(event->data);
        }
    }

    void check() {
        while (auto event = m_client.poll_event()) FUZZ_CHECK(event->slot >= 0);
        const auto state = m_client.state();
        FUZZ_CHECK(state >= m_state);
        m_state = state;
        if (state == Client::State::kRunning) {
            FUZZ_CHECK(m_client.next_frame() >= m_next_frame);
            m_next_frame = m_client.next_frame();
        }
        FUZZ_CHECK(m_client.final_frames() <= m_client.next_frame());
        FUZZ_CHECK(m_client.transfer_progress() >= 0.0 && m_client.transfer_progress() <= 1.0);
    }

    SessionMode m_mode;
    ManualClock m_clock{kFuzzClockStart};
    SimNetwork m_net{1, m_clock};
    std::unique_ptr<Transport> m_wire = m_net.create_endpoint("server");
    SealedTransport m_server{*m_wire};
    std::unique_ptr<Transport> m_endpoint = m_net.create_endpoint(kFuzzPeerNames[0]);
    ChainEmulator m_emulator;
    Client m_client{*m_endpoint, m_clock, m_emulator, client_config()};
    std::optional<PeerId> m_peer;
    bool m_closed = false;
    std::optional<Nonce> m_nonce;  // the first Challenge's: the one the client answers
    std::optional<Hello> m_hello;
    std::uint32_t m_pad = 0;
    Client::State m_state = Client::State::kIdle;
    std::uint32_t m_next_frame = 0;
};

}  // namespace

int fuzz_client(const std::uint8_t* data, std::size_t size) {
    FuzzInput in(data, size);
    const std::uint8_t flags = in.u8();
    ClientHarness harness(flags);
    harness.step();  // the client's connection arrives
    if (!(flags & kRawHandshake)) harness.send_handshake();
    while (!in.empty() && harness.elapsed() < kMaxClientSimulatedUs) {
        const std::uint8_t h = in.u8();
        switch (h & 3) {
            case kOpSend:
                harness.send(static_cast<Channel>((h >> 4) % kChannelCount), in.blob(),
                             (h & 0x04) != 0);
                break;
            case kOpAdvance:
                harness.advance((in.u8() + 1) * kFuzzAdvanceUnitUs);
                break;
            case kOpClose:
                harness.close();
                break;
            case kOpValid:
                harness.send_handshake();
                break;
        }
        harness.step();
    }
    return 0;
}

}  // namespace framelock::fuzz
