// The relays' part of the lobby's API (lobby/api.h): relay servers register with the
// operator's relay key and heartbeat with their own token (/api/servers), and players store
// their round trips to the relays (/api/probes), kept per address so that their room lists
// can show each room's expected delay.
#pragma once

#include <cstddef>
#include <string>

#include "lobby/api_types.h"
#include "lobby/probe_table.h"
#include "lobby/relay_choice.h"
#include "lobby/store.h"

namespace framelock::lobby {

class RelayRoutes {
  public:
    // Keeps references to `store` and `config`, which outlive it.
    RelayRoutes(LobbyStore& store, const ApiConfig& config);

    // Thread-safe, as LobbyApi::handle. Each throws a Refusal (lobby/api_reply.h) for a
    // request it cannot serve.
    ApiResponse register_server(const ApiRequest& request);
    ApiResponse heartbeat_server(const std::string& id, const ApiRequest& request);
    ApiResponse list_servers(const ApiRequest& request);
    ApiResponse store_probes(const ApiRequest& request);

    // The caller's probes: the request's `probes` query (id:ms,id:ms), else those its
    // address stored; empty when neither.
    RelayProbes probes_of_caller(const ApiRequest& request) const;
    // Addresses whose probes are kept now.
    std::size_t probe_entries() const { return m_probes.size(); }

  private:
    LobbyStore& m_store;
    const ApiConfig& m_config;
    ProbeTable m_probes;
};

}  // namespace framelock::lobby
