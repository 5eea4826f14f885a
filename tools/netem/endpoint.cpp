#include "tools/netem/endpoint.h"

#include <arpa/inet.h>

#include <charconv>

namespace framelock::netem {

std::string Endpoint::to_string() const {
    return std::to_string(address >> 24) + "." + std::to_string((address >> 16) & 0xff) + "." +
           std::to_string((address >> 8) & 0xff) + "." + std::to_string(address & 0xff) + ":" +
           std::to_string(port);
}

Result<Endpoint> parse_endpoint(std::string_view text, std::string_view what) {
    const auto bad = [&](std::string_view why) {
        return make_error(ErrorCode::kUsage, std::string(what) + " expects ADDRESS:PORT (e.g. " +
                                                 "127.0.0.1:7000), got '" + std::string(text) +
                                                 "': " + std::string(why));
    };
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("no ':PORT'");
    const std::string host(text.substr(0, colon));
    const std::string_view port_text = text.substr(colon + 1);

    unsigned port = 0;
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
        port > 65535) {
        return bad("the port must be a number from 0 to 65535");
    }

    Endpoint endpoint;
    endpoint.port = static_cast<std::uint16_t>(port);
    if (host == "localhost") {
        endpoint.address = 0x7f000001;
        return endpoint;
    }
    in_addr parsed{};
    if (::inet_pton(AF_INET, host.c_str(), &parsed) != 1) {
        return bad("the address must be a dotted IPv4 address or 'localhost'");
    }
    endpoint.address = ntohl(parsed.s_addr);
    return endpoint;
}

}  // namespace framelock::netem
