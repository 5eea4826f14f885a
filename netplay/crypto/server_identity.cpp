#include "netplay/crypto/server_identity.h"

#include <sodium.h>

#include <cstdlib>
#include <vector>

namespace framelock::netplay {
namespace {

static_assert(kServerKeyBytes == crypto_sign_PUBLICKEYBYTES);
static_assert(kServerSignatureBytes == crypto_sign_BYTES);

constexpr int kTextVariant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;

// What a Welcome's signature covers: a label (a signature made for anything else never
// passes for one), the nonce and both key exchange keys.
std::vector<std::uint8_t> signed_bytes(const Nonce& challenge, const KxPublicKey& client,
                                       const KxPublicKey& server) {
    static constexpr std::string_view kLabel = "framelock welcome v10";
    std::vector<std::uint8_t> out(kLabel.begin(), kLabel.end());
    out.insert(out.end(), challenge.begin(), challenge.end());
    out.insert(out.end(), client.begin(), client.end());
    out.insert(out.end(), server.begin(), server.end());
    return out;
}

}  // namespace

ServerIdentity::ServerIdentity() {
    if (sodium_init() < 0) std::abort();  // no random source: no secret key either
    static_assert(sizeof m_secret == crypto_sign_SECRETKEYBYTES);
    crypto_sign_keypair(m_public.data(), m_secret.data());
}

ServerIdentity::~ServerIdentity() {
    sodium_memzero(m_secret.data(), m_secret.size());
}

ServerSignature ServerIdentity::sign_welcome(const Nonce& challenge, const KxPublicKey& client,
                                             const KxPublicKey& server) const {
    const auto message = signed_bytes(challenge, client, server);
    ServerSignature signature{};
    crypto_sign_detached(signature.data(), nullptr, message.data(), message.size(),
                         m_secret.data());
    return signature;
}

bool welcome_signed_by(const ServerKey& key, const ServerSignature& signature,
                       const Nonce& challenge, const KxPublicKey& client,
                       const KxPublicKey& server) {
    if (sodium_init() < 0) return false;
    const auto message = signed_bytes(challenge, client, server);
    return crypto_sign_verify_detached(signature.data(), message.data(), message.size(),
                                       key.data()) == 0;
}

std::string server_key_text(const ServerKey& key) {
    std::string text(sodium_base64_ENCODED_LEN(kServerKeyBytes, kTextVariant), '\0');
    sodium_bin2base64(text.data(), text.size(), key.data(), key.size(), kTextVariant);
    text.resize(text.size() - 1);  // the terminating zero
    return text;
}

std::optional<ServerKey> parse_server_key(std::string_view text) {
    if (sodium_init() < 0) return std::nullopt;
    ServerKey key{};
    std::size_t length = 0;
    const char* end = nullptr;
    if (text.empty() ||
        sodium_base642bin(key.data(), key.size(), text.data(), text.size(), nullptr, &length, &end,
                          kTextVariant) != 0 ||
        length != key.size() || end != text.data() + text.size())
        return std::nullopt;
    // One text per key: base64's last character carries bits a key does not have.
    if (server_key_text(key) != text) return std::nullopt;
    return key;
}

}  // namespace framelock::netplay
