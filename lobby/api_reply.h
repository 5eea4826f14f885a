// How the API's routes answer: a JSON reply, an error ({"error": "..."}), and a Refusal, a
// request that cannot be served, thrown from anywhere below a route (the request's checks,
// lobby/request_validation.h, or a store that failed) and turned into its error by
// LobbyApi::handle.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

#include "lobby/api_types.h"
#include "netplay/base/result.h"

namespace framelock::lobby {

// `body` with `status`. Text the client sent that is not UTF-8 (echoed in an error) becomes
// U+FFFD instead of failing the reply.
ApiResponse reply(int status, const nlohmann::json& body);
// {"error": message} (and "retry_after_s" with a Retry-After header when it is > 0).
ApiResponse error(int status, const std::string& message, int retry_after_s = 0);

// A request that cannot be served, with its 4xx status (or 5xx: the store failed, or the
// password workers are busy).
struct Refusal {
    int status;
    std::string message;
    int retry_after_s = 0;
};

// The answer when the password workers' queue is full.
Refusal busy_checking();

// Values from the store, or a 500 that says the store failed (never the caller's fault).
template <class T>
T need(Result<T> result) {
    if (!result) throw Refusal{500, "storage error: " + result.error().message};
    return std::move(result).value();
}
void need(const Status& status);

}  // namespace framelock::lobby
