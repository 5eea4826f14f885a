// A NAT lab for integration tests: real Linux NAT in network namespaces of the test's own.
//
//   inet (the "internet", documentation addresses only)
//     lo: 198.51.100.1 (lobby), 198.51.100.10..17 (relays)      forwards between routers
//     rI  203.0.113.(4I-3)/30 --veth--  wan 203.0.113.(4I-2)/30  in router rI (r1: .1/.2)
//   router rI: nftables `masquerade` (port-preserving) or `masquerade random` (symmetric)
//     on wan; lan 10.0.I.1/24 --veth-- eth0 10.0.I.2/24 in home hI (default route via rI)
//
// Every address lives in namespaces the lab made; the host's own namespace gets no
// interface, route or rule. Unsolicited datagrams to a router's WAN address match no
// DNAT and are not forwarded (tested). Added latency per path comes from the project's
// proxy (framelock_netem) running inside a router behind a DNAT (add_latency).
//
// Cleanup does not rely on the destructor: a watchdog process started first waits for this
// process to end in any way (destructor, failed assertion, crash, CTest's timeout), then
// kills whatever runs in the lab's namespaces and deletes them. Namespaces are named
// "fllab-PID-N-ROLE": a lab only ever deletes its own, so labs of tests running in parallel
// never disturb each other.
//
// Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN), `ip` (iproute2) and `nft` (nftables):
// unavailable() says why a lab cannot be built here, for a test to skip with.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/child_process.h"
#include "support/temp_dir.h"

namespace framelock::test {

// How a home router translates: `masquerade` keeps a flow's source port when it is free
// (what hole punching needs), `masquerade random` picks a new port per destination.
enum class Nat { kPortPreserving, kSymmetric };

// A UDP socket opened inside one of the lab's namespaces (it stays there whichever thread
// uses it). Closed by the destructor.
class LabSocket {
  public:
    struct Datagram {
        std::string data;
        std::string source;  // "IP:PORT"
    };

    explicit LabSocket(int fd) : m_fd(fd) {}
    LabSocket(LabSocket&& other) noexcept : m_fd(other.m_fd) { other.m_fd = -1; }
    LabSocket& operator=(LabSocket&&) = delete;
    LabSocket(const LabSocket&) = delete;
    LabSocket& operator=(const LabSocket&) = delete;
    ~LabSocket();

    int port() const;  // the bound local port
    // Throws std::runtime_error when the datagram cannot be sent.
    void send_to(const std::string& endpoint, const std::string& data) const;
    // The next datagram, or nothing within `timeout`.
    std::optional<Datagram> receive(std::chrono::milliseconds timeout) const;

  private:
    int m_fd = -1;
};

class NatLab {
  public:
    // Why no lab can be built here (not root, `ip` or `nft` missing, `ip netns add` or
    // `ip netns exec` refused), or nothing when it can.
    static std::optional<std::string> unavailable();

    // Routers r1..rN, one per entry, with homes h1..hN. `limit` bounds everything the lab
    // starts (the proxies' --duration). Throws std::runtime_error naming the command that
    // failed, after cleaning up what it had built.
    explicit NatLab(std::vector<Nat> routers,
                    std::chrono::seconds limit = std::chrono::seconds(300));
    ~NatLab();
    NatLab(const NatLab&) = delete;
    NatLab& operator=(const NatLab&) = delete;

    // The addresses (fixed: each lab has namespaces of its own).
    static constexpr const char* kLobbyAddress = "198.51.100.1";
    static constexpr int kRelayAddresses = 8;
    static std::string relay_address(int index);  // 198.51.100.(10 + index), index < 8
    static std::string wan_address(int router);   // router 1..N: 203.0.113.(4 * router - 2)
    static std::string home_address(int router);  // 10.0.ROUTER.2

    // Namespace names, for spawn(), udp_socket(), run_in() or `ip netns exec`.
    const std::string& inet() const { return m_inet; }
    std::string router(int index) const;  // 1..N
    std::string home(int index) const;    // 1..N
    int routers() const { return static_cast<int>(m_nats.size()); }

    // Router `router`'s home sees `server` ("IP:PORT", UDP) `rtt_ms` further away: a
    // framelock_netem in the router (half the round trip each way) behind a DNAT of the
    // home's datagrams to that endpoint. Other homes' paths are unchanged. Requires the
    // proxy (build_paths::netem_exe); throws when it does not start.
    void add_latency(int router, const std::string& server, double rtt_ms);

    // An attacker on router `router`'s path (a hostile router or ISP): its home's UDP
    // datagrams to `from` ("IP:PORT") go to `to` ("IP:PORT") instead, the answers back as if
    // from `from`. Other homes' paths are unchanged.
    void redirect(int router, const std::string& from, const std::string& to);

    // A port forward, as a player sets one up on a home router: UDP datagrams to router
    // `router`'s WAN address at `port` go to its home's address, same port.
    void forward_port(int router, int port);

    // Starts `args` (args[0] a path) inside namespace `ns`; stdout and stderr go to
    // file(NAME.log). Killed (SIGKILL) when the lab ends, if still running.
    ChildProcess& spawn(const std::string& ns, const std::string& name,
                        const std::vector<std::string>& args);
    std::string file(const std::string& name) const { return m_dir.file(name); }
    std::string log_of(const std::string& name) const;  // NAME.log with a header, for INFO

    // A UDP socket bound to `bind` ("IP:PORT", port 0 for any) inside namespace `ns`.
    LabSocket udp_socket(const std::string& ns, const std::string& bind = "0.0.0.0:0") const;

    // Runs `fn` on a thread of its own that entered namespace `ns` (network only): sockets
    // it opens live there. Rethrows what `fn` throws. No Catch assertions inside `fn`.
    void run_in(const std::string& ns, const std::function<void()>& fn) const;

    // UDP datagrams inet forwarded between routers `a` and `b`'s WAN addresses, both ways:
    // traffic that went directly from one home to the other, past any relay (the ICMP errors
    // a router answers undeliverable datagrams with are not counted).
    std::uint64_t direct_packets(int a, int b) const;
    // Packets from any router to `server` (an address of inet's, "IP" or "IP:PORT"; the port
    // is not told apart).
    std::uint64_t packets_to(const std::string& server) const;
    // Packets router `router` forwarded from its WAN to its LAN (replies included).
    std::uint64_t inbound_forwarded(int router) const;

  private:
    void build();
    void start_watchdog();
    void run(const std::vector<std::string>& args, const std::string& what = {}) const;
    void in_ns(const std::string& ns, const std::vector<std::string>& args) const;
    // Router `router` sends its home's UDP datagrams to `from` ("IP:PORT") to `to` instead.
    void dnat_lan(int router, const std::string& from, const std::string& to) const;
    void nft_file(const std::string& ns, const std::string& name, const std::string& rules) const;
    std::uint64_t counter(const std::string& ns, const std::string& table,
                          const std::string& name) const;
    std::vector<std::string> namespaces() const;

    std::vector<Nat> m_nats;
    std::chrono::seconds m_limit;
    std::string m_prefix;  // "fllab-PID-N-"
    std::string m_inet;
    TempDir m_dir;
    pid_t m_watchdog = -1;
    int m_watchdog_fd = -1;  // its pipe's write end: closed, the watchdog cleans up
    std::vector<std::unique_ptr<ChildProcess>> m_children;
};

}  // namespace framelock::test
