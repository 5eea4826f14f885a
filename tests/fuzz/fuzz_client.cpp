// The client side: a netplay::Client (with a HashingEmulator) on the simulated network,
// whose server is the input (fuzz_session.h has the format): Welcome, Start, updates,
// state requests and transfers, desync notices, anything. Unless the flags say otherwise
// the harness first sends a valid Welcome and Start, so mutated traffic reaches a running
// client.
//
// Invariants checked after every op: the client's state only moves forward (connecting,
// lobby, joining, running, ended); once running, its next frame never goes back; frames it
// calls final never exceed the frames it ran; transfer progress stays within 0..1.
#include <memory>

#include "netplay/client.h"
#include "netplay/sim_network.h"
#include "netplay/sim_session.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_session.h"
#include "tests/fuzz/fuzz_targets.h"

namespace framelock::fuzz {
namespace {

using namespace netplay;

constexpr Micros kMaxSimulatedUs = 30'000'000;

ClientConfig client_config() {
    ClientConfig c;
    c.server_address = "server";
    c.requested_slot = 1;
    c.player_name = kFuzzPeerNames[0];
    c.identity = fuzz_identity();
    return c;
}

class Harness {
  public:
    explicit Harness(std::uint8_t flags) : m_mode(fuzz_mode(flags)) { m_client.start(); }

    void send(Channel channel, std::span<const std::uint8_t> bytes) {
        if (m_peer) m_server->send(*m_peer, channel, bytes);
    }
    void send_handshake() {
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
        if (m_peer) m_server->disconnect(*m_peer);
        m_peer.reset();
    }
    void advance(Micros us) { m_clock.advance(us); }
    Micros elapsed() const { return m_clock.now_us() - kFuzzClockStart; }

    // The network delivers what is due, the client runs what it can, then the checks.
    void step() {
        while (auto event = m_server->poll()) {
            if (event->type == TransportEvent::Type::kConnected && !m_closed) m_peer = event->peer;
            if (event->type == TransportEvent::Type::kDisconnected) m_closed = true;
        }
        m_client.tick(static_cast<InputWord>(m_pad++ * 37));
        check();
    }

  private:
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
    std::unique_ptr<Transport> m_server = m_net.create_endpoint("server");
    std::unique_ptr<Transport> m_endpoint = m_net.create_endpoint(kFuzzPeerNames[0]);
    HashingEmulator m_emulator;
    Client m_client{*m_endpoint, m_clock, m_emulator, client_config()};
    std::optional<PeerId> m_peer;
    bool m_closed = false;
    std::uint32_t m_pad = 0;
    Client::State m_state = Client::State::kIdle;
    std::uint32_t m_next_frame = 0;
};

}  // namespace

int fuzz_client(const std::uint8_t* data, std::size_t size) {
    FuzzInput in(data, size);
    const std::uint8_t flags = in.u8();
    Harness harness(flags);
    harness.step();  // the client's connection arrives
    if (!(flags & kRawHandshake)) harness.send_handshake();
    while (!in.empty() && harness.elapsed() < kMaxSimulatedUs) {
        const std::uint8_t h = in.u8();
        switch (h & 3) {
            case kOpSend:
                harness.send(static_cast<Channel>((h >> 4) % kChannelCount), in.blob());
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
