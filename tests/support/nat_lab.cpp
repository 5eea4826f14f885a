#include "support/nat_lab.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "support/build_paths.h"
#include "support/mode_pin.h"
#include "support/process.h"

namespace framelock::test {
namespace {

constexpr auto kCommandLimit = std::chrono::seconds(20);

std::string find_tool(const char* name) {
    for (const char* dir : {"/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"}) {
        const std::string path = std::string(dir) + name;
        if (::access(path.c_str(), X_OK) == 0) return path;
    }
    return {};
}

const std::string& ip_tool() {
    static const std::string path = find_tool("ip");
    return path;
}

const std::string& nft_tool() {
    static const std::string path = find_tool("nft");
    return path;
}

std::string join(const std::vector<std::string>& args) {
    std::string text;
    for (const auto& a : args) text += (text.empty() ? "" : " ") + a;
    return text;
}

sockaddr_in parse_endpoint(const std::string& endpoint) {
    const auto colon = endpoint.rfind(':');
    sockaddr_in address{};
    address.sin_family = AF_INET;
    const std::string host = colon == std::string::npos ? endpoint : endpoint.substr(0, colon);
    if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1)
        throw std::runtime_error("not an IPv4 endpoint: '" + endpoint + "'");
    if (colon != std::string::npos)
        address.sin_port = htons(static_cast<std::uint16_t>(std::stoi(endpoint.substr(colon + 1))));
    return address;
}

std::string to_string(const sockaddr_in& address) {
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &address.sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(address.sin_port));
}

// inet's end of router I's WAN link: the router's default gateway.
std::string inet_side(int router) {
    return "203.0.113." + std::to_string(4 * router - 3);
}

std::string host_of(const std::string& endpoint) {
    return endpoint.substr(0, endpoint.rfind(':'));
}

}  // namespace

// --- LabSocket -------------------------------------------------------------------------

LabSocket::~LabSocket() {
    if (m_fd >= 0) ::close(m_fd);
}

int LabSocket::port() const {
    sockaddr_in address{};
    socklen_t size = sizeof address;
    ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &size);
    return ntohs(address.sin_port);
}

void LabSocket::send_to(const std::string& endpoint, const std::string& data) const {
    const sockaddr_in to = parse_endpoint(endpoint);
    if (::sendto(m_fd, data.data(), data.size(), 0, reinterpret_cast<const sockaddr*>(&to),
                 sizeof to) != static_cast<ssize_t>(data.size()))
        throw std::runtime_error("sendto " + endpoint + ": " + std::strerror(errno));
}

std::optional<LabSocket::Datagram> LabSocket::receive(std::chrono::milliseconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        pollfd fd{m_fd, POLLIN, 0};
        const int ready = ::poll(&fd, 1, static_cast<int>(std::max<long>(0, left.count())));
        if (ready == 0) return std::nullopt;
        if (ready < 0 && errno == EINTR) continue;
        char buffer[2048];
        sockaddr_in from{};
        socklen_t size = sizeof from;
        // An ICMP error from an earlier send shows up as a failed receive: skip it.
        const ssize_t n = ::recvfrom(m_fd, buffer, sizeof buffer, MSG_DONTWAIT,
                                     reinterpret_cast<sockaddr*>(&from), &size);
        if (n >= 0)
            return Datagram{std::string(buffer, static_cast<std::size_t>(n)), to_string(from)};
        if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    }
}

// --- NatLab ----------------------------------------------------------------------------

