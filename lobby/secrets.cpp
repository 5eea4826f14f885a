#include "lobby/secrets.h"

#include <sodium.h>

#include <cstring>

namespace framelock::lobby {

bool secrets_ready() {
    static const bool ready = sodium_init() >= 0;
    return ready;
}

std::string random_hex(int bytes) {
    secrets_ready();
    std::string raw(static_cast<std::size_t>(bytes), '\0');
    randombytes_buf(raw.data(), raw.size());
    std::string hex(raw.size() * 2 + 1, '\0');
    sodium_bin2hex(hex.data(), hex.size(), reinterpret_cast<const unsigned char*>(raw.data()),
                   raw.size());
    hex.resize(raw.size() * 2);
    return hex;
}

std::string random_code() {
    secrets_ready();
    const std::size_t n = std::strlen(kCodeAlphabet);
    std::string code(6, ' ');
    for (char& c : code) c = kCodeAlphabet[randombytes_uniform(static_cast<std::uint32_t>(n))];
    return code;
}

std::string hash_password(const std::string& password) {
    secrets_ready();
    // OWASP's smallest Argon2id setting, 2 passes over 19 MiB (as netplay's KdfCost): a few
    // tens of ms a check, so that 20 guesses a second cost the lobby half a core, not both
    // (libsodium's "interactive" 64 MiB took 0.1 s each). Each stored hash names its own
    // cost, so a room made under another one still verifies.
    constexpr unsigned long long kPasses = 2;
    constexpr std::size_t kMemory = 19u << 20;
    char out[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str(out, password.data(), password.size(), kPasses, kMemory) != 0) {
        return {};  // out of memory: the caller refuses the request
    }
    return out;
}

bool check_password(const std::string& stored_hash, const std::string& password) {
    secrets_ready();
    if (stored_hash.empty() || stored_hash.size() >= crypto_pwhash_STRBYTES) return false;
    char copy[crypto_pwhash_STRBYTES] = {};
    std::memcpy(copy, stored_hash.data(), stored_hash.size());
    return crypto_pwhash_str_verify(copy, password.data(), password.size()) == 0;
}

std::string hash_token(const std::string& token) {
    secrets_ready();
    unsigned char digest[crypto_generichash_BYTES];
    crypto_generichash(digest, sizeof digest, reinterpret_cast<const unsigned char*>(token.data()),
                       token.size(), nullptr, 0);
    char hex[crypto_generichash_BYTES * 2 + 1];
    sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
    return hex;
}

bool check_token(const std::string& stored_hash, const std::string& token) {
    const std::string h = hash_token(token);
    return h.size() == stored_hash.size() &&
           sodium_memcmp(h.data(), stored_hash.data(), h.size()) == 0;
}

}  // namespace framelock::lobby
