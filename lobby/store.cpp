#include "lobby/store.h"

#include <string_view>
#include <utility>
#include <vector>

#include "lobby/pg_store.h"
#include "lobby/sqlite_store.h"
#include "lobby/store_url.h"

namespace framelock::lobby {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> url_password_spans(const std::string& url) {
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    const std::size_t scheme_end = url.find("://");
    if (scheme_end == std::string::npos) return spans;  // a file path: nothing secret in it

    // The authority runs to the first '/', '?' or '#'; its user info ends at the last '@'
    // in it, and the password at the first ':' of the user info.
    const std::size_t authority = scheme_end + 3;
    std::size_t authority_end = url.find_first_of("/?#", authority);
    if (authority_end == std::string::npos) authority_end = url.size();
    const std::size_t at = url.rfind('@', authority_end);
    if (at != std::string::npos && at >= authority) {
        const std::size_t colon = url.find(':', authority);
        if (colon != std::string::npos && colon < at) spans.emplace_back(colon + 1, at - colon - 1);
    }

    // libpq also takes the password as a query parameter.
    const std::size_t query = url.find('?', authority_end);
    if (query == std::string::npos) return spans;
    constexpr std::string_view key = "password=";
    for (std::size_t pos = query + 1; pos < url.size();) {
        std::size_t end = url.find('&', pos);
        if (end == std::string::npos) end = url.size();
        if (std::string_view(url).substr(pos, end - pos).substr(0, key.size()) == key) {
            spans.emplace_back(pos + key.size(), end - pos - key.size());
        }
        pos = end + 1;
    }
    return spans;
}

std::string redact_store_url(const std::string& url) {
    std::string out = url;
    const auto spans = url_password_spans(url);
    // From the back, so the earlier positions stay valid.
    for (auto it = spans.rbegin(); it != spans.rend(); ++it)
        out.replace(it->first, it->second, "***");
    return out;
}

Result<std::unique_ptr<LobbyStore>> open_store(const std::string& url) {
    if (starts_with(url, "postgresql://") || starts_with(url, "postgres://")) {
        return open_pg_store(url);
    }
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
