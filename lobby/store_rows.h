// What the two store backends share about rows: the SQL of every statement that lists a
// record's fields, with the values to bind, and the mapping of a row back to a record, all
// walked from the records' one description (lobby/record_fields.h); and the SQL of a filtered
// room list. Internal to the backends (sqlite_store.cpp, pg_store.cpp): each passes the
// character its database writes parameters with ('?' for SQLite, '$' for PostgreSQL: "?3",
// "$3") and a small accessor for its own row type.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "lobby/record_fields.h"
#include "lobby/store.h"

namespace framelock::lobby::rows {

// A value bound to a parameter. Every field's value is one of these (an int as a 64-bit one).
using Param = std::variant<std::string, std::int64_t, bool>;

inline Param param_of(const std::string& v) {
    return v;
}
inline Param param_of(std::int64_t v) {
    return v;
}
inline Param param_of(int v) {
    return std::int64_t{v};
}
inline Param param_of(bool v) {
    return v;
}

// A statement and the values of its parameters: parameter N (1-based) is params[N - 1]. The
// SQL depends only on the records' description (and, for a list, on which filters it has),
// never on the values, so a backend may prepare it once and cache it by its text.
struct Query {
    std::string sql;
    std::vector<Param> params;

    // Adds `value` as the next parameter: its placeholder in the SQL.
    std::string param(Param value, char placeholder) {
        params.push_back(std::move(value));
        return placeholder + std::to_string(params.size());
    }
};

// A walker that takes a field of thousandths (the frame rate) as the plain integer it is in
// the store.
template <class Walker>
struct StoresThousandths {
    void thousandths(std::string_view column, auto& value, std::string_view, unsigned use) {
        static_cast<Walker&>(*this).field(column, value, use);
    }
};

// A record's fields by column, in the order of its description.
struct FieldValue {
    std::string column;
    Param value;
    unsigned use = field::kKept;
};

// Collects a record's fields as FieldValues.
struct FieldCollector : StoresThousandths<FieldCollector> {
    std::vector<FieldValue> all;
    void field(std::string_view column, const auto& value, unsigned use, PageColumn = {}) {
        all.push_back({std::string(column), param_of(value), use});
    }
};

template <class Record>
std::vector<FieldValue> field_values(const Record& record) {
    FieldCollector collector;
    fields(collector, record);
    return std::move(collector.all);
}

// The columns of a record, comma-separated: the order a row reader expects.
template <class Record>
const std::string& column_list() {
    static const std::string list = [] {
        std::string out;
        for (const FieldValue& f : field_values(Record{}))
            out += (out.empty() ? "" : ", ") + f.column;
        return out;
    }();
    return list;
}

// "SELECT <every column> FROM <table>", for a row reader.
template <class Record>
std::string select_all(std::string_view table) {
    return "SELECT " + column_list<Record>() + " FROM " + std::string(table);
}

// INSERT INTO <table> (<every column>) VALUES (<a parameter each>) with the record's values.
template <class Record>
Query insert(const Record& record, std::string_view table, char placeholder) {
    Query q;
    std::string values;
    for (FieldValue& f : field_values(record)) {
        values += (values.empty() ? "" : ", ") + q.param(std::move(f.value), placeholder);
    }
    q.sql = "INSERT INTO " + std::string(table) + " (" + column_list<Record>() + ") VALUES (" +
            values + ")";
    return q;
}

// The field the description marks `use` (the key, the relay): its column and value.
inline const FieldValue& marked(const std::vector<FieldValue>& all, unsigned use) {
    return *std::find_if(all.begin(), all.end(), [&](const FieldValue& f) { return f.use & use; });
}

// A relay server's insert that, when its key is taken, replaces every other field of the row.
inline Query upsert_server(const RelayServer& server, char placeholder) {
    Query q = insert(server, "servers", placeholder);
    const std::vector<FieldValue> all = field_values(server);
    std::string set;
    for (const FieldValue& f : all) {
        if (f.use & field::kKey) continue;
        set += (set.empty() ? "" : ", ") + f.column + " = excluded." + f.column;
    }
    q.sql += " ON CONFLICT (" + marked(all, field::kKey).column + ") DO UPDATE SET " + set;
    return q;
}

// LobbyStore::update_room(): of the live room with the record's key, the fields the
// description marks updated; a field that follows the relay only while the room is still on
// the relay the record names (a room that moved meanwhile keeps the address of its move).
inline Query update_room(const Room& room, std::int64_t now_ms, char placeholder) {
    Query q;
    const std::vector<FieldValue> all = field_values(room);
    const FieldValue& relay = marked(all, field::kRelay);
    std::string set;
    for (const FieldValue& f : all) {
        std::string value;
        if (f.use & field::kUpdated) {
            value = q.param(f.value, placeholder);
        } else if (f.use & field::kFollowsRelay) {
            const std::string when = q.param(relay.value, placeholder);
            value = "CASE WHEN " + relay.column + " = " + when + " THEN " +
                    q.param(f.value, placeholder) + " ELSE " + f.column + " END";
        } else {
            continue;
        }
        set += (set.empty() ? "" : ", ") + f.column + " = " + value;
    }
    const FieldValue& key = marked(all, field::kKey);
    q.sql = "UPDATE rooms SET " + set + " WHERE " + key.column + " = ";
    q.sql += q.param(key.value, placeholder);
    q.sql += " AND expires_ms > " + q.param(now_ms, placeholder);
    return q;
}

// Reads a record from a row whose columns are column_list<Record>(), in order.
// Row: text(i) -> std::string, integer(i) -> int, int64(i) -> std::int64_t and
// flag(i) -> bool, for column i (0-based) of the current row.
template <class Row>
class RowReader : public StoresThousandths<RowReader<Row>> {
  public:
    explicit RowReader(const Row& row) : m_row(row) {}
    template <class V>
    void field(std::string_view, V& value, unsigned = 0, PageColumn = {}) {
        const int i = m_next++;
        if constexpr (std::is_same_v<V, std::string>) {
            value = m_row.text(i);
        } else if constexpr (std::is_same_v<V, bool>) {
            value = m_row.flag(i);
        } else if constexpr (std::is_same_v<V, int>) {
            value = m_row.integer(i);
        } else {
            static_assert(std::is_same_v<V, std::int64_t>, "a field of a type rows cannot read");
            value = m_row.int64(i);
        }
    }

  private:
    const Row& m_row;
    int m_next = 0;
};

template <class Record, class Row>
Record read(const Row& row) {
    Record record;
    RowReader<Row> reader(row);
    fields(reader, record);
    return record;
}

// The live rooms matching `filter`, newest first. The SQL varies only in which fixed
// conditions it has; every value is a parameter.
inline Query room_list_query(const RoomFilter& filter, std::int64_t now_ms, char placeholder) {
    Query q;
    auto param = [&](Param value) { return q.param(std::move(value), placeholder); };
    q.sql = select_all<StoredRoom>("rooms") + " WHERE expires_ms > " + param(now_ms);
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
