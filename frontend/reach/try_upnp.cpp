#include "frontend/reach/try_upnp.h"

#include "common/log.h"

namespace framelock::frontend {

std::unique_ptr<UpnpMapping> try_upnp(std::uint16_t port, const UpnpOptions& options) {
    auto opened = UpnpMapping::open(port, options);
    if (!opened) {
        log_warn("UPnP: {}; trying the next way in", opened.error().message);
        return nullptr;
    }
    std::unique_ptr<UpnpMapping> mapping = std::move(opened).value();
    log_info("UPnP: UDP {} -> {}:{} on the router at {} ({})", mapping->external_address(),
             mapping->internal_client(), mapping->local_port(), mapping->control_url(),
             mapping->lease_s() > 0
                 ? fmt::format("lease {} s, renewed every {} s", mapping->lease_s(),
                               mapping->lease_s() / 2.0)
                 : std::string("permanent: the router takes no lease; removed at exit"));
    return mapping;
}

}  // namespace framelock::frontend
