// One UDP port mapping on the home router, asked for over UPnP IGD (libminiupnpc): how a host
// behind its router's NAT becomes reachable from the internet. The router forwards
// <external address>:<external port> to this machine's <local port> for a lease that the
// mapping renews while it lives; the destructor removes it.
//
// Threading: open() and the destructor block (discovery, HTTP to the router; both bounded in
// time). The renewal runs on a thread of its own; the accessors may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "netplay/base/result.h"

namespace framelock::frontend {

struct UpnpOptions {
    int discover_ms = 2000;       // SSDP discovery: how long to wait for a router to answer
    std::string igd_url;          // skip SSDP: the router's root description URL (tests, odd LANs)
    std::string multicast_if;     // SSDP from the interface with this IPv4 address ("": routed)
    std::uint32_t lease_s = 120;  // the lease asked for; renewed every lease_s / 2 (0: none)
    std::string description = "framelock";  // shown in the router's mapping list
    int port_attempts = 8;  // external ports tried on conflicts: the local port, +1, ...
};

class UpnpMapping {
  public:
    // Finds the router (SSDP, or options.igd_url), asks its external address and maps UDP
    // <external port> to <this machine's LAN address>:local_port, the external port being
    // local_port or, when another machine holds that one, the next free of
    // options.port_attempts. Starts the renewal thread. A kIo error of one sentence naming
    // what failed: no router answered within discover_ms; the router's description could
    // not be read; its external address is private (a NAT behind another NAT: a mapping
    // would reach no one); the router refused the mapping (its UPnP error code and name).
    static Result<std::unique_ptr<UpnpMapping>> open(std::uint16_t local_port,
                                                     const UpnpOptions& options);

    // Stops the renewal thread and removes the mapping, waiting at most ~2 s for the router
    // (after that the removal finishes in the background, or the lease ends it).
    ~UpnpMapping();
    UpnpMapping(const UpnpMapping&) = delete;
    UpnpMapping& operator=(const UpnpMapping&) = delete;

    // What players reach this host by: "a.b.c.d:port" (the router's external address).
    std::string external_address() const;
    const std::string& external_ip() const { return m_external_ip; }
    std::uint16_t external_port() const { return m_external_port; }
    // The LAN address and port the router forwards to (this machine's side).
    const std::string& internal_client() const { return m_internal_client; }
    std::uint16_t local_port() const { return m_local_port; }
    // The router's control URL (for messages).
    const std::string& control_url() const { return m_control_url; }
    // The lease in force (0: permanent, when the router takes no other) and the renewals
    // that succeeded so far.
    std::uint32_t lease_s() const { return m_lease_s; }
    int renewals() const;

  private:
    UpnpMapping() = default;
    // AddPortMapping with this mapping's values: 0 or the router's UPnP error code (or
    // miniupnpc's negative code).
    int add(std::uint16_t external_port, std::uint32_t lease_s) const;
    void renew_loop();

    std::string m_control_url, m_service_type, m_description;
    std::string m_internal_client, m_external_ip;
    std::uint16_t m_local_port = 0, m_external_port = 0;
    std::uint32_t m_lease_s = 0;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;  // guarded by m_mutex
    int m_renewals = 0;       // guarded by m_mutex
    std::thread m_renewer;
};

}  // namespace framelock::frontend
