#include "netplay/io/enet_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace framelock::netplay {
namespace {

bool is_dotted_number(const std::string& host) {
    return std::all_of(host.begin(), host.end(),
                       [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

bool is_host_name(const std::string& host) {
    if (host.size() > 253) return false;
    return std::all_of(host.begin(), host.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               c == '-' || c == '.';
    });
}

}  // namespace

Result<ENetAddress> parse_enet_address(const std::string& text, EnetAddressUse use) {
    const auto invalid = [&text](const std::string& why) {
        return make_error(ErrorCode::kUsage, "invalid address '" + text + "': " + why);
    };
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos) return invalid("expected host:port, e.g. 127.0.0.1:7845");
    const std::string host = text.substr(0, colon);
    const std::string port_text = text.substr(colon + 1);
    if (host.find_first_of(":[]") != std::string::npos) {
        return invalid(
            "IPv6 is not supported (ENet 1.3 is IPv4 only); use an IPv4 address or "
            "a host name");
    }

    const unsigned min_port = use == EnetAddressUse::kConnect ? 1 : 0;
    const std::string port_range = std::to_string(min_port) + " to 65535";
    if (port_text.empty() || port_text.size() > 5 ||
        !std::all_of(port_text.begin(), port_text.end(),
                     [](char c) { return c >= '0' && c <= '9'; })) {
        return invalid("port '" + port_text + "' is not a number from " + port_range);
    }
    const unsigned long port = std::stoul(port_text);
    if (port < min_port || port > 65535) {
        return invalid("port " + port_text + " is out of range (" + port_range + ")");
    }

    ENetAddress address{};
    address.port = static_cast<enet_uint16>(port);
    if (host.empty()) {
        if (use == EnetAddressUse::kConnect) {
            return invalid("no host to connect to; expected host:port, e.g. 127.0.0.1:7845");
        }
        address.host = ENET_HOST_ANY;
        return address;
    }
    if (is_dotted_number(host)) {
        in_addr ip{};
        if (inet_pton(AF_INET, host.c_str(), &ip) != 1) {
            return invalid("'" + host + "' is not an IPv4 address (four numbers 0-255)");
        }
        address.host = ip.s_addr;  // both in network byte order
        return address;
    }
    if (!is_host_name(host)) return invalid("'" + host + "' is not a valid host name");
    if (enet_address_set_host(&address, host.c_str()) != 0) {
        return make_error(ErrorCode::kUsage,
                          "cannot resolve host '" + host + "' in address '" + text + "'");
    }
    return address;
}

Error enet_listen_error(const std::string& bind_address, int error) {
    const std::string where = "cannot listen on " + bind_address + ": ";
    switch (error) {
        case EADDRINUSE:
            return make_error(ErrorCode::kUsage,
                              where +
                                  "the address is already in use (another server on this "
                                  "port?); pick another port with --port");
        case EACCES:
            return make_error(ErrorCode::kUsage,
                              where +
                                  "permission denied (ports below 1024 need privileges); "
                                  "pick another port with --port");
        case EADDRNOTAVAIL:
            return make_error(ErrorCode::kUsage,
                              where + "no network interface of this machine has that address");
        case 0:
            return make_error(ErrorCode::kIo, where + "ENet could not create the host");
        default:
            return make_error(ErrorCode::kIo, where + std::strerror(error));
    }
}

}  // namespace framelock::netplay