std::optional<std::string> NatLab::unavailable() {
    if (::geteuid() != 0)
        return "needs root (network namespaces, veth pairs and nftables need CAP_NET_ADMIN "
               "and CAP_SYS_ADMIN); CI runs these tests as root";
    if (ip_tool().empty()) return "needs `ip` (Debian: iproute2)";
    if (nft_tool().empty()) return "needs `nft` (Debian: nftables)";
    static std::atomic<int> probes{0};
    const std::string probe =
        "fllab-" + std::to_string(::getpid()) + "-probe" + std::to_string(probes++);
    const auto added = run_process({ip_tool(), "netns", "add", probe}, kCommandLimit);
    if (added.exit_code != 0) return "`ip netns add` failed: " + added.err;
    const auto entered = run_process(
        {ip_tool(), "netns", "exec", probe, nft_tool(), "list", "ruleset"}, kCommandLimit);
    run_process({ip_tool(), "netns", "del", probe}, kCommandLimit);
    if (entered.exit_code != 0)
        return "`ip netns exec ... nft` failed: " + entered.err + entered.out;
    return std::nullopt;
}

std::string NatLab::relay_address(int index) {
    if (index < 0 || index >= kRelayAddresses)
        throw std::invalid_argument("relay index " + std::to_string(index));
    return "198.51.100." + std::to_string(10 + index);
}

std::string NatLab::wan_address(int router) {
    return "203.0.113." + std::to_string(4 * router - 2);
}

std::string NatLab::home_address(int router) {
    return "10.0." + std::to_string(router) + ".2";
}

std::string NatLab::router(int index) const {
    if (index < 1 || index > routers())
        throw std::invalid_argument("no router " + std::to_string(index));
    return m_prefix + "r" + std::to_string(index);
}

std::string NatLab::home(int index) const {
    if (index < 1 || index > routers())
        throw std::invalid_argument("no home " + std::to_string(index));
    return m_prefix + "h" + std::to_string(index);
}

std::vector<std::string> NatLab::namespaces() const {
    std::vector<std::string> names = {m_inet};
    for (int i = 1; i <= routers(); ++i) {
        names.push_back(router(i));
        names.push_back(home(i));
    }
    return names;
}

NatLab::NatLab(std::vector<Nat> routers, std::chrono::seconds limit)
    : m_nats(std::move(routers)), m_limit(limit), m_dir("natlab") {
    // /30 WAN links in 203.0.113.0/24 and one 10.0.I.0/24 per home: at most 62 routers.
    if (m_nats.empty() || m_nats.size() > 62)
        throw std::invalid_argument("a NAT lab has 1 to 62 routers");
    static std::atomic<int> labs{0};
    m_prefix = "fllab-" + std::to_string(::getpid()) + "-" + std::to_string(labs++) + "-";
    m_inet = m_prefix + "inet";
    start_watchdog();
    try {
        build();
    } catch (...) {
        // The destructor does not run for a constructor that throws.
        m_children.clear();
        ::close(m_watchdog_fd);
        ::waitpid(m_watchdog, nullptr, 0);
        throw;
    }
}

NatLab::~NatLab() {
    m_children.clear();  // SIGKILL and reap: nothing of ours runs in the namespaces
    const char done = 'q';
    [[maybe_unused]] const ssize_t n = ::write(m_watchdog_fd, &done, 1);
    ::close(m_watchdog_fd);
    if (m_watchdog > 0) ::waitpid(m_watchdog, nullptr, 0);
}

