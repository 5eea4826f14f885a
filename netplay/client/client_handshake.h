// How a client gets into a session: the server's Challenge answered with a Hello that proves
// the password (never sending it) and the rejoin token of the slot held before, and the
// Welcome's new rejoin token opened with this connection's box keys (join_proof.h); and the
// keys that seal everything after the Welcome (session_keys.h), bound to the password.
#pragma once

#include <optional>
#include <string>

#include "netplay/base/result.h"
#include "netplay/client/client_types.h"
#include "netplay/crypto/join_proof.h"
#include "netplay/crypto/server_identity.h"
#include "netplay/crypto/session_keys.h"
#include "netplay/interfaces/clock.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class ClientHandshake {
  public:
    // The transport connected at `now`: the server's Challenge is due.
    void connected(Micros now);
    bool hello_sent() const { return m_hello_sent; }
    // Connected, and no Challenge came in time: the server speaks an older protocol (it waits
    // for a Hello first). The error names the server at `server_address` and what to do.
    Status challenge_wait(Micros now, const std::string& server_address) const;
    // The Hello that answers `challenge` as `config` says (to be sent at once), or why this
    // client refuses to answer: another protocol version, or a password key cheaper than
    // `config.min_password_kdf` (the session then ends).
    Result<Hello> answer(const Challenge& challenge, const ClientConfig& config);
    // The Welcome: a player's rejoin token (sealed to this connection's box keys), and the
    // keys that seal what follows. An error ends the join: the Welcome is not signed by the
    // key it names, that key is not `pin` (naming both), or its key exchange key is unusable.
    Result<SealKeys> welcomed(const Welcome& welcome, const std::optional<ServerKey>& pin);
    std::optional<RejoinToken> rejoin_token() const { return m_rejoin_token; }
    // The key of the server that welcomed this client (checked as welcomed() says).
    std::optional<ServerKey> server_key() const { return m_server_key; }

  private:
    Micros m_connected_at = -1;  // the transport connected; the Challenge is due
    bool m_hello_sent = false;
    BoxKeys m_box_keys;  // this connection's: the Welcome's token is sealed to them
    std::optional<RejoinToken> m_rejoin_token;
    // The seal's key exchange: this connection's keys, the Challenge's nonce and the password
    // key the Hello proved (the binding), until the Welcome.
    KxKeys m_kx_keys;
    Nonce m_nonce{};
    std::optional<PasswordKey> m_binding;
    std::optional<ServerKey> m_server_key;
};

}  // namespace framelock::netplay
