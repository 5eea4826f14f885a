#include "netplay/crypto/datagram_seal.h"

#include <sodium.h>

#include <cstring>
#include <limits>

namespace framelock::netplay {
namespace {

static_assert(kSealKeyBytes == crypto_aead_chacha20poly1305_ietf_KEYBYTES);
static_assert(kSealTagBytes <= crypto_aead_chacha20poly1305_ietf_ABYTES);
static_assert(crypto_onetimeauth_poly1305_BYTES == crypto_aead_chacha20poly1305_ietf_ABYTES);

using AeadNonce = std::array<std::uint8_t, crypto_aead_chacha20poly1305_ietf_NPUBBYTES>;
using Tag = std::array<std::uint8_t, crypto_aead_chacha20poly1305_ietf_ABYTES>;

// The lane, then the counter (little-endian), then zeros.
AeadNonce nonce_of(std::uint8_t lane, std::uint64_t counter) {
    AeadNonce nonce{};
    nonce[0] = lane;
    for (int i = 0; i < 8; ++i) nonce[1 + i] = static_cast<std::uint8_t>(counter >> (8 * i));
    return nonce;
}

// The AEAD's whole tag over `ciphertext`, with no associated data (RFC 8439, 2.8): Poly1305
// keyed by the first 32 bytes of ChaCha20's block 0, over the ciphertext padded with zeros to
// 16 bytes, then the associated data's length (0) and the ciphertext's, 64 bits little-endian
// each. (An empty ciphertext adds nothing, and its data() may be null: it is left out.)
Tag tag_of(const SealKey& key, const AeadNonce& nonce, std::span<const std::uint8_t> ciphertext) {
    static constexpr std::array<std::uint8_t, 16> kZeros{};
    std::array<std::uint8_t, crypto_onetimeauth_poly1305_KEYBYTES> one_time;
    crypto_stream_chacha20_ietf(one_time.data(), one_time.size(), nonce.data(), key.data());
    crypto_onetimeauth_poly1305_state state;
    crypto_onetimeauth_poly1305_init(&state, one_time.data());
    if (!ciphertext.empty()) {
        crypto_onetimeauth_poly1305_update(&state, ciphertext.data(), ciphertext.size());
        crypto_onetimeauth_poly1305_update(&state, kZeros.data(),
                                           (16 - ciphertext.size() % 16) % 16);
    }
    std::array<std::uint8_t, 16> lengths{};  // the associated data's, then the ciphertext's
    for (int i = 0; i < 8; ++i)
        lengths[8 + i] = static_cast<std::uint8_t>(std::uint64_t{ciphertext.size()} >> (8 * i));
    crypto_onetimeauth_poly1305_update(&state, lengths.data(), lengths.size());
    Tag tag;
    crypto_onetimeauth_poly1305_final(&state, tag.data());
    sodium_memzero(one_time.data(), one_time.size());
    sodium_memzero(&state, sizeof state);
    return tag;
}

// `size` bytes at `in` decrypted to `out` (the same place, or apart): the stream from block 1
// on, as the AEAD's (block 0 keyed Poly1305).
void decrypt(const SealKey& key, const AeadNonce& nonce, const std::uint8_t* in, std::uint8_t* out,
             std::size_t size) {
    if (size == 0) return;  // libsodium declares these pointers non-null: nothing to XOR
    crypto_stream_chacha20_ietf_xor_ic(out, in, size, nonce.data(), 1, key.data());
}

}  // namespace

DatagramSeal::DatagramSeal(const SealKeys& keys) : m_keys(keys) {}

DatagramSeal::~DatagramSeal() {
    sodium_memzero(&m_keys, sizeof m_keys);
}

bool DatagramSeal::seal(std::uint8_t lane, std::span<const std::uint8_t> plain,
                        std::vector<std::uint8_t>& out) {
    if (lane >= kSealLanes || m_sent[lane] == std::numeric_limits<std::uint64_t>::max())
        return false;
    const std::uint64_t counter = m_sent[lane]++;
    const AeadNonce nonce = nonce_of(lane, counter);
    out.resize(kSealHeaderBytes + plain.size() + kSealTagBytes);
    out[0] = static_cast<std::uint8_t>(counter);
    Tag tag;
    unsigned long long tag_length = 0;
    crypto_aead_chacha20poly1305_ietf_encrypt_detached(
        out.data() + kSealHeaderBytes, tag.data(), &tag_length, plain.data(), plain.size(), nullptr,
        0, nullptr, nonce.data(), m_keys.send.data());
    std::memcpy(out.data() + kSealHeaderBytes + plain.size(), tag.data(), kSealTagBytes);
    return true;
}

std::vector<std::uint8_t> DatagramSeal::seal(std::uint8_t lane,
                                             std::span<const std::uint8_t> plain) {
    std::vector<std::uint8_t> out;
    seal(lane, plain, out);
    return out;
}

std::optional<std::uint64_t> DatagramSeal::authentic(std::uint8_t lane,
                                                     std::span<const std::uint8_t> sealed) {
    m_refusal = Refusal::kAltered;
    if (lane >= kSealLanes || sealed.size() < kSealOverheadBytes) return std::nullopt;
    ReplayWindow& window = m_received[lane];
    const auto ciphertext = sealed.subspan(kSealHeaderBytes, sealed.size() - kSealOverheadBytes);
    const std::uint8_t* tag = sealed.data() + sealed.size() - kSealTagBytes;
    for (unsigned ahead = 0; ahead <= kSealLookahead; ++ahead) {
        const std::uint64_t counter = window.expand(sealed[0], ahead);
        if (!window.fresh(counter)) {
            m_refusal = Refusal::kReplayed;  // unless a counter further on opens it
            continue;
        }
        const Tag expected = tag_of(m_keys.receive, nonce_of(lane, counter), ciphertext);
        if (sodium_memcmp(expected.data(), tag, kSealTagBytes) != 0) continue;
        window.accept(counter);
        m_refusal = Refusal::kNone;
        return counter;
    }
    return std::nullopt;
}

bool DatagramSeal::open_in_place(std::uint8_t lane, std::vector<std::uint8_t>& datagram) {
    const auto counter = authentic(lane, datagram);
    if (!counter) return false;
    const std::size_t size = datagram.size() - kSealOverheadBytes;
    std::memmove(datagram.data(), datagram.data() + kSealHeaderBytes, size);
    datagram.resize(size);
    decrypt(m_keys.receive, nonce_of(lane, *counter), datagram.data(), datagram.data(), size);
    return true;
}

std::optional<std::vector<std::uint8_t>> DatagramSeal::open(std::uint8_t lane,
                                                            std::span<const std::uint8_t> sealed) {
    const auto counter = authentic(lane, sealed);
    if (!counter) return std::nullopt;
    std::vector<std::uint8_t> plain(sealed.size() - kSealOverheadBytes);
    decrypt(m_keys.receive, nonce_of(lane, *counter), sealed.data() + kSealHeaderBytes,
            plain.data(), plain.size());
    return plain;
}

}  // namespace framelock::netplay
