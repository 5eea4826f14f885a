// The files the benchmark's processes hand each other: a peer (`framelock server` or the
// relay) writes one UDP port per session, a line each, for the driver and the generator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace framelock::bench::capacity {

// The whole of a text file; empty when it cannot be read.
std::string read_text(const std::string& path);

// The ports in a port file, in order (blank lines skipped). Throws on a line that is not a
// port (1-65535).
std::vector<std::uint16_t> read_ports(const std::string& path);

}  // namespace framelock::bench::capacity
