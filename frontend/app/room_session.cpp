#include "frontend/app/room_session.h"

#include "common/log.h"
#include "frontend/lobby_client/lobby_client.h"
#include "frontend/reach/reach_host.h"

namespace framelock::frontend {

Result<RoomSession> find_room_session(const JoinArgs& args) {
    const std::string& code = args.address;
    const nlohmann::json extra = nlohmann::json::object();
    auto joined = lobby::join_room(args.lobby_url, code, args.password, args.spectate, extra);
    if (!joined) return joined.error();
    RoomSession found;
    found.address = joined.value().server_address;
    if (joined.value().on_relay) {
        log_info("lobby: room {} plays on the relay {}", code, found.address);
        return found;
    }

    // The host serves the room itself: make sure a datagram gets through before connecting.
    ReachPlan plan;
    if (auto announced = netplay::parse_endpoint(joined.value().server_address))
        plan.candidates.push_back(announced.value());
    if (auto seen = netplay::parse_endpoint(joined.value().host_endpoint)) {
        if (plan.candidates.empty() || !(plan.candidates.front() == seen.value()))
            plan.candidates.push_back(seen.value());
    }
    if (auto ticket = netplay::secret_from_hex(joined.value().punch_ticket)) {
        auto lobby = lobby::rendezvous_endpoint(args.lobby_url);
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
    nlohmann::json relay = extra;
    relay["relay"] = true;
    auto relayed = lobby::join_room(args.lobby_url, code, args.password, args.spectate, relay);
    if (!relayed) return relayed.error();
    if (!relayed.value().on_relay) {
        return make_error(ErrorCode::kProtocol,
                          "cannot reach the host of room " + code +
                              " and the lobby put it on no relay: " + reached.error().message);
    }
    found.address = relayed.value().server_address;
    log_info("lobby: room {} moved to the relay {}: playing there", code, found.address);
    return found;
}

}  // namespace framelock::frontend
