#include "bench/server_capacity/port_file.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace framelock::bench::capacity {

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::uint16_t> read_ports(const std::string& path) {
    std::vector<std::uint16_t> ports;
    std::istringstream lines(read_text(path));
    for (std::string line; std::getline(lines, line);) {
        if (line.empty()) continue;
        const int port = std::stoi(line);
        if (port < 1 || port > 65535) throw std::runtime_error("bad port in " + path + ": " + line);
        ports.push_back(static_cast<std::uint16_t>(port));
    }
    return ports;
}

}  // namespace framelock::bench::capacity
