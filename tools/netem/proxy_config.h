// What the impairment proxy is told: where it listens and forwards, each direction's
// impairment, the blackout windows, its limits and when it ends; and the check of all of it
// (validate), whose message names the command line's flag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "netplay/base/result.h"
#include "tools/netem/endpoint.h"
#include "tools/netem/impairment.h"

namespace framelock::netem {

inline constexpr double kMaxDurationS = 3600.0;
inline constexpr double kMaxDelayMs = 10000.0;     // per direction, delay and jitter each
inline constexpr double kMaxBurstLength = 1000.0;  // mean datagrams per burst
inline constexpr std::size_t kMaxClients = 1024;
inline constexpr std::size_t kMaxDatagram = 65536;

struct ProxyConfig {
    Endpoint listen;         // where clients send; port 0 picks a free port (see listen_port())
    Endpoint forward;        // the server; port must not be 0
    Impairment up;           // client -> server
    Impairment down;         // server -> client
    std::uint64_t seed = 1;  // each direction draws from its own stream derived from this
    std::vector<Blackout> blackouts;  // every datagram in these windows is dropped, both ways
    double duration_s = 0;            // required, (0, kMaxDurationS]: run() returns when it elapses
    double idle_exit_s = 0;           // 0 = off; else run() returns after this long without traffic
    std::size_t max_clients = 64;     // new clients beyond this are refused (counted)
    double client_timeout_s = 60;     // a client idle this long loses its upstream socket
    std::size_t max_queued_bytes = 64u << 20;  // datagrams beyond this are dropped (counted)
    std::string port_file;  // if set, the bound listen port is written here (temp + rename)
    bool allow_non_loopback = false;  // else both addresses must be in 127.0.0.0/8
    // The tests of the sealed traffic (enet_tamper.h): every datagram as it leaves the proxy's
    // decisions, one line each ("up HEX" or "down HEX"), written here; and every `tamper_every`
    // upstream datagram, when it is one input message, altered with ENet's CRC made right.
    std::string capture_file;
    std::uint32_t tamper_every = 0;  // 0 = off
    // Receives one line per notable event (start, new/expired/refused client). May be empty.
    std::function<void(std::string_view)> log;
};

// kUsage error describing the first invalid field, with the value and the allowed range.
Status validate(const ProxyConfig& config);

}  // namespace framelock::netem