void NatLab::start_watchdog() {
    // The write end stays in this process only (close-on-exec): the watchdog reads EOF
    // exactly when this process is gone or the destructor closed it. Then it kills what
    // still runs in the lab's namespaces (after a crash, the processes spawn() started) and
    // deletes them; a namespace goes away with its last process and open socket.
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2() failed");
    std::string script = "cat >/dev/null\nfor ns in";
    for (const auto& ns : namespaces()) script += " " + ns;
    script += "; do\n  for pid in $(" + ip_tool() +
              " netns pids \"$ns\" 2>/dev/null); do kill -9 \"$pid\"; done\n  " + ip_tool() +
              " netns del \"$ns\" 2>/dev/null\ndone\nexit 0\n";
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork() failed");
    if (pid == 0) {
        // Its own session: CTest's timeout kills the test's process group, and the
        // watchdog must outlive that to clean up. Holding none of the test's output pipes.
        ::setsid();
        const int null = ::open("/dev/null", O_RDWR);
        ::dup2(fds[0], 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
        ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(fds[0]);
    m_watchdog = pid;
    m_watchdog_fd = fds[1];
}

void NatLab::run(const std::vector<std::string>& args, const std::string& what) const {
    const ProcessResult result = run_process(args, kCommandLimit);
    if (result.exit_code != 0)
        throw std::runtime_error("NAT lab: `" + join(args) + "` failed" +
                                 (result.timed_out ? " (timed out)" : "") + ": " + result.err +
                                 result.out + (what.empty() ? "" : "\n" + what));
}

void NatLab::in_ns(const std::string& ns, const std::vector<std::string>& args) const {
    std::vector<std::string> full = {ip_tool(), "-n", ns};
    full.insert(full.end(), args.begin(), args.end());
    run(full);
}

void NatLab::nft_file(const std::string& ns, const std::string& name,
                      const std::string& rules) const {
    const std::string path = m_dir.file(name + ".nft");
    write_text(path, rules);
    run({ip_tool(), "netns", "exec", ns, nft_tool(), "-f", path}, rules);
}

void NatLab::build() {
    for (const auto& ns : namespaces()) {
        run({ip_tool(), "netns", "add", ns});
        in_ns(ns, {"link", "set", "lo", "up"});
    }
    // The servers' addresses: /32s on inet's loopback (this kernel has no dummy device).
    in_ns(m_inet, {"addr", "add", std::string(kLobbyAddress) + "/32", "dev", "lo"});
    for (int k = 0; k < kRelayAddresses; ++k)
        in_ns(m_inet, {"addr", "add", relay_address(k) + "/32", "dev", "lo"});
    run({ip_tool(), "netns", "exec", m_inet, "sysctl", "-qw", "net.ipv4.ip_forward=1"});

    std::string inet_rules = "table ip lab {\n";
    std::string forward, input;
    for (int i = 1; i <= routers(); ++i) {
        const std::string r = router(i), h = home(i), n = std::to_string(i);
        const std::string up = "r" + n;  // the link's name on inet's side
        in_ns(m_inet, {"link", "add", up, "type", "veth", "peer", "name", "wan", "netns", r});
        in_ns(m_inet, {"addr", "add", inet_side(i) + "/30", "dev", up});
        in_ns(m_inet, {"link", "set", up, "up"});
        in_ns(r, {"addr", "add", wan_address(i) + "/30", "dev", "wan"});
        in_ns(r, {"link", "set", "wan", "up"});
        in_ns(r, {"route", "add", "default", "via", inet_side(i)});
        in_ns(r, {"link", "add", "lan", "type", "veth", "peer", "name", "eth0", "netns", h});
        in_ns(r, {"addr", "add", "10.0." + n + ".1/24", "dev", "lan"});
        in_ns(r, {"link", "set", "lan", "up"});
        in_ns(h, {"addr", "add", home_address(i) + "/24", "dev", "eth0"});
        in_ns(h, {"link", "set", "eth0", "up"});
        in_ns(h, {"route", "add", "default", "via", "10.0." + n + ".1"});
        run({ip_tool(), "netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1"});
        // Replies find their way back through conntrack; nothing else is forwarded inward
        // because no DNAT sends it anywhere (the counter shows what was).
        nft_file(r, "r" + n,
                 std::string("table ip nat {\n"
                             "  chain prerouting {\n"
                             "    type nat hook prerouting priority dstnat; policy accept;\n"
                             "  }\n"
                             "  chain postrouting {\n"
                             "    type nat hook postrouting priority srcnat; policy accept;\n"
                             "    oifname \"wan\" masquerade") +
                     (m_nats[i - 1] == Nat::kSymmetric ? " random" : "") +
                     "\n  }\n}\n"
                     "table ip lab {\n"
                     "  counter inbound { }\n"
                     "  chain forward {\n"
                     "    type filter hook forward priority filter; policy accept;\n"
                     "    iifname \"wan\" oifname \"lan\" counter name \"inbound\"\n"
                     "  }\n"
                     // A home router's firewall: nothing from the internet is delivered to the
                     // router itself unless it answers something it sent. (The datagram is
                     // dropped before conntrack confirms it, so no stale entry is left for it
                     // to clash with a later mapping, as on every home router.)
                     "  chain input {\n"
                     "    type filter hook input priority filter; policy accept;\n"
                     "    iifname \"wan\" ct state established,related accept\n"
                     "    iifname \"wan\" drop\n"
                     "  }\n}\n");
        for (int j = i + 1; j <= routers(); ++j) {
            const std::string name = "d_" + n + "_" + std::to_string(j);
            inet_rules += "  counter " + name + " { }\n";
            for (const auto& [from, to] : {std::pair{i, j}, std::pair{j, i}})
                forward += "    ip saddr " + wan_address(from) + " ip daddr " + wan_address(to) +
                           " meta l4proto udp counter name \"" + name + "\"\n";
        }
    }
    std::vector<std::string> servers = {kLobbyAddress};
    for (int k = 0; k < kRelayAddresses; ++k) servers.push_back(relay_address(k));
    for (const auto& server : servers) {
        const std::string name = "to_" + server.substr(server.rfind('.') + 1);
        inet_rules += "  counter " + name + " { }\n";
        input +=
            "    ip saddr 203.0.113.0/24 ip daddr " + server + " counter name \"" + name + "\"\n";
    }
    inet_rules +=
        "  chain forward {\n    type filter hook forward priority filter; policy accept;\n" +
        forward + "  }\n";
    inet_rules += "  chain input {\n    type filter hook input priority filter; policy accept;\n" +
                  input + "  }\n}\n";
    nft_file(m_inet, "inet", inet_rules);
}

void NatLab::add_latency(int router_index, const std::string& server, double rtt_ms) {
    const std::string netem = build_paths::netem_exe;
    if (netem.empty()) throw std::runtime_error("NAT lab: framelock_netem is not built");
    const std::string r = router(router_index), n = std::to_string(router_index);
    const sockaddr_in target = parse_endpoint(server);
    const std::string name = "netem-r" + n + "-" + std::to_string(m_children.size());
    const std::string port_file = m_dir.file(name + ".port");
    const std::string half = std::to_string(rtt_ms / 2);
    ChildProcess& proxy =
        spawn(r, name,
              {netem, "--listen", "10.0." + n + ".1:0", "--forward", to_string(target),
               "--allow-non-loopback", "--delay-up", half, "--delay-down", half, "--duration",
               std::to_string(m_limit.count()), "--port-file", port_file, "--stats-file",
               m_dir.file(name + ".json")});
    const auto port = framelock::wait_for_port_file(port_file, proxy, ready_deadline());
    if (!port) throw std::runtime_error("NAT lab: " + port.error().message + log_of(name));
    dnat_lan(router_index, to_string(target), "10.0." + n + ".1:" + std::to_string(port.value()));
}

void NatLab::redirect(int router_index, const std::string& from, const std::string& to) {
    dnat_lan(router_index, to_string(parse_endpoint(from)), to_string(parse_endpoint(to)));
}

void NatLab::dnat_lan(int router_index, const std::string& from, const std::string& to) const {
    // Only new flows are translated: a flow conntrack already knows keeps its way (so a
    // rule goes in before the home sends).
    const sockaddr_in source = parse_endpoint(from);
    run({ip_tool(),
         "netns",
         "exec",
         router(router_index),
         nft_tool(),
         "add",
         "rule",
         "ip",
         "nat",
         "prerouting",
         "iifname",
         "lan",
         "ip",
         "daddr",
         host_of(from),
         "udp",
         "dport",
         std::to_string(ntohs(source.sin_port)),
         "dnat",
         "to",
         to});
}

void NatLab::forward_port(int router_index, int port) {
    run({ip_tool(), "netns", "exec", router(router_index), nft_tool(), "add", "rule", "ip", "nat",
         "prerouting", "iifname", "wan", "udp", "dport", std::to_string(port), "dnat", "to",
         home_address(router_index) + ":" + std::to_string(port)});
}

ChildProcess& NatLab::spawn(const std::string& ns, const std::string& name,
                            const std::vector<std::string>& args) {
    std::vector<std::string> full = {ip_tool(), "netns", "exec", ns};
    const std::vector<std::string> pinned = frame_lock_unless_said(args);  // mode_pin.h
    full.insert(full.end(), pinned.begin(), pinned.end());
    const std::string log = m_dir.file(name + ".log");
    auto child = ChildProcess::spawn(full, log, log);
    if (!child) throw std::runtime_error("NAT lab: " + child.error().message);
    m_children.push_back(std::make_unique<ChildProcess>(std::move(child).value()));
    return *m_children.back();
}

std::string NatLab::log_of(const std::string& name) const {
    return "\n--- " + name + ".log ---\n" + read_text(m_dir.file(name + ".log"));
}

void NatLab::run_in(const std::string& ns, const std::function<void()>& fn) const {
    std::exception_ptr failure;
    // The network namespace is a thread's own: entering it here leaves the rest of the
    // process (and the host's namespace) as it was.
    std::thread thread([&] {
        try {
            const std::string path = "/run/netns/" + ns;
            const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) throw std::runtime_error("open " + path + ": " + std::strerror(errno));
            const int entered = ::setns(fd, CLONE_NEWNET);
            const int error = errno;
            ::close(fd);
            if (entered != 0)
                throw std::runtime_error("setns " + path + ": " + std::strerror(error));
            fn();
        } catch (...) {
            failure = std::current_exception();
        }
    });
    thread.join();
    if (failure) std::rethrow_exception(failure);
}

LabSocket NatLab::udp_socket(const std::string& ns, const std::string& bind) const {
    int fd = -1;
    run_in(ns, [&] {
        fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
        const sockaddr_in address = parse_endpoint(bind);
        if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
            const int error = errno;
            ::close(fd);
            throw std::runtime_error("bind " + bind + " in " + ns + ": " + std::strerror(error));
        }
    });
    return LabSocket(fd);
}

