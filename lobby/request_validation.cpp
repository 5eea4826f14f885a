#include "lobby/request_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "lobby/api_reply.h"
#include "netplay/base/safe_text.h"
#include "netplay/crypto/server_identity.h"

namespace framelock::lobby {

using json = nlohmann::json;

namespace {

// At most this many relays in one player's probes; a round trip of at most this many ms.
constexpr std::size_t kMaxProbes = 64;
constexpr double kMaxProbeMs = 10'000;

// One probe: a relay's id (32 lowercase hex digits) and a round trip in ms.
void check_probe(const std::string& id, double ms, const char* where) {
    if (!is_hex(id, 32))
        throw Refusal{400, fmt::format("{}: a relay is named by its 32-digit id", where)};
    if (!(ms >= 0 && ms <= kMaxProbeMs))
        throw Refusal{400, fmt::format("{}: a round trip is 0 to {} ms", where, kMaxProbeMs)};
}

Micros probe_us(double ms) {
    return static_cast<Micros>(std::llround(ms * 1000.0));
}

}  // namespace

bool printable_utf8(const std::string& s) {
    return !find_unsafe(s).has_value();
}

bool all_of_chars(const std::string& s, const char* allowed_extra, bool lower_only) {
    for (char c : s) {
        const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                           (!lower_only && c >= 'A' && c <= 'Z');
        if (!alnum && !std::strchr(allowed_extra, c)) return false;
    }
    return true;
}

bool is_hex(const std::string& s, std::size_t n) {
    return s.size() == n && all_of_chars(s, "", true) &&
           s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool valid_address(const std::string& a) {
    const auto colon = a.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon > 253) return false;
    const std::string host = a.substr(0, colon), port = a.substr(colon + 1);
    if (!all_of_chars(host, ".-")) return false;
    if (port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string::npos)
        return false;
    const int p = std::stoi(port);
    return p >= 1 && p <= 65535;
}

json parse_body(const ApiRequest& request, bool required) {
    if (request.body.empty()) {
        if (required) throw Refusal{400, "a JSON object body is required"};
        return json::object();
    }
    json body = json::parse(request.body, nullptr, false);
    if (body.is_discarded()) throw Refusal{400, "the body is not valid JSON"};
    if (!body.is_object()) throw Refusal{400, "the body must be a JSON object"};
    return body;
}

std::optional<std::string> text_field(const json& body, const char* field, std::size_t min,
                                      std::size_t max, bool required) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) {
        if (required) throw Refusal{400, fmt::format("\"{}\" is required", field)};
        return std::nullopt;
    }
    if (!it->is_string()) throw Refusal{400, fmt::format("\"{}\" must be a string", field)};
    const std::string value = it->get<std::string>();
    if (value.size() < min || value.size() > max)
        throw Refusal{400, fmt::format("\"{}\" must be {} to {} bytes long", field, min, max)};
    if (const auto bad = find_unsafe(value)) {
        throw Refusal{400, fmt::format("\"{}\" holds {} at byte {}: text must be printable UTF-8, "
                                       "without control, bidi or invisible format characters",
                                       field, bad->what, bad->offset)};
    }
    return value;
}

std::optional<int> integer_field(const json& body, const char* field, int min, int max,
                                 bool required) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) {
        if (required) throw Refusal{400, fmt::format("\"{}\" is required", field)};
        return std::nullopt;
    }
    if (!it->is_number_integer())
        throw Refusal{400, fmt::format("\"{}\" must be an integer", field)};
    const auto v = it->get<std::int64_t>();
    if (v < min || v > max)
        throw Refusal{400, fmt::format("\"{}\" must be between {} and {}", field, min, max)};
    return static_cast<int>(v);
}

std::optional<int> thousandths_field(const json& body, const char* field, int min, int max) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) return std::nullopt;
    if (!it->is_number() || !(it->get<double>() >= min && it->get<double>() <= max))
        throw Refusal{400, fmt::format("\"{}\" must be a number from {} to {}", field, min, max)};
    return static_cast<int>(std::llround(it->get<double>() * 1000.0));
}

