// The UPnP step of `framelock host` becoming reachable: ask the router for the mapping, or
// say in one line why not, so that the next way in can be tried.
#pragma once

#include <cstdint>
#include <memory>

#include "frontend/reach/upnp_mapping.h"

namespace framelock::frontend {

// A mapping of UDP `port` (the host's own server) on the router, logged in one line
// ("UPnP: UDP 203.0.113.7:7000 -> 192.168.1.20:7000 on the router at ..."); on failure one
// line ("UPnP: <why>; trying the next way in") and null. Keep the mapping alive for the
// session: its destructor removes it. Blocks up to options.discover_ms plus the router's
// answers.
std::unique_ptr<UpnpMapping> try_upnp(std::uint16_t port, const UpnpOptions& options);

}  // namespace framelock::frontend
