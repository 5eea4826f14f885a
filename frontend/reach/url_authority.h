// "HOST:PORT" (or "HOST") of an "http://HOST:PORT/path" URL: where a lobby or a router's
// UPnP service is, for its UDP side (the lobby's rendezvous) and for messages.
#pragma once

#include <string>

namespace framelock::frontend {

inline std::string url_authority(const std::string& url) {
    std::string rest = url;
    if (const auto scheme = rest.find("://"); scheme != std::string::npos)
        rest = rest.substr(scheme + 3);
    return rest.substr(0, rest.find('/'));
}

}  // namespace framelock::frontend
