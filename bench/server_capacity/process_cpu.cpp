#include "bench/server_capacity/process_cpu.h"

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "bench/server_capacity/port_file.h"

namespace framelock::bench::capacity {

CpuTime cpu_time(pid_t pid) {
    CpuTime total;
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    std::error_code ec;
    for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
        std::istringstream in(read_text((task.path() / "schedstat").string()));
        std::uint64_t run_ns = 0, wait_ns = 0;
        if (in >> run_ns >> wait_ns) {
            total.run_ns += run_ns;
            total.wait_ns += wait_ns;
        }
    }
    if (ec || total.run_ns == 0)
        throw std::runtime_error("cannot read " + tasks.string() + "/*/schedstat");
    return total;
}

std::uint64_t cpu_ticks(pid_t pid) {
    const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
    const std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 2 > stat.size())
        throw std::runtime_error("cannot read /proc/" + std::to_string(pid) + "/stat");
    std::istringstream fields(stat.substr(paren + 2));
    std::string field;
    std::uint64_t ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i)
        if (i == 14 || i == 15) ticks += std::stoull(field);
    return ticks;
}

double cpu_percent(std::uint64_t ns, netplay::Micros window_us) {
    return 100.0 * static_cast<double>(ns) / 1000.0 / static_cast<double>(window_us);
}

std::string load_average() {
    std::istringstream in(read_text("/proc/loadavg"));
    std::string one, five, fifteen;
    in >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

}  // namespace framelock::bench::capacity
