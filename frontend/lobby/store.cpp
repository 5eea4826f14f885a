#include "frontend/lobby/store.h"

#include <string_view>

#include "frontend/lobby/sqlite_store.h"

namespace framelock::lobby {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string redact_store_url(const std::string& url) {
    const std::size_t scheme_end = url.find("://");
    if (scheme_end == std::string::npos) return url;  // a file path: nothing secret in it
    std::string out = url;

    // The authority runs to the first '/', '?' or '#'; its user info ends at the last '@'
    // (a password may itself hold an unescaped '@' only before that one).
    const std::size_t authority = scheme_end + 3;
    std::size_t authority_end = out.find_first_of("/?#", authority);
    if (authority_end == std::string::npos) authority_end = out.size();
    const std::size_t at = out.rfind('@', authority_end);
    if (at != std::string::npos && at >= authority) {
        const std::size_t colon = out.find(':', authority);
        if (colon != std::string::npos && colon < at) {
            out.replace(colon + 1, at - colon - 1, "***");
        }
    }

    // libpq also takes the password as a query parameter.
    const std::size_t query = out.find('?');
    if (query != std::string::npos) {
        std::size_t pos = query + 1;
        while (pos < out.size()) {
            std::size_t end = out.find('&', pos);
            if (end == std::string::npos) end = out.size();
            constexpr std::string_view key = "password=";
            if (std::string_view(out).substr(pos, end - pos).substr(0, key.size()) == key) {
                out.replace(pos + key.size(), end - pos - key.size(), "***");
                end = pos + key.size() + 3;
            }
            pos = end + 1;
        }
    }
    return out;
}

Result<std::unique_ptr<LobbyStore>> open_store(const std::string& url) {
    std::string path = url;
    if (starts_with(url, "sqlite:")) {
        path = url.substr(std::string_view("sqlite:").size());
    } else if (url.find("://") != std::string::npos) {
        // Taking "mysql://..." as a file name would create a strange file instead of
        // telling the operator the backend is not supported.
        return make_error(ErrorCode::kConfig,
                          "lobby store '" + redact_store_url(url) +
                              "': unknown kind of URL (use sqlite:PATH, a file path, or "
                              "postgresql://...)");
    }
    if (path.empty()) {
        return make_error(ErrorCode::kConfig,
                          "lobby store '" + url + "': no file name (use sqlite:PATH)");
    }
    return open_sqlite_store(path, url);
}

}  // namespace framelock::lobby