std::uint64_t NatLab::counter(const std::string& ns, const std::string& table,
                              const std::string& name) const {
    const std::vector<std::string> args = {ip_tool(), "netns",   "exec", ns,    nft_tool(), "-j",
                                           "list",    "counter", "ip",   table, name};
    const ProcessResult result = run_process(args, kCommandLimit);
    if (result.exit_code != 0)
        throw std::runtime_error("NAT lab: `" + join(args) + "` failed: " + result.err);
    const auto json = nlohmann::json::parse(result.out, nullptr, false);
    if (json.is_object() && json.contains("nftables")) {
        for (const auto& item : json["nftables"]) {
            if (item.contains("counter")) return item["counter"].value("packets", 0ULL);
        }
    }
    throw std::runtime_error("NAT lab: no counter in `" + join(args) + "`: " + result.out);
}

std::uint64_t NatLab::direct_packets(int a, int b) const {
    if (a == b || a < 1 || b < 1 || a > routers() || b > routers())
        throw std::invalid_argument("direct_packets(" + std::to_string(a) + ", " +
                                    std::to_string(b) + ")");
    return counter(m_inet, "lab",
                   "d_" + std::to_string(std::min(a, b)) + "_" + std::to_string(std::max(a, b)));
}

std::uint64_t NatLab::packets_to(const std::string& server) const {
    const std::string host = to_string(parse_endpoint(server));
    const std::string address = host_of(host);
    return counter(m_inet, "lab", "to_" + address.substr(address.rfind('.') + 1));
}

std::uint64_t NatLab::inbound_forwarded(int router_index) const {
    return counter(router(router_index), "lab", "inbound");
}

}  // namespace framelock::test
