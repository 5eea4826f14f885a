#include "frontend/reach/upnp_request.h"

#include "frontend/reach/try_upnp.h"

namespace framelock::frontend {

UpnpRequest::UpnpRequest(std::uint16_t port, UpnpOptions options) {
    m_thread = std::thread([this, port, options = std::move(options)] {
        auto mapping = try_upnp(port, options);
        {
            std::lock_guard lock(m_mutex);
            m_mapping = std::move(mapping);
        }
        m_done = true;
    });
}

UpnpRequest::~UpnpRequest() {
    m_thread.join();
    std::lock_guard lock(m_mutex);
    m_mapping.reset();  // removes it from the router
}

std::string UpnpRequest::external_address() const {
    std::lock_guard lock(m_mutex);
    return m_mapping ? m_mapping->external_address() : std::string();
}

}  // namespace framelock::frontend
