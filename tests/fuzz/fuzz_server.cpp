// The server's handshake and everything after it: a netplay::Server on the simulated
// network, with three peers whose every datagram comes from the input (fuzz_session.h has
// the format). Peers 0 and 1 say a valid Hello first, so mutated traffic reaches a running
// session: inputs, hashes, state uploads, late joins, reconnects, spectators.
//
// Invariants checked after every op: confirmed frames never go back and stay within what
// the clock and the inputs received can justify (the bug where every player went away and
// the server confirmed neutral frames until memory ran out), the delay schedule only moves
// forward, and the per-slot figures stay in range.
#include <array>
#include <memory>
#include <optional>

#include "netplay/server/server.h"
#include "netplay/sim/sim_network.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_session.h"
#include "tests/fuzz/fuzz_targets.h"

namespace framelock::fuzz {
namespace {

using namespace netplay;

constexpr Micros kMaxServerSimulatedUs = 20'000'000;  // an input plays at most this long

struct Peer {
    std::unique_ptr<Transport> transport;
    PeerId server = 0;
    // What the server told this peer: its newest Challenge, the rejoin token of its Welcome.
    std::optional<Challenge> challenge;
    std::optional<RejoinToken> token;
    BoxKeys keys = new_box_keys();  // the Welcome seals the token to them
};

class ServerHarness {
  public:
    explicit ServerHarness(std::uint8_t flags)
        : m_config(fuzz_server_config(flags)), m_server(*m_endpoint, m_clock, m_config) {}

    void send(int p, Channel channel, std::span<const std::uint8_t> bytes) {
        Peer& peer = connected(p);
        if (peek_id(bytes) == MsgId::kClientInput) ++m_inputs_sent;
        peer.transport->send(peer.server, channel, bytes);
    }
    void close(int p) { m_peers[p].transport.reset(); }

    // A Hello that answers the peer's newest Challenge (if one came) the way a real client
    // would: the password its role needs and, with `rejoin`, the token it was last given.
    void send_valid_hello(int p, bool spectator, bool rejoin) {
        Peer& peer = connected(p);
        Hello hello;
        hello.requested_slot = spectator ? 0 : static_cast<std::uint8_t>(p + 1);
        hello.player_name = kFuzzPeerNames[p];
        hello.content_name = "game.sim";
        hello.identity = fuzz_identity();
        hello.role = spectator ? Role::kSpectator : Role::kPlayer;
        hello.box_key = peer.keys.public_key;
        if (peer.challenge) {
            const std::string& password =
                spectator ? m_config.spectator_password : m_config.password;
            if (!password.empty()) {
                if (const auto key =
                        derive_password_key(password, peer.challenge->salt, peer.challenge->kdf))
                    hello.password_proof = password_proof(*key, peer.challenge->nonce, hello.role);
            }
            if (rejoin && peer.token)
                hello.rejoin_proof = rejoin_proof(*peer.token, peer.challenge->nonce);
        }
        send(p, Channel::kControl, encode(hello));
    }
    void advance(Micros us) { m_clock.advance(us); }
    Micros elapsed() const { return m_clock.now_us() - kFuzzClockStart; }

    // Lets the network deliver what is due and the server work, then checks it. (The
    // peers' side is drained only: what the server says is the client target's input.)
    void step() {
        m_server.update();
        for (auto& peer : m_peers) {
            if (!peer.transport) continue;
            while (auto event = peer.transport->poll()) {
                if (event->type == TransportEvent::Type::kDisconnected) break;
                if (event->type != TransportEvent::Type::kMessage) continue;
                if (auto challenge = decode_challenge(event->data)) peer.challenge = challenge;
                if (auto welcome = decode_welcome(event->data)) {
                    if (auto token = open_token(welcome->sealed_token, peer.keys))
                        peer.token = token;
                }
            }
        }
        check();
    }

    void connect(int p) { connected(p); }

  private:
    Peer& connected(int p) {
        Peer& peer = m_peers[p];
        if (!peer.transport) {
            peer.transport = m_net.create_endpoint(kFuzzPeerNames[p]);
            peer.server = peer.transport->connect("server").value();
        }
        return peer;
    }

    void check() {
        while (auto event = m_server.poll_event()) {
            FUZZ_CHECK(event->slot >= 0 && event->slot <= kMaxPlayers);
        }
        const std::uint32_t confirmed = m_server.confirmed_frames();
        FUZZ_CHECK(confirmed >= m_confirmed);
        m_confirmed = confirmed;
        // Each frame confirmed needs a player's input, or (no-wait) its deadline to pass.
        std::uint64_t bound = (m_inputs_sent + 1) * (m_config.max_frames_ahead + 256);
        if (m_server.started() && m_clock.now_us() > m_server.start_time_us())
            bound +=
                static_cast<std::uint64_t>(m_clock.now_us() - m_server.start_time_us()) / 16'000 +
                256;
        FUZZ_CHECK(confirmed <= bound);
        const auto& schedule = m_server.schedule();
        for (std::size_t i = 1; i < schedule.size(); ++i)
            FUZZ_CHECK(schedule[i - 1].frame < schedule[i].frame);
        int last_slot = 0;
        for (const SlotStats& st : m_server.slot_stats()) {
            FUZZ_CHECK(st.slot > last_slot && st.slot <= m_config.players);
            last_slot = st.slot;
        }
        FUZZ_CHECK(m_server.spectators() <= m_config.max_spectators);
        FUZZ_CHECK(!m_server.ended() || m_server.started());
    }

    ServerConfig m_config;
    ManualClock m_clock{kFuzzClockStart};
    SimNetwork m_net{1, m_clock};
    std::unique_ptr<Transport> m_endpoint = m_net.create_endpoint("server");
    Server m_server;
    std::array<Peer, kFuzzPeers> m_peers;
    std::uint64_t m_inputs_sent = 0;
    std::uint32_t m_confirmed = 0;
};

}  // namespace

int fuzz_server(const std::uint8_t* data, std::size_t size) {
    FuzzInput in(data, size);
    const std::uint8_t flags = in.u8();
    ServerHarness harness(flags);
    if (!(flags & kRawHandshake)) {
        // Connected and challenged first, so each Hello answers its Challenge.
        for (int p = 0; p < 2; ++p) harness.connect(p);
        harness.step();
        for (int p = 0; p < 2; ++p) harness.send_valid_hello(p, false, false);
    }
    harness.step();
    while (!in.empty() && harness.elapsed() < kMaxServerSimulatedUs) {
        const std::uint8_t h = in.u8();
        const int peer = (h >> 2) % kFuzzPeers;
        switch (h & 3) {
            case kOpSend: {
                const auto channel = static_cast<Channel>((h >> 4) % kChannelCount);
                harness.send(peer, channel, in.blob());
                break;
            }
            case kOpAdvance:
                harness.advance((in.u8() + 1) * kFuzzAdvanceUnitUs);
                break;
            case kOpClose:
                harness.close(peer);
                break;
            case kOpValid:
                harness.send_valid_hello(peer, (h & 0x10) != 0, (h & 0x20) != 0);
                break;
        }
        harness.step();
    }
    return 0;
}

}  // namespace framelock::fuzz
