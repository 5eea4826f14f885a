// Seals and opens the messages of one connection after the join, with the keys of
// session_keys.h: ChaCha20-Poly1305 (IETF, libsodium) encrypts each message and authenticates
// it, under a nonce made of the message's lane (the transport channel it travels on: channels
// reorder among each other) and a counter that counts up per lane and direction. A nonce is
// never used twice under a key: the counter only grows, and each connection has new keys.
//
// On the wire a sealed message is: the counter's low 8 bits, the ciphertext (as long as the
// message), and the first kSealTagBytes of Poly1305's tag. The receiver expands the 8 bits to
// the counter nearest the newest it has (replay_window.h) and, if that does not open, the same
// low bits up to kSealLookahead periods of 256 further on: a gap of more lost messages than
// 128, up to 1024 (17 s of inputs at 60 a second, longer than a peer may stay silent). A
// message that opens under none (a byte changed anywhere, a tag cut short, a forgery) is
// refused as altered; one whose counter was seen already, or is older than the 64 before the
// newest, as replayed. Both are counted by the caller and dropped: the connection goes on.
//
// The tag is cut to 8 bytes, and the counter to 8 bits, to fit the bandwidth budget
// (docs/netplay.md, "Sealed traffic"). Sealing is libsodium's AEAD. Opening first computes the
// AEAD's tag over the ciphertext as it arrived, from libsodium's primitives (Poly1305 keyed by
// ChaCha20's block 0, over the AEAD's layout: RFC 8439, 2.8), compares its first 8 bytes in
// constant time, and decrypts (the ChaCha20 stream from block 1) only the message whose tag
// matched: a forgery costs no decryption. A forgery passes with probability about 2^-64 per
// counter tried, so at most (kSealLookahead + 1) * 2^-64 = 2^-62 per datagram (Poly1305's
// bound for a 64-bit tag and messages of a datagram's length).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "netplay/crypto/replay_window.h"
#include "netplay/crypto/session_keys.h"

namespace framelock::netplay {

inline constexpr std::size_t kSealHeaderBytes = 1;
inline constexpr unsigned kSealLookahead = 3;
inline constexpr std::size_t kSealTagBytes = 8;
inline constexpr std::size_t kSealOverheadBytes = kSealHeaderBytes + kSealTagBytes;
inline constexpr std::size_t kSealLanes = 4;

class DatagramSeal {
  public:
    enum class Refusal : std::uint8_t { kNone, kAltered, kReplayed };

    explicit DatagramSeal(const SealKeys& keys);
    ~DatagramSeal();
    DatagramSeal(const DatagramSeal&) = delete;
    DatagramSeal& operator=(const DatagramSeal&) = delete;

    // `plain` sealed under the lane's next counter, in `out` (its storage reused; `plain` must
    // not lie in it). False, `out` untouched, only when the lane (< kSealLanes) is out of
    // range or its counter is spent (2^64 messages: never, but a nonce is never reused).
    bool seal(std::uint8_t lane, std::span<const std::uint8_t> plain,
              std::vector<std::uint8_t>& out);
    // The same in a new vector, empty when refused.
    std::vector<std::uint8_t> seal(std::uint8_t lane, std::span<const std::uint8_t> plain);
    // Opens `datagram` where it lies: true and it holds the message (kSealOverheadBytes
    // shorter), or false, untouched (refusal() says why; the message is dropped).
    bool open_in_place(std::uint8_t lane, std::vector<std::uint8_t>& datagram);
    // The message in a new vector, or nullopt (refusal() says why).
    std::optional<std::vector<std::uint8_t>> open(std::uint8_t lane,
                                                  std::span<const std::uint8_t> sealed);
    Refusal refusal() const { return m_refusal; }

  private:
    // The counter under which `sealed` (as long as kSealOverheadBytes at least) is authentic,
    // accepted into the lane's window; or nullopt, m_refusal saying why.
    std::optional<std::uint64_t> authentic(std::uint8_t lane, std::span<const std::uint8_t> sealed);

    SealKeys m_keys;
    std::array<std::uint64_t, kSealLanes> m_sent{};  // the next counter per lane
    std::array<ReplayWindow, kSealLanes> m_received;
    Refusal m_refusal = Refusal::kNone;
};

}  // namespace framelock::netplay
