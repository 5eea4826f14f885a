// What the two store backends share about rows: the column lists, the mapping of a row to
// a Room or RelayServer, and the SQL of a filtered room list. Internal to the backends
// (sqlite_store.cpp, pg_store.cpp); each passes a small accessor for its own row type.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lobby/store.h"

namespace framelock::lobby::rows {

// The room columns in the order read_room() expects them.
inline constexpr std::string_view kRoomColumns =
    "id, code, host_name, game_name, content_hash, core_name, core_version, mode, players, "
    "slots, spectators, has_password, region, server_address, server_id, created_ms, "
    "updated_ms, expires_ms, password_hash, token_hash, host_probes, fps_milli";
// The server columns in the order read_server() expects them.
inline constexpr std::string_view kServerColumns =
    "id, address, region, capacity, load, updated_ms, expires_ms, token_hash";

// Row: text(i) -> std::string, integer(i) -> int, int64(i) -> std::int64_t and
// flag(i) -> bool, for column i (0-based) of the current row.
template <class Row>
StoredRoom read_room(const Row& row) {
    StoredRoom stored;
    Room& r = stored.room;
    r.id = row.text(0);
    r.code = row.text(1);
    r.host_name = row.text(2);
    r.game_name = row.text(3);
    r.content_hash = row.text(4);
    r.core_name = row.text(5);
    r.core_version = row.text(6);
    r.mode = row.text(7);
    r.players = row.integer(8);
    r.slots = row.integer(9);
    r.spectators = row.integer(10);
    r.has_password = row.flag(11);
    r.region = row.text(12);
    r.server_address = row.text(13);
    r.server_id = row.text(14);
    r.created_ms = row.int64(15);
    r.updated_ms = row.int64(16);
    r.expires_ms = row.int64(17);
    stored.password_hash = row.text(18);
    stored.token_hash = row.text(19);
    r.host_probes = row.text(20);
    r.fps_milli = row.integer(21);
    return stored;
}

template <class Row>
RelayServer read_server(const Row& row) {
    RelayServer server;
    server.id = row.text(0);
    server.address = row.text(1);
    server.region = row.text(2);
    server.capacity = row.integer(3);
    server.load = row.integer(4);
    server.updated_ms = row.int64(5);
    server.expires_ms = row.int64(6);
    server.token_hash = row.text(7);
    return server;
}

using Param = std::variant<std::string, std::int64_t>;

struct RoomListQuery {
    std::string sql;
    std::vector<Param> params;  // parameter N (1-based) is params[N - 1]
};

// The live rooms matching `filter`, newest first. The SQL varies only in which fixed
// conditions it has; every value is a parameter, written `<placeholder>N` ('?' for SQLite,
// '$' for PostgreSQL).
inline RoomListQuery room_list_query(const RoomFilter& filter, std::int64_t now_ms,
                                     char placeholder) {
    RoomListQuery q;
    auto param = [&](Param value) {
        q.params.push_back(std::move(value));
        return placeholder + std::to_string(q.params.size());
    };
    q.sql =
        "SELECT " + std::string(kRoomColumns) + " FROM rooms WHERE expires_ms > " + param(now_ms);
    auto add = [&](std::string_view column, const std::optional<std::string>& value) {
        if (value) q.sql += " AND " + std::string(column) + " = " + param(*value);
    };
    add("game_name", filter.game);
    add("core_name", filter.core);
    add("mode", filter.mode);
    if (filter.has_slots) q.sql += " AND players < slots";
    q.sql += " ORDER BY created_ms DESC, id DESC LIMIT " +
             param(std::int64_t{std::max(filter.limit, 0)});
    q.sql += " OFFSET " + param(std::int64_t{std::max(filter.offset, 0)});
    return q;
}

}  // namespace framelock::lobby::rows
