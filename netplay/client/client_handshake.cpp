#include "netplay/client/client_handshake.h"

namespace framelock::netplay {
namespace {
// Connected, a server that sends no Challenge this long speaks an older protocol (it waits
// for a Hello first).
constexpr Micros kChallengeWaitUs = 5'000'000;
}  // namespace

void ClientHandshake::connected(Micros now) {
    m_connected_at = now;
}

Status ClientHandshake::challenge_wait(Micros now, const std::string& server_address) const {
    if (m_connected_at < 0 || m_hello_sent || now - m_connected_at <= kChallengeWaitUs) return {};
    return make_error(ErrorCode::kProtocol,
                      "the server at " + server_address + " sent no Challenge within " +
                          std::to_string(kChallengeWaitUs / 1'000'000) +
                          " s: it runs an older framelock (protocol below " +
                          std::to_string(kProtocolVersion) + "); update the older side");
}

Result<Hello> ClientHandshake::answer(const Challenge& challenge, const ClientConfig& config) {
    if (challenge.version != kProtocolVersion) {
        return make_error(ErrorCode::kProtocol,
                          "protocol version mismatch: this framelock speaks " +
                              std::to_string(kProtocolVersion) + ", the server " +
                              std::to_string(challenge.version) +
                              " (update framelock on the older side)");
    }
    const bool spectating = config.role == Role::kSpectator;
    const bool needed = spectating ? challenge.spectator_password : challenge.player_password;
    Hello hello;
    hello.requested_slot = config.requested_slot;
    hello.player_name = config.player_name;
    hello.content_name = config.content_name;
    hello.identity = config.identity;
    hello.role = config.role;
    m_binding.reset();
    if (needed && !config.password.empty()) {
        // The password stays here: the server gets a hash of its nonce under a key derived
        // from it, good for this connection only.
        const KdfCost& least = config.min_password_kdf;
        if (!within_bounds(challenge.kdf) || challenge.kdf.passes < least.passes ||
            challenge.kdf.memory_kib < least.memory_kib) {
            return make_error(
                ErrorCode::kProtocol,
                "the server asks for a password key costing " +
                    std::to_string(challenge.kdf.passes) + " passes over " +
                    std::to_string(challenge.kdf.memory_kib) +
                    " KiB; this framelock derives one of " + std::to_string(least.passes) + "-" +
                    std::to_string(kMaxKdfCost.passes) + " passes over " +
                    std::to_string(least.memory_kib) + "-" +
                    std::to_string(kMaxKdfCost.memory_kib) +
                    " KiB (less would make the password cheap to guess from a captured join): "
                    "refused");
        }
        const auto key = derive_password_key(config.password, challenge.salt, challenge.kdf);
        if (!key)
            return make_error(ErrorCode::kProtocol,
                              "cannot derive the password key (out of memory?)");
        hello.password_proof = password_proof(*key, challenge.nonce, config.role);
        m_binding = key;
    }
    if (config.rejoin_token && !spectating)
        hello.rejoin_proof = rejoin_proof(*config.rejoin_token, challenge.nonce);
    m_box_keys = new_box_keys();
    hello.box_key = m_box_keys.public_key;
    m_kx_keys = new_kx_keys();
    hello.kx_key = m_kx_keys.public_key;
    m_nonce = challenge.nonce;
    m_hello_sent = true;
    return hello;
}

Result<SealKeys> ClientHandshake::welcomed(const Welcome& welcome,
                                           const std::optional<ServerKey>& pin) {
    const bool signed_whole = welcome_signed_by(welcome.server_key, welcome.signature, m_nonce,
                                                m_kx_keys.public_key, welcome.kx_key);
    auto keys = client_seal_keys(m_kx_keys, welcome.kx_key, m_nonce, m_binding);
    m_kx_keys = {};
    m_binding.reset();
    if (!signed_whole) {
        return make_error(ErrorCode::kProtocol,
                          "the server's Welcome is not signed by the key it names (" +
                              server_key_text(welcome.server_key) +
                              "): altered on the way or forged; refused");
    }
    if (pin && *pin != welcome.server_key) {
        return make_error(
            ErrorCode::kProtocol,
            "the server that answered holds the key " + server_key_text(welcome.server_key) +
                ", but this session's server holds " + server_key_text(*pin) +
                ": another machine answers at that address (a redirect on the way, or an "
                "impostor); refused, and nothing more is sent to it");
    }
    if (!keys) {
        return make_error(ErrorCode::kProtocol,
                          "the server's Welcome carries an unusable key (not a framelock server?)");
    }
    m_server_key = welcome.server_key;
    if (welcome.role == Role::kPlayer)
        m_rejoin_token = open_token(welcome.sealed_token, m_box_keys);
    return *keys;
}

}  // namespace framelock::netplay
