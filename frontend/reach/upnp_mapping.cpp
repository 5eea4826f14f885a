#include "frontend/reach/upnp_mapping.h"

#include <fmt/core.h>
#include <miniupnpc/miniupnpc.h>
#include <miniupnpc/upnpcommands.h>
#include <miniupnpc/upnperrors.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "common/log.h"
#include "frontend/reach/address_scope.h"
#include "frontend/reach/url_authority.h"

namespace framelock::frontend {
namespace {

// UPnP's codes for AddPortMapping (UPnP IGD:1, WANIPConnection:1 section 2.4.16).
constexpr int kConflictInMappingEntry = 718;
constexpr int kOnlyPermanentLeasesSupported = 725;
constexpr int kNoSuchEntryInArray = 714;
constexpr int kActionFailed = 501;
// A request the router did not answer (miniupnpc's HTTP error: a busy router's dropped
// connection) or failed for now ("Action Failed") is asked again this many times in all,
// this long apart.
constexpr int kAddTries = 3;
constexpr auto kAddRetryWait = std::chrono::milliseconds(500);
constexpr auto kRemovalWait = std::chrono::seconds(2);

Error upnp_error(std::string message) {
    return make_error(ErrorCode::kIo, std::move(message));
}

// "UPnP error 718 (ConflictInMappingEntry)"; miniupnpc's own failures (no answer, a malformed
// one) are negative codes with names of their own.
std::string describe_code(int code) {
    const char* name = strupnperror(code);
    if (code < 0) return fmt::format("{} ({})", name ? name : "miniupnpc error", code);
    return name ? fmt::format("UPnP error {} ({})", code, name)
                : fmt::format("UPnP error {}", code);
}

struct DeviceListDeleter {
    void operator()(UPNPDev* list) const { freeUPNPDevlist(list); }
};

// Frees what miniupnpc allocated into a UPNPUrls (FreeUPNPUrls accepts a zeroed one).
struct UrlsGuard {
    UPNPUrls urls{};
    ~UrlsGuard() { FreeUPNPUrls(&urls); }
};

struct Gateway {
    std::string control_url, service_type, lan_address;
};

Result<Gateway> gateway_from(const UPNPUrls& urls, const IGDdatas& data, const char* lan_address,
                             const std::string& where) {
    if (!urls.controlURL || !*urls.controlURL || data.first.servicetype[0] == '\0')
        return upnp_error(where +
                          " is no Internet gateway (no WANIPConnection or "
                          "WANPPPConnection service in its description)");
    if (!*lan_address)
        return upnp_error("could not tell which address of this machine reaches " + where);
    return Gateway{urls.controlURL, data.first.servicetype, lan_address};
}

Result<Gateway> find_gateway(const UpnpOptions& options) {
    UrlsGuard guard;
    IGDdatas data{};
    char lan_address[64] = {};
    if (!options.igd_url.empty()) {
        if (UPNP_GetIGDFromUrl(options.igd_url.c_str(), &guard.urls, &data, lan_address,
                               sizeof lan_address) != 1)
            return upnp_error("the UPnP router's description at " + options.igd_url +
                              " could not be read");
        return gateway_from(guard.urls, data, lan_address, "the device at " + options.igd_url);
    }
    // Every search goes out at once and the answers are awaited once (searchalltypes = 1):
    // discovery takes discover_ms when no router answers, not that once per type.
    const char* const types[] = {"urn:schemas-upnp-org:device:InternetGatewayDevice:1",
                                 "urn:schemas-upnp-org:device:InternetGatewayDevice:2",
                                 "urn:schemas-upnp-org:service:WANIPConnection:1",
                                 "urn:schemas-upnp-org:service:WANIPConnection:2",
                                 "urn:schemas-upnp-org:service:WANPPPConnection:1",
                                 "upnp:rootdevice",
                                 nullptr};
    int error = UPNPDISCOVER_SUCCESS;
    std::unique_ptr<UPNPDev, DeviceListDeleter> devices(
        upnpDiscoverDevices(types, options.discover_ms,
                            options.multicast_if.empty() ? nullptr : options.multicast_if.c_str(),
                            nullptr, UPNP_LOCAL_PORT_ANY, 0, 2, &error, 1));
    if (!devices) {
        if (error == UPNPDISCOVER_SOCKET_ERROR)
            return upnp_error(fmt::format(
                "no UPnP router (IGD) answered within {} ms (the SSDP search could not be "
                "sent: no multicast route?)",
                options.discover_ms));
        return upnp_error(
            fmt::format("no UPnP router (IGD) answered within {} ms", options.discover_ms));
    }
    const int found =
        UPNP_GetValidIGD(devices.get(), &guard.urls, &data, lan_address, sizeof lan_address);
    // 1: connected; 2: not connected *or* its external address is in a reserved range
    // (miniupnpc 2.2 counts the documentation ranges as reserved; address_scope decides
    // instead); 3: some UPnP device, checked by gateway_from.
    if (found == 0) {
        int count = 0;
        for (const UPNPDev* d = devices.get(); d; d = d->pNext) ++count;
        return upnp_error(
            fmt::format("{} UPnP device{} answered but none is an Internet "
                        "gateway (IGD)",
                        count, count == 1 ? "" : "s"));
    }
    const std::string where =
        "the UPnP device at " + url_authority(guard.urls.rootdescURL ? guard.urls.rootdescURL : "");
    return gateway_from(guard.urls, data, lan_address, where);
}

}  // namespace

Result<std::unique_ptr<UpnpMapping>> UpnpMapping::open(std::uint16_t local_port,
                                                       const UpnpOptions& options) {
    auto gateway = find_gateway(options);
    if (!gateway) return gateway.error();
    std::unique_ptr<UpnpMapping> mapping(new UpnpMapping());
    mapping->m_control_url = gateway.value().control_url;
    mapping->m_service_type = gateway.value().service_type;
    mapping->m_internal_client = gateway.value().lan_address;
    mapping->m_description = options.description;
    mapping->m_local_port = local_port;
    const std::string router = "the router at " + url_authority(mapping->m_control_url);

    char external[64] = {};
    if (const int r = UPNP_GetExternalIPAddress(mapping->m_control_url.c_str(),
                                                mapping->m_service_type.c_str(), external);
        r != UPNPCOMMAND_SUCCESS)
        return upnp_error(router + " did not tell its external address (" + describe_code(r) + ")");
    mapping->m_external_ip = external;
    if (mapping->m_external_ip.empty() || mapping->m_external_ip == "0.0.0.0")
        return upnp_error(router + " has no external address (its internet link is down)");
    switch (address_scope(mapping->m_external_ip)) {
        case AddressScope::kInvalid:
            return upnp_error(router + " gave an external address that is no IPv4 address ('" +
                              mapping->m_external_ip + "')");
        case AddressScope::kPrivate:
            return upnp_error(router + "'s external address " + mapping->m_external_ip +
                              " is private: it sits behind another NAT (double NAT), where a "
                              "port mapping would reach no one outside");
        case AddressScope::kPublic:
            break;
    }

    std::uint32_t lease = options.lease_s;
    int last = 0;
    const int attempts = std::max(options.port_attempts, 1);
    for (int i = 0; i < attempts && local_port + i <= 65535; ++i) {
        const auto port = static_cast<std::uint16_t>(local_port + i);
        int r = mapping->add(port, lease);
        for (int tries = 1;
             tries < kAddTries && (r == UPNPCOMMAND_HTTP_ERROR || r == kActionFailed); ++tries) {
            log_info("UPnP: {} did not map UDP {} ({}); asking again", router, port,
                     describe_code(r));
            std::this_thread::sleep_for(kAddRetryWait);
            r = mapping->add(port, lease);
        }
        if (r == kOnlyPermanentLeasesSupported && lease != 0) {
            lease = 0;  // removed at exit all the same
            r = mapping->add(port, lease);
        }
        if (r == UPNPCOMMAND_SUCCESS) {
            mapping->m_external_port = port;
            mapping->m_lease_s = lease;
            if (lease > 0)
                mapping->m_renewer = std::thread([m = mapping.get()] { m->renew_loop(); });
            return mapping;
        }
        last = r;
        if (r != kConflictInMappingEntry) {
            return upnp_error(fmt::format("{} refused the port mapping UDP {} -> {}:{} ({})",
                                          router, port, mapping->m_internal_client, local_port,
                                          describe_code(r)));
        }
    }
    const int last_port = std::min(local_port + attempts - 1, 65535);
    return upnp_error(fmt::format("{} has UDP port{} {}{} mapped to other machines already ({})",
                                  router, last_port > local_port ? "s" : "", local_port,
                                  last_port > local_port ? fmt::format("-{}", last_port) : "",
                                  describe_code(last)));
}

UpnpMapping::~UpnpMapping() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_renewer.joinable()) m_renewer.join();
    if (m_external_port == 0) return;  // nothing was mapped

    // The removal runs on a thread of its own, so that a router that does not answer holds
    // the exit up at most kRemovalWait; the thread owns copies of everything it uses. Its
    // result comes back under a mutex. Whoever is last frees it, in an order a thread
    // sanitizer can follow: on time, this side joins the thread and frees it; too late, this
    // side marks it abandoned under the mutex and never touches it again, and the thread
    // frees it after seeing the mark under the same mutex.
    struct Removal {
        std::mutex mutex;
        std::condition_variable done_cv;
        bool done = false;
        bool abandoned = false;
        int result = 0;
    };
    auto* removal = new Removal;
    std::thread worker([removal, control = m_control_url, service = m_service_type,
                        port = std::to_string(m_external_port)] {
        const int result =
            UPNP_DeletePortMapping(control.c_str(), service.c_str(), port.c_str(), "UDP", nullptr);
        bool abandoned = false;
        {
            std::lock_guard<std::mutex> lock(removal->mutex);
            removal->result = result;
            removal->done = true;
            abandoned = removal->abandoned;
            removal->done_cv.notify_all();
        }
        if (abandoned) delete removal;
    });
    const std::string router = url_authority(m_control_url);
    std::unique_lock<std::mutex> waiting(removal->mutex);
    if (!removal->done_cv.wait_for(waiting, kRemovalWait, [&] { return removal->done; })) {
        removal->abandoned = true;
        waiting.unlock();
        worker.detach();
        log_warn(
            "UPnP: the router at {} did not confirm the removal of the port mapping UDP {} "
            "within {} s; {}",
            router, external_address(), kRemovalWait.count(),
            m_lease_s > 0 ? fmt::format("its lease ends it within {} s", m_lease_s)
                          : std::string("it stays until the router removes it"));
        return;
    }
    const int r = removal->result;
    waiting.unlock();
    worker.join();
    delete removal;
    if (r == UPNPCOMMAND_SUCCESS || r == kNoSuchEntryInArray)
        log_info("UPnP: removed the port mapping UDP {} on the router at {}", external_address(),
                 router);
    else
        log_warn("UPnP: the router at {} did not remove the port mapping UDP {} ({})", router,
                 external_address(), describe_code(r));
}

