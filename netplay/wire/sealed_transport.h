// A Transport that seals what it carries for the peers it has keys for (after the join) and
// passes the handshake through in clear. Server and Client each talk through one, over the
// real transport: every message to or from a sealed peer is encrypted and authenticated by a
// DatagramSeal (netplay/crypto/datagram_seal.h), the transport channel as its lane. A message
// from a sealed peer that does not open is dropped and counted (PeerStats::altered, replayed);
// so is a message in clear from a sealed peer.
//
// The client learns its keys from the Welcome, which travels on kControl; the server seals
// its updates (kInput) and state (kBulk) right after sending it, and those channels may
// overtake kControl. hold_until_sealed() makes the peer's messages on the other channels wait
// (at most kMaxHeld, the oldest dropped) until seal() gives the keys, then opens them.
//
// Threading: none; one thread owns it, as the transport under it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netplay/crypto/datagram_seal.h"
#include "netplay/interfaces/transport.h"

namespace framelock::netplay {

class SealedTransport final : public Transport {
  public:
    static constexpr std::size_t kMaxHeld = 64;

    // `inner` outlives this.
    explicit SealedTransport(Transport& inner) : m_inner(inner) {}

    Result<PeerId> connect(const std::string& address) override { return m_inner.connect(address); }
    void send(PeerId peer, Channel channel, std::span<const std::uint8_t> data) override;
    std::optional<TransportEvent> poll() override;
    void flush() override { m_inner.flush(); }
    void disconnect(PeerId peer) override { m_inner.disconnect(peer); }
    // The inner transport's counts, with the messages refused.
    PeerStats stats(PeerId peer) const override;
    std::string peer_address(PeerId peer) const override { return m_inner.peer_address(peer); }

    // From now on, everything to and from `peer` is sealed with `keys` (a new connection's;
    // a peer is sealed once).
    void seal(PeerId peer, const SealKeys& keys);
    bool sealed(PeerId peer) const;
    void hold_until_sealed(PeerId peer);

    // What a modified program does to its own messages before they are sealed: the
    // simulator's cheating clients and the tests' hostile ones (it has the keys, so the seal
    // is no obstacle to it). `messages` holds the one being sent; the rewrite may change it,
    // drop it or add others (the capacity benchmark only reads them). Unset in framelock itself.
    using Rewrite = std::function<void(Channel, std::vector<std::vector<std::uint8_t>>& messages)>;
    void rewrite_sends(Rewrite rewrite) { m_rewrite = std::move(rewrite); }

    // Sees each message the application is handed, opened: the capacity benchmark's stamps
    // (a watcher below the seal sees only ciphertext). Unset in framelock itself.
    using Watch = std::function<void(const TransportEvent&)>;
    void watch_received(Watch watch) { m_watch = std::move(watch); }

  private:
    struct Peer {
        std::unique_ptr<DatagramSeal> seal;
        bool holding = false;
        std::deque<TransportEvent> held;
        std::uint64_t altered = 0;
        std::uint64_t replayed = 0;
    };
    // The event as the application sees it: nullopt when it is refused (and counted) or held.
    std::optional<TransportEvent> take(TransportEvent event);
    // `event` as poll() hands it out, shown to the watcher first.
    std::optional<TransportEvent> handed(std::optional<TransportEvent> event);
    std::optional<TransportEvent> open(Peer& peer, TransportEvent event);

    Transport& m_inner;
    std::map<PeerId, Peer> m_peers;      // only the peers sealed or held: the handshake costs none
    std::deque<TransportEvent> m_ready;  // opened after seal(), handed out first
    Rewrite m_rewrite;
    Watch m_watch;
    std::vector<std::uint8_t> m_sealed;  // the message being sent, sealed: its storage reused
};

}  // namespace framelock::netplay
