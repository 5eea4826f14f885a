#include "lobby/relay_routes.h"

#include <nlohmann/json.hpp>

#include <utility>

#include "common/log.h"
#include "lobby/api_reply.h"
#include "lobby/record_json.h"
#include "lobby/request_validation.h"
#include "lobby/secrets.h"

namespace framelock::lobby {

using json = nlohmann::json;

RelayRoutes::RelayRoutes(LobbyStore& store, const ApiConfig& config)
    : m_store(store), m_config(config), m_probes(config.probes) {}

ApiResponse RelayRoutes::register_server(const ApiRequest& r) {
    // Relays are the operator's: a relay holds every input and state of the sessions the
    // lobby sends to it. The key is checked before anything else of the request is read.
    if (m_config.relay_key_hash.empty())
        throw Refusal{403,
                      "this lobby takes no relay servers: its operator set no relay key "
                      "(lobby serve --relay-key-file or FRAMELOCK_RELAY_KEY)"};
    if (r.bearer.empty() || !check_token(m_config.relay_key_hash, r.bearer)) {
        log_warn("lobby: relay registration from {} refused: {} relay key", r.client,
                 r.bearer.empty() ? "no" : "a wrong");
        throw Refusal{401, std::string(r.bearer.empty() ? "registering a relay server needs"
                                                        : "wrong relay key: registering a "
                                                          "relay server needs") +
                               " the lobby operator's relay key (Authorization: Bearer KEY; "
                               "framelock server --relay-key-file or FRAMELOCK_RELAY_KEY)"};
    }
    const json body = parse_body(r, true);
    RelayServer server;
    server.address = *text_field(body, "address", 3, 261, true);
    if (!valid_address(server.address)) throw Refusal{400, "\"address\" must be host:port"};
    server.region = text_field(body, "region", 0, 32, false).value_or("");
    if (!all_of_chars(server.region, "-_", true))
        throw Refusal{400, "\"region\" may hold a-z, 0-9, - and _ only"};
    // What joiners check they reach this relay's sessions by.
    server.server_key = server_key_field(body, "server_key");
    server.capacity = *integer_field(body, "capacity", 1, 100'000, true);
    server.load = integer_field(body, "load", 0, 100'000, false).value_or(0);
    const std::string token = random_hex(32);
    server.token_hash = hash_token(token);
    server.id = random_hex(16);
    server.updated_ms = r.now_ms;
    server.expires_ms = r.now_ms + m_config.server_ttl_ms;
    need(m_store.upsert_server(server));
    return reply(201, json{{"server", server_json(server)},
                           {"token", token},
                           {"heartbeat_ms", m_config.server_ttl_ms / 3}});
}

ApiResponse RelayRoutes::heartbeat_server(const std::string& id, const ApiRequest& r) {
    auto server = need(m_store.get_server(id, r.now_ms));
    if (!server) return error(404, "no live server " + id + "; register again");
    if (r.bearer.empty())
        return error(401, "this needs the server's token (Authorization: Bearer)");
    if (!check_token(server->token_hash, r.bearer))
        return error(403, "wrong token for server " + id);
    const json body = parse_body(r, false);
    if (auto v = integer_field(body, "capacity", 1, 100'000, false)) server->capacity = *v;
    if (auto v = integer_field(body, "load", 0, 100'000, false)) server->load = *v;
    server->updated_ms = r.now_ms;
    server->expires_ms = r.now_ms + m_config.server_ttl_ms;
    need(m_store.upsert_server(*server));
    return reply(200, server_json(*server));
}

ApiResponse RelayRoutes::list_servers(const ApiRequest& r) {
    json servers = json::array();
    for (const auto& s : need(m_store.list_servers(r.now_ms))) servers.push_back(server_json(s));
    return reply(200, json{{"servers", servers}});
}

ApiResponse RelayRoutes::store_probes(const ApiRequest& r) {
    const json body = parse_body(r, true);
    if (!body.contains("probes")) throw Refusal{400, "\"probes\" is required"};
    RelayProbes probes = probes_field(body);
    const std::size_t n = probes.size();
    m_probes.put(r.client, std::move(probes), r.now_ms);
    return reply(200, json{{"stored", n}, {"expires_ms", r.now_ms + m_config.probes.ttl_ms}});
}

RelayProbes RelayRoutes::probes_of_caller(const ApiRequest& r) const {
    if (const auto it = r.query.find("probes"); it != r.query.end() && !it->second.empty()) {
        if (it->second.size() > 4096) throw Refusal{400, "query \"probes\" is too long"};
        return probes_query(it->second);
    }
    return m_probes.get(r.client, r.now_ms).value_or(RelayProbes{});
}

}  // namespace framelock::lobby
