#include "lobby/api_reply.h"

namespace framelock::lobby {

using json = nlohmann::json;

ApiResponse reply(int status, const json& body) {
    // Error messages echo what the client sent (a method, a path cut at 100 bytes), which
    // need not be UTF-8: dump() would throw and turn a 404 into a 500. Invalid bytes become
    // U+FFFD instead.
    return {status, "application/json", body.dump(-1, ' ', false, json::error_handler_t::replace)};
}

ApiResponse error(int status, const std::string& message, int retry_after_s) {
    ApiResponse response =
        reply(status, retry_after_s > 0 ? json{{"error", message}, {"retry_after_s", retry_after_s}}
                                        : json{{"error", message}});
    response.retry_after_s = retry_after_s;
    return response;
}

Refusal busy_checking() {
    return Refusal{503, "the lobby is busy checking passwords; retry in 1 s", 1};
}

void need(const Status& status) {
    if (!status) throw Refusal{500, "storage error: " + status.error().message};
}

}  // namespace framelock::lobby