std::string UpnpMapping::external_address() const {
    return m_external_ip + ":" + std::to_string(m_external_port);
}

int UpnpMapping::renewals() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_renewals;
}

int UpnpMapping::add(std::uint16_t external_port, std::uint32_t lease_s) const {
    const std::string external = std::to_string(external_port);
    const std::string internal = std::to_string(m_local_port);
    const std::string lease = std::to_string(lease_s);
    return UPNP_AddPortMapping(m_control_url.c_str(), m_service_type.c_str(), external.c_str(),
                               internal.c_str(), m_internal_client.c_str(), m_description.c_str(),
                               "UDP", nullptr, lease.c_str());
}

// Re-adds the mapping every half lease: a router forgets it when the lease runs out (also
// after a reboot, when it forgets it at once; the re-add then brings it back).
void UpnpMapping::renew_loop() {
    const auto period = std::chrono::milliseconds(std::uint64_t{m_lease_s} * 500);
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_wake.wait_for(lock, period, [this] { return m_stopping; })) {
        lock.unlock();
        const int r = add(m_external_port, m_lease_s);
        lock.lock();
        if (r == UPNPCOMMAND_SUCCESS) {
            ++m_renewals;
        } else {
            log_warn(
                "UPnP: renewing the port mapping UDP {} on the router at {} failed ({}); "
                "trying again in {} ms",
                external_address(), url_authority(m_control_url), describe_code(r), period.count());
        }
    }
}

}  // namespace framelock::frontend
