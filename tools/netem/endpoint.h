// An IPv4 address and UDP port as given on the command line ("127.0.0.1:7000").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "netplay/base/result.h"

namespace framelock::netem {

struct Endpoint {
    std::uint32_t address = 0;  // IPv4, host byte order (127.0.0.1 = 0x7f000001)
    std::uint16_t port = 0;     // 0 = any (only meaningful for a listen address)

    // 127.0.0.0/8. The proxy refuses anything else unless explicitly allowed.
    bool is_loopback() const { return (address >> 24) == 127; }
    std::string to_string() const;
    friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// Parses "A.B.C.D:PORT" or "localhost:PORT". kUsage error naming `what` (e.g. "--listen")
// and the offending text otherwise.
Result<Endpoint> parse_endpoint(std::string_view text, std::string_view what);

}  // namespace framelock::netem
