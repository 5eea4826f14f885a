// One description of each record the lobby keeps (a room, a stored room, a relay server),
// walked by everything that lists its fields: the stores' SQL (column lists, values to bind,
// the update and upsert statements: lobby/store_rows.h), the mapping of a row back to the
// record, the API's JSON (lobby/record_json.h) and the web page's table (lobby/web_page.cpp).
// As netplay/wire/wire_fields.h does for wire messages, a record's fields are listed once, in
// a function
//
//     void fields(auto& io, RecordOf<RelayServer> auto& s) {
//         io.field("id", s.id, field::kKey | field::kShown);
//         io.field("capacity", s.capacity, field::kShown);
//         ...
//     }
//
// that each walker (found by argument-dependent lookup) calls with its own `io`. A walker
// has two member functions:
//
//     field(column, value, use, page)     // value: std::string, int, std::int64_t or bool
//     thousandths(column, value, shown_as, use)  // an int of thousandths (the frame rate)
//
// `column` is the field's column in the store and its name in the API's JSON; `use` says
// what else the lobby does with it (the field:: flags below); `page` is its column in the web
// page's table, if it has one. A reading walker gets the record mutable, a writing one const.
//
// The schema's migrations (lobby/schema.cpp) stay as they shipped: a new field here needs a
// new migration that adds its column.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "lobby/store.h"

namespace framelock::lobby {

// A record of type T as a walker sees it: const when written out, mutable when read in.
template <class M, class T>
concept RecordOf = std::same_as<std::remove_const_t<M>, T>;

// What the lobby does with a field besides keeping it in the store (combined with |).
namespace field {
inline constexpr unsigned kKept = 0;                // in the store only
inline constexpr unsigned kKey = 1u << 0;           // the row's key: updates find the row by it
inline constexpr unsigned kShown = 1u << 1;         // in the API's JSON, named as its column
inline constexpr unsigned kUpdated = 1u << 2;       // LobbyStore::update_room() replaces it
inline constexpr unsigned kRelay = 1u << 3;         // names the relay a room is on
inline constexpr unsigned kFollowsRelay = 1u << 4;  // update_room() replaces it only while
                                                    // the room is still on the relay (kRelay)
                                                    // the caller read: a move wins
}  // namespace field

// A field's column in the web page's table of rooms: `id` is the cell's data-col (and, with
// `row_hook`, the row's data-ID attribute holding the field's value), `heading` the table
// head's text. An empty id: not on the page.
struct PageColumn {
    std::string_view id;
    std::string_view heading;
    bool row_hook = false;
};

// A room as the API shows it and the store keeps it. The fields the web page shows come in
// the order of the page's columns.
void fields(auto& io, RecordOf<Room> auto& r) {
    using namespace field;
    io.field("id", r.id, kKey | kShown);
    io.field("code", r.code, kShown, {"code", "Code", true});
    io.field("game_name", r.game_name, kShown | kUpdated, {"game", "Game", true});
    io.field("host_name", r.host_name, kShown | kUpdated, {"host", "Host"});
    io.field("players", r.players, kShown | kUpdated, {"players", "Players"});
    io.field("slots", r.slots, kShown | kUpdated);
    io.field("spectators", r.spectators, kShown | kUpdated, {"spectators", "Watching"});
    io.field("mode", r.mode, kShown, {"mode", "Mode", true});
    io.field("core_name", r.core_name, kShown, {"core", "Core"});
    io.field("core_version", r.core_version, kShown);
    io.field("region", r.region, kShown | kUpdated, {"region", "Region"});
    io.field("content_hash", r.content_hash, kShown);
    io.field("has_password", r.has_password, kShown);
    io.field("server_address", r.server_address, kShown | kFollowsRelay);
    io.field("server_id", r.server_id, kRelay);
    io.field("server_key", r.server_key, kShown | kFollowsRelay);
    io.field("host_probes", r.host_probes, kKept);
    io.thousandths("fps_milli", r.fps_milli, "fps", kShown);
    io.field("created_ms", r.created_ms, kShown);
    io.field("updated_ms", r.updated_ms, kShown | kUpdated);
    io.field("expires_ms", r.expires_ms, kShown | kUpdated);
}

// A room with the hashes of its secrets, which never leave the store.
void fields(auto& io, RecordOf<StoredRoom> auto& s) {
    fields(io, s.room);
    io.field("password_hash", s.password_hash, field::kKept);
    io.field("token_hash", s.token_hash, field::kKept);
}

void fields(auto& io, RecordOf<RelayServer> auto& s) {
    using namespace field;
    io.field("id", s.id, kKey | kShown);
    io.field("address", s.address, kShown);
    io.field("region", s.region, kShown);
    io.field("server_key", s.server_key, kShown);
    io.field("capacity", s.capacity, kShown);
    io.field("load", s.load, kShown);
    io.field("updated_ms", s.updated_ms, kShown);
    io.field("expires_ms", s.expires_ms, kShown);
    io.field("token_hash", s.token_hash, kKept);
}

}  // namespace framelock::lobby
