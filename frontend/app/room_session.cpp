#include "frontend/app/room_session.h"

#include <fmt/format.h>

#include "common/log.h"
#include "frontend/lobby_client/lobby_client.h"
#include "frontend/reach/reach_host.h"
#include "netplay/base/safe_text.h"

namespace framelock::frontend {
namespace {

// ", expected input delay N frames (M ms round trip)", when the lobby could tell.
std::string expected(const lobby_client::JoinAnswer& answer) {
    if (!answer.expected_delay) return "";
    return fmt::format(", expected input delay {} frames ({:.0f} ms round trip)",
                       *answer.expected_delay, answer.expected_rtt_ms.value_or(0));
}

}  // namespace

Result<std::optional<netplay::ServerKey>> lobby_server_key(const std::string& text,
                                                           const std::string& address,
                                                           const std::string& given) {
    if (text.empty()) {
        if (!given.empty()) return netplay::parse_server_key(given);
        log_warn(
            "lobby: it keeps no key for the server at {}: whoever answers there is joined "
            "unchecked (--server-key checks it)",
            address);
        return std::optional<netplay::ServerKey>{};
    }
    const auto key = netplay::parse_server_key(text);
    if (!key) {
        return make_error(ErrorCode::kProtocol, "the lobby gave '" + safe_text(text, 64) +
                                                    "' as the key of the server at " + address +
                                                    ": not a key");
    }
    if (!given.empty() && given != text) {
        return make_error(ErrorCode::kUsage, "--server-key " + given + " is not the key " + text +
                                                 " the lobby gives for the server at " + address +
                                                 ": check which one the host printed");
    }
    return key;
}

Result<RoomSession> find_room_session(const JoinArgs& args) {
    const std::string& code = args.address;
    // Round trips to the live relays go with the join: the lobby puts a waiting room on the
    // relay that suits every player, and says what delay to expect there.
    lobby_client::JoinRequest request{args.password, args.spectate,
                                      lobby_client::probe_relays_json(args.lobby_url), false};
    auto joined = lobby_client::join_room(args.lobby_url, code, request);
    if (!joined) return joined.error();
    RoomSession found;
    found.address = joined.value().server_address;
    auto key = lobby_server_key(joined.value().server_key, found.address, args.server_key);
    if (!key) return key.error();
    found.server_key = key.value();
    if (joined.value().on_relay) {
        log_info("lobby: room {} plays on the relay {}{}", code, found.address,
                 expected(joined.value()));
        return found;
    }

    // The host serves the room itself: make sure a datagram gets through before connecting.
    ReachPlan plan;
    const auto announced = netplay::parse_endpoint(joined.value().server_address);
    const auto seen = netplay::parse_endpoint(joined.value().host_endpoint);
    const auto loopback = [](const netplay::Endpoint& e) { return (e.ipv4 >> 24) == 127; };
    // A host announced on 127.0.0.1 that the lobby saw elsewhere is not on this machine: a
    // probe there could only be answered by a server of our own.
    if (announced && !(loopback(announced.value()) && seen && !loopback(seen.value())))
        plan.candidates.push_back(announced.value());
    if (seen && (plan.candidates.empty() || !(plan.candidates.front() == seen.value())))
        plan.candidates.push_back(seen.value());
    if (auto ticket = netplay::secret_from_hex(joined.value().punch_ticket)) {
        auto lobby = lobby_client::rendezvous_endpoint(args.lobby_url);
        if (lobby) {
            plan.lobby = lobby.value();
            plan.ticket = *ticket;
        }
    }
    auto reached = reach_host(plan);
    if (reached) {
        found.address = reached.value().host.to_string();
        found.socket = std::move(reached.value().socket);
        log_info("lobby: room {} reached its host at {} {} (first answer in {:.1f} ms)", code,
                 found.address,
                 reached.value().punched ? "through the routers (hole punch)" : "directly",
                 static_cast<double>(reached.value().round_trip_us) / 1000.0);
        return found;
    }
    log_warn("lobby: cannot reach the host of room {}: {}; asking the lobby for a relay", code,
             reached.error().message);
    request.relay = true;
    auto relayed = lobby_client::join_room(args.lobby_url, code, request);
    if (!relayed) return relayed.error();
    if (!relayed.value().on_relay) {
        return make_error(ErrorCode::kProtocol,
                          "cannot reach the host of room " + code +
                              " and the lobby put it on no relay: " + reached.error().message);
    }
    found.address = relayed.value().server_address;
    auto relay_key = lobby_server_key(relayed.value().server_key, found.address, "");
    if (!relay_key) return relay_key.error();
    found.server_key = relay_key.value();
    log_info("lobby: room {} moved to the relay {}: playing there{}", code, found.address,
             expected(relayed.value()));
    return found;
}

}  // namespace framelock::frontend
