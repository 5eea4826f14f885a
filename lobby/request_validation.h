// What the API accepts of a request: a JSON object body and its typed, bounded fields, the
// query's values, a record's key, the shapes of names, hex and addresses, and a player's relay
// probes. Each check returns the value it accepted or throws a Refusal (lobby/api_reply.h,
// 400 unless said otherwise) whose message names the field and what it must be.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>

#include "lobby/api_types.h"
#include "lobby/relay_choice.h"

namespace framelock::lobby {

// Safe text (netplay/base/safe_text.h): well-formed UTF-8 without control, bidi or invisible
// format characters.
bool printable_utf8(const std::string& s);
// Only ASCII letters (lowercase only with `lower_only`), digits and `allowed_extra`.
bool all_of_chars(const std::string& s, const char* allowed_extra, bool lower_only = false);
// Exactly `n` lowercase hex digits.
bool is_hex(const std::string& s, std::size_t n);
// "host:port" with a host of letters, digits, '.' and '-' and a port of 1 to 65535.
bool valid_address(const std::string& a);

// The request's body as a JSON object: {} for an empty body unless `required`.
nlohmann::json parse_body(const ApiRequest& request, bool required);

// A field of the body, checked: absent (or null) is nullopt, or a Refusal when `required`.
// Text of `min` to `max` bytes of safe text; a refusal names the first character that is not.
std::optional<std::string> text_field(const nlohmann::json& body, const char* field,
                                      std::size_t min, std::size_t max, bool required);
// An integer from `min` to `max`.
std::optional<int> integer_field(const nlohmann::json& body, const char* field, int min, int max,
                                 bool required);
// A number from `min` to `max`, in thousandths (rounded).
std::optional<int> thousandths_field(const nlohmann::json& body, const char* field, int min,
                                     int max);
// One of `choices`, text of 1 to `max` bytes; absent is the first.
std::string choice_field(const nlohmann::json& body, const char* field, std::size_t max,
                         std::initializer_list<const char*> choices);
// true or false; absent is false.
bool flag_field(const nlohmann::json& body, const char* field);
// A server's key as text (netplay/crypto/server_identity.h: 43 characters of URL-safe
// base64), required: every framelock server has one, and joiners check it.
std::string server_key_field(const nlohmann::json& body, const char* field);

// A value of the query (absent or empty: nullopt): printable text up to 128 bytes.
std::optional<std::string> query_text(const ApiRequest& request, const char* key);
// A number of the query from 0 up, capped at `max`; `absent` when not given.
int query_number(const ApiRequest& request, const char* key, int absent, int max);

// A room or server named in a path: its id or its code (letters and digits, 1 to 32).
const std::string& record_key(const std::string& key);

// The optional "probes" field, {"server_id": round trip ms, ...}: at most 64 relays, each
// named by its 32-digit id, each round trip 0 to 10,000 ms.
RelayProbes probes_field(const nlohmann::json& body);
// The same as the "probes" query of a list: "id:ms,id:ms".
RelayProbes probes_query(const std::string& text);

}  // namespace framelock::lobby