std::string choice_field(const json& body, const char* field, std::size_t max,
                         std::initializer_list<const char*> choices) {
    const auto value = text_field(body, field, 1, max, false);
    if (!value) return *choices.begin();
    std::string listed;
    std::size_t i = 0;
    for (const char* choice : choices) {
        if (*value == choice) return *value;
        if (i++ > 0) listed += i == choices.size() ? " or " : ", ";
        listed += choice;
    }
    throw Refusal{400, fmt::format("\"{}\" must be {}", field, listed)};
}

bool flag_field(const json& body, const char* field) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) return false;
    if (!it->is_boolean()) throw Refusal{400, fmt::format("\"{}\" must be true or false", field)};
    return it->get<bool>();
}

std::string server_key_field(const json& body, const char* field) {
    const std::string key = *text_field(body, field, 1, 64, true);
    if (!netplay::parse_server_key(key)) {
        throw Refusal{400, std::string("\"") + field +
                               "\" must be a server key: 43 characters of URL-safe base64, as "
                               "the server's log line 'server key ...' shows it"};
    }
    return key;
}

std::optional<std::string> query_text(const ApiRequest& request, const char* key) {
    auto it = request.query.find(key);
    if (it == request.query.end() || it->second.empty()) return std::nullopt;
    if (it->second.size() > 128 || !printable_utf8(it->second))
        throw Refusal{400, fmt::format("query \"{}\" must be printable text up to 128 bytes", key)};
    return it->second;
}

int query_number(const ApiRequest& request, const char* key, int absent, int max) {
    auto v = query_text(request, key);
    if (!v) return absent;
    if (v->size() > 6 || v->find_first_not_of("0123456789") != std::string::npos)
        throw Refusal{400, fmt::format("query \"{}\" must be a number from 0 to {}", key, max)};
    return std::min(std::stoi(*v), max);
}

const std::string& record_key(const std::string& key) {
    if (key.empty() || key.size() > 32 || !all_of_chars(key, ""))
        throw Refusal{400, "a room is named by its 32-digit id or its 6-character code"};
    return key;
}

RelayProbes probes_field(const json& body) {
    RelayProbes probes;
    const auto it = body.find("probes");
    if (it == body.end() || it->is_null()) return probes;
    if (!it->is_object())
        throw Refusal{400, "\"probes\" must be an object {\"server_id\": round trip ms}"};
    if (it->size() > kMaxProbes)
        throw Refusal{400, fmt::format("\"probes\" may name at most {} relays", kMaxProbes)};
    for (const auto& [id, ms] : it->items()) {
        if (!ms.is_number()) throw Refusal{400, "\"probes\": each round trip must be a number"};
        check_probe(id, ms.get<double>(), "\"probes\"");
        probes[id] = probe_us(ms.get<double>());
    }
    return probes;
}

RelayProbes probes_query(const std::string& text) {
    RelayProbes probes;
    for (std::size_t i = 0; i < text.size();) {
        std::size_t end = text.find(',', i);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(i, end - i);
        const auto colon = item.find(':');
        const std::string ms = colon == std::string::npos ? "" : item.substr(colon + 1);
        if (colon == std::string::npos || ms.empty() || ms.size() > 12 ||
            ms.find_first_not_of("0123456789.") != std::string::npos)
            throw Refusal{400, "query \"probes\" must be server_id:ms,server_id:ms,..."};
        const double value = std::strtod(ms.c_str(), nullptr);
        check_probe(item.substr(0, colon), value, "query \"probes\"");
        probes[item.substr(0, colon)] = probe_us(value);
        if (probes.size() > kMaxProbes)
            throw Refusal{400,
                          fmt::format("query \"probes\" may name at most {} relays", kMaxProbes)};
        i = end + 1;
    }
    return probes;
}

}  // namespace framelock::lobby
