// The host's UPnP step (try_upnp) on a thread of its own, so the game starts at once: a
// router that takes its time (discovery waits up to 2 s) delays nobody, and players who join
// before the mapping exists come in by hole punching. The mapping, once made, lives as long
// as this object; the destructor waits for a request still running, then removes it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "frontend/reach/upnp_mapping.h"

namespace framelock::frontend {

class UpnpRequest {
  public:
    UpnpRequest(std::uint16_t port, UpnpOptions options);
    ~UpnpRequest();
    UpnpRequest(const UpnpRequest&) = delete;
    UpnpRequest& operator=(const UpnpRequest&) = delete;

    // True once the router answered or did not; then external_address() is final.
    bool done() const { return m_done.load(); }
    // "a.b.c.d:port" on the router, empty when there is no mapping (yet).
    std::string external_address() const;

  private:
    mutable std::mutex m_mutex;
    std::unique_ptr<UpnpMapping> m_mapping;  // under m_mutex
    std::atomic<bool> m_done{false};
    std::thread m_thread;
};

}  // namespace framelock::frontend
