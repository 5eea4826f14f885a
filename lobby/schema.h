// The lobby's schema as an ordered list of migrations, shared by both backends so a
// SQLite file and a PostgreSQL database always hold the same tables. The SQL here is the
// portable subset both understand (TEXT, INTEGER, BIGINT, BOOLEAN, IF NOT EXISTS).
//
// Rules for new migrations: append, never edit one that shipped (databases already at
// that version would not see the change); one version per change; statements only, no
// values (the backends run them as they are). A field added to a record's description
// (lobby/record_fields.h, whose walk writes the column lists) needs a migration adding its
// column.
#pragma once

#include <string_view>
#include <vector>

namespace framelock::lobby {

struct Migration {
    int version;
    std::string_view description;
    std::vector<std::string_view> statements;
};

// Created before any migration runs; one row per applied version.
inline constexpr std::string_view kMigrationsTableSql =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY,"
    " description TEXT NOT NULL)";

// In version order, starting at 1.
const std::vector<Migration>& schema_migrations();
int newest_schema_version();

}  // namespace framelock::lobby
