#include "netplay/crypto/join_proof.h"

#include <sodium.h>

#include <cstdlib>

#include "netplay/base/types.h"

namespace framelock::netplay {
namespace {

void need_sodium() {
    static const bool ready = sodium_init() >= 0;
    if (!ready) std::abort();  // no random source: nothing here can be kept secret
}

Proof keyed_hash(std::span<const std::uint8_t> key, std::string_view context, const Nonce& nonce,
                 std::uint8_t extra) {
    need_sodium();
    crypto_generichash_state state;
    crypto_generichash_init(&state, key.data(), key.size(), kProofBytes);
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(context.data()),
                              context.size());
    crypto_generichash_update(&state, nonce.data(), nonce.size());
    crypto_generichash_update(&state, &extra, 1);
    Proof proof;
    crypto_generichash_final(&state, proof.data(), proof.size());
    return proof;
}

}  // namespace

void random_bytes(std::span<std::uint8_t> out) {
    need_sodium();
    randombytes_buf(out.data(), out.size());
}

bool within_bounds(const KdfCost& cost) {
    return cost.passes >= kMinKdfCost.passes && cost.passes <= kMaxKdfCost.passes &&
           cost.memory_kib >= kMinKdfCost.memory_kib && cost.memory_kib <= kMaxKdfCost.memory_kib;
}

std::optional<PasswordKey> derive_password_key(const std::string& password, const Salt& salt,
                                               const KdfCost& cost) {
    static_assert(kSaltBytes == crypto_pwhash_SALTBYTES);
    if (!within_bounds(cost)) return std::nullopt;
    need_sodium();
    PasswordKey key;
    if (crypto_pwhash(key.data(), key.size(), password.data(), password.size(), salt.data(),
                      cost.passes, std::size_t{cost.memory_kib} * 1024,
                      crypto_pwhash_ALG_ARGON2ID13) != 0)
        return std::nullopt;
    return key;
}

Proof password_proof(const PasswordKey& key, const Nonce& nonce, Role role) {
    return keyed_hash(key, "framelock password", nonce, static_cast<std::uint8_t>(role));
}

Proof rejoin_proof(const RejoinToken& token, const Nonce& nonce) {
    return keyed_hash(token, "framelock rejoin", nonce, 0);
}

BoxKeys new_box_keys() {
    static_assert(kBoxKeyBytes == crypto_box_PUBLICKEYBYTES &&
                  kBoxKeyBytes == crypto_box_SECRETKEYBYTES);
    static_assert(kSealedTokenBytes == kRejoinTokenBytes + crypto_box_SEALBYTES);
    need_sodium();
    BoxKeys keys;
    crypto_box_keypair(keys.public_key.data(), keys.secret_key.data());
    return keys;
}

SealedToken seal_token(const RejoinToken& token, const BoxPublicKey& to) {
    need_sodium();
    SealedToken sealed{};
    crypto_box_seal(sealed.data(), token.data(), token.size(), to.data());
    return sealed;
}

std::optional<RejoinToken> open_token(const SealedToken& sealed, const BoxKeys& keys) {
    need_sodium();
    RejoinToken token;
    if (crypto_box_seal_open(token.data(), sealed.data(), sealed.size(), keys.public_key.data(),
                             keys.secret_key.data()) != 0)
        return std::nullopt;
    return token;
}

bool same_proof(const Proof& a, const Proof& b) {
    return sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string token_to_hex(const RejoinToken& token) {
    char hex[2 * kRejoinTokenBytes + 1];
    sodium_bin2hex(hex, sizeof hex, token.data(), token.size());
    return hex;
}

std::optional<RejoinToken> token_from_hex(const std::string& text) {
    if (text.size() != 2 * kRejoinTokenBytes) return std::nullopt;
    RejoinToken token;
    std::size_t length = 0;
    const char* end = nullptr;
    if (sodium_hex2bin(token.data(), token.size(), text.data(), text.size(), nullptr, &length,
                       &end) != 0 ||
        length != token.size() || end != text.data() + text.size())
        return std::nullopt;
    return token;
}

}  // namespace framelock::netplay
