// --relay: the baseline's trivial server, a process of its own. One port per pair, like
// `framelock server`'s one per session; every datagram from one peer goes to the other,
// after `delay_us`. Nothing else: what the same load costs without the server.
#pragma once

#include <string>

#include "netplay/interfaces/clock.h"

namespace framelock::bench::capacity {

struct RelayOptions {
    int sessions = 1;              // pairs, each on a port of its own on 127.0.0.1
    std::string port_file;         // the ports, a line each, once every pair listens
    netplay::Micros delay_us = 0;  // every datagram held this long (the measurement's check)
    double duration = 120;         // seconds at most
};

// Relays until every pair connected and left, or `duration` ran out: 0. 1 after saying on
// stderr why it could not listen or write the port file.
int run_relay(const RelayOptions& options);

}  // namespace framelock::bench::capacity
