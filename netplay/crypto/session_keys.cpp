#include "netplay/crypto/session_keys.h"

#include <sodium.h>

#include <cstdlib>
#include <string_view>

namespace framelock::netplay {
namespace {

static_assert(kKxKeyBytes == crypto_kx_PUBLICKEYBYTES && kKxKeyBytes == crypto_kx_SECRETKEYBYTES);
static_assert(kSealKeyBytes == crypto_kx_SESSIONKEYBYTES);

// BLAKE2b keyed with the key exchange's key of one direction, over the direction's name, the
// Challenge's nonce and the binding (zeros without one): what the direction seals with.
SealKey bind(const std::uint8_t* kx_key, std::string_view direction, const Nonce& challenge,
             const std::optional<PasswordKey>& binding) {
    crypto_generichash_state state;
    crypto_generichash_init(&state, kx_key, crypto_kx_SESSIONKEYBYTES, kSealKeyBytes);
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(direction.data()),
                              direction.size());
    crypto_generichash_update(&state, challenge.data(), challenge.size());
    const std::uint8_t has_binding = binding ? 1 : 0;
    crypto_generichash_update(&state, &has_binding, 1);
    const PasswordKey zeros{};
    const PasswordKey& key = binding ? *binding : zeros;
    crypto_generichash_update(&state, key.data(), key.size());
    SealKey out;
    crypto_generichash_final(&state, out.data(), out.size());
    sodium_memzero(&state, sizeof state);
    return out;
}

constexpr std::string_view kUp = "framelock seal client->server";
constexpr std::string_view kDown = "framelock seal server->client";

}  // namespace

KxKeys new_kx_keys() {
    if (sodium_init() < 0) std::abort();  // no random source: no secret key either
    KxKeys keys;
    crypto_kx_keypair(keys.public_key.data(), keys.secret_key.data());
    return keys;
}

std::optional<SealKeys> client_seal_keys(const KxKeys& own, const KxPublicKey& server,
                                         const Nonce& challenge,
                                         const std::optional<PasswordKey>& binding) {
    std::array<std::uint8_t, crypto_kx_SESSIONKEYBYTES> rx, tx;
    if (crypto_kx_client_session_keys(rx.data(), tx.data(), own.public_key.data(),
                                      own.secret_key.data(), server.data()) != 0)
        return std::nullopt;
    SealKeys keys{bind(tx.data(), kUp, challenge, binding),
                  bind(rx.data(), kDown, challenge, binding)};
    sodium_memzero(rx.data(), rx.size());
    sodium_memzero(tx.data(), tx.size());
    return keys;
}

std::optional<SealKeys> server_seal_keys(const KxKeys& own, const KxPublicKey& client,
                                         const Nonce& challenge,
                                         const std::optional<PasswordKey>& binding) {
    std::array<std::uint8_t, crypto_kx_SESSIONKEYBYTES> rx, tx;
    if (crypto_kx_server_session_keys(rx.data(), tx.data(), own.public_key.data(),
                                      own.secret_key.data(), client.data()) != 0)
        return std::nullopt;
    SealKeys keys{bind(tx.data(), kDown, challenge, binding),
                  bind(rx.data(), kUp, challenge, binding)};
    sodium_memzero(rx.data(), rx.size());
    sodium_memzero(tx.data(), tx.size());
    return keys;
}

}  // namespace framelock::netplay
