#include "netplay/crypto/datagram_seal.h"

#include <sodium.h>

#include <limits>

namespace framelock::netplay {
namespace {

static_assert(kSealKeyBytes == crypto_aead_chacha20poly1305_ietf_KEYBYTES);
static_assert(kSealTagBytes <= crypto_aead_chacha20poly1305_ietf_ABYTES);

using AeadNonce = std::array<std::uint8_t, crypto_aead_chacha20poly1305_ietf_NPUBBYTES>;
using Tag = std::array<std::uint8_t, crypto_aead_chacha20poly1305_ietf_ABYTES>;

// The lane, then the counter (little-endian), then zeros.
AeadNonce nonce_of(std::uint8_t lane, std::uint64_t counter) {
    AeadNonce nonce{};
    nonce[0] = lane;
    for (int i = 0; i < 8; ++i) nonce[1 + i] = static_cast<std::uint8_t>(counter >> (8 * i));
    return nonce;
}

// Encrypts `plain` into `out` (as long) and returns the whole tag.
Tag encrypt(const SealKey& key, const AeadNonce& nonce, std::span<const std::uint8_t> plain,
            std::uint8_t* out) {
    Tag tag;
    unsigned long long tag_length = 0;
    crypto_aead_chacha20poly1305_ietf_encrypt_detached(out, tag.data(), &tag_length, plain.data(),
                                                       plain.size(), nullptr, 0, nullptr,
                                                       nonce.data(), key.data());
    return tag;
}

}  // namespace

DatagramSeal::DatagramSeal(const SealKeys& keys) : m_keys(keys) {}

DatagramSeal::~DatagramSeal() {
    sodium_memzero(&m_keys, sizeof m_keys);
}

std::vector<std::uint8_t> DatagramSeal::seal(std::uint8_t lane,
                                             std::span<const std::uint8_t> plain) {
    if (lane >= kSealLanes || m_sent[lane] == std::numeric_limits<std::uint64_t>::max()) return {};
    const std::uint64_t counter = m_sent[lane]++;
    std::vector<std::uint8_t> out(kSealHeaderBytes + plain.size() + kSealTagBytes);
    out[0] = static_cast<std::uint8_t>(counter);
    const Tag tag =
        encrypt(m_keys.send, nonce_of(lane, counter), plain, out.data() + kSealHeaderBytes);
    std::copy(tag.begin(), tag.begin() + kSealTagBytes, out.end() - kSealTagBytes);
    return out;
}

std::optional<std::vector<std::uint8_t>> DatagramSeal::open(std::uint8_t lane,
                                                            std::span<const std::uint8_t> sealed) {
    m_refusal = Refusal::kAltered;
    if (lane >= kSealLanes || sealed.size() < kSealOverheadBytes) return std::nullopt;
    ReplayWindow& window = m_received[lane];
    const auto ciphertext = sealed.subspan(kSealHeaderBytes, sealed.size() - kSealOverheadBytes);
    const std::uint8_t* tag = sealed.data() + sealed.size() - kSealTagBytes;
    std::vector<std::uint8_t> plain(ciphertext.size());
    std::vector<std::uint8_t> again(ciphertext.size() + 1);  // never empty: its data() is non-null
    for (unsigned ahead = 0; ahead <= kSealLookahead; ++ahead) {
        const std::uint64_t counter = window.expand(sealed[0], ahead);
        if (!window.fresh(counter)) {
            m_refusal = Refusal::kReplayed;  // unless a counter further on opens it
            continue;
        }
        const AeadNonce nonce = nonce_of(lane, counter);
        // Block 0 keys Poly1305; the message is XORed from block 1 on, as the AEAD does.
        // (An empty message has nothing to XOR: libsodium declares these pointers non-null.)
        if (!ciphertext.empty()) {
            crypto_stream_chacha20_ietf_xor_ic(plain.data(), ciphertext.data(), ciphertext.size(),
                                               nonce.data(), 1, m_keys.receive.data());
        }
        const Tag expected = encrypt(m_keys.receive, nonce, plain, again.data());
        if (sodium_memcmp(expected.data(), tag, kSealTagBytes) != 0) continue;
        window.accept(counter);
        m_refusal = Refusal::kNone;
        return plain;
    }
    return std::nullopt;
}

}  // namespace framelock::netplay
