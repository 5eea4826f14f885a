// frontend/reach/relay_probe.h against real EnetTransport::listen sockets on 127.0.0.1 (a
// relay session socket answers probes by itself), one of them slowed down, and relays that
// do not answer.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "frontend/reach/relay_probe.h"
#include "netplay/io/enet_transport.h"

using namespace framelock;
using namespace framelock::frontend;
using netplay::EnetTransport;
using netplay::Micros;

namespace {

// A relay's session socket, serviced on a thread of its own every `every` (a slow relay
// answers a probe only when it next services the socket: up to `every` late).
class Relay {
  public:
    explicit Relay(std::chrono::microseconds every = std::chrono::microseconds(0)) {
        auto t = EnetTransport::listen("127.0.0.1:0", 4);
        REQUIRE(t);
        m_transport = std::move(t).value();
        m_port = m_transport->local_port();
        m_thread = std::thread([this, every] {
            while (!m_stop) {
                if (every.count() > 0) {
                    std::this_thread::sleep_for(every);
                    while (m_transport->poll()) {
                    }
                } else {
                    m_transport->wait(2'000);
                }
            }
        });
    }
    ~Relay() {
        m_stop = true;
        m_thread.join();
    }
    std::string address() const { return "127.0.0.1:" + std::to_string(m_port); }

  private:
    std::unique_ptr<EnetTransport> m_transport;
    std::uint16_t m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

// The median round trip, in microseconds, of 11 datagrams on 127.0.0.1 to a thread that
// echoes each at once: how late this machine wakes a waiting thread now (under its load and
// any sanitizer), which every probe's round trip includes twice.
Micros loopback_echo_median_us() {
    const auto bound_socket = [] {
        const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
        REQUIRE(fd >= 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
        socklen_t len = sizeof addr;
        REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
        return std::pair{fd, addr};
    };
    const auto [echo_fd, echo_addr] = bound_socket();
    const int probe_fd = bound_socket().first;
    constexpr int kRounds = 11;
    std::thread echo([fd = echo_fd] {
        for (int i = 0; i < kRounds; ++i) {
            char byte = 0;
            sockaddr_in from{};
            socklen_t len = sizeof from;
            if (::recvfrom(fd, &byte, 1, 0, reinterpret_cast<sockaddr*>(&from), &len) != 1) return;
            ::sendto(fd, &byte, 1, 0, reinterpret_cast<sockaddr*>(&from), len);
        }
    });
    std::vector<Micros> rtts;
    for (int i = 0; i < kRounds; ++i) {
        const auto sent = std::chrono::steady_clock::now();
        char byte = static_cast<char>(i);
        ::sendto(probe_fd, &byte, 1, 0, reinterpret_cast<const sockaddr*>(&echo_addr),
                 sizeof echo_addr);
        pollfd p{probe_fd, POLLIN, 0};
        if (::poll(&p, 1, 10'000) != 1 || ::recv(probe_fd, &byte, 1, 0) != 1) break;
        rtts.push_back(std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::steady_clock::now() - sent)
                           .count());
    }
    ::shutdown(echo_fd, SHUT_RDWR);  // ends the echo thread's wait if a round was lost
    echo.join();
    ::close(echo_fd);
    ::close(probe_fd);
    REQUIRE(rtts.size() == static_cast<std::size_t>(kRounds));
    std::sort(rtts.begin(), rtts.end());
    return rtts[kRounds / 2];
}

}  // namespace

TEST_CASE("relay probes: round trips to answering relays, none for silent ones",
          "[reach][relay_probe]") {
    Relay fast;
    Relay slow(std::chrono::milliseconds(30));
    // Bound but never serviced: the probes reach a socket that never answers.
    auto silent = EnetTransport::listen("127.0.0.1:0", 1);
    REQUIRE(silent);
    const std::string silent_address = "127.0.0.1:" + std::to_string(silent.value()->local_port());

    const std::vector<RelayTarget> relays = {{"fast", fast.address()},
                                             {"slow", slow.address()},
                                             {"silent", silent_address},
                                             {"named", "localhost:7000"}};  // not a.b.c.d:port
    // The figures below hold on a quiet machine; a busy one (or a sanitizer's build) wakes
    // the relay's thread and this one later: the bounds on round trips get what a plain
    // loopback echo between two threads takes here now.
    const Micros wake_us = loopback_echo_median_us();
    INFO("a loopback echo between two threads takes " << wake_us << " us here (median)");
    const auto started = std::chrono::steady_clock::now();
    auto results = probe_relays(relays, RelayProbeOptions{5, 20'000, 600'000});
    const auto took = std::chrono::steady_clock::now() - started;
    REQUIRE(results);
    const auto& r = results.value();
    REQUIRE(r.size() == 4);
    CHECK(r[0].id == "fast");
    CHECK(r[0].replies == 5);
    REQUIRE(r[0].rtt_us);
    CHECK(*r[0].rtt_us < 5'000 + wake_us);  // loopback, answered within the service call
    CHECK(r[0].min_us <= *r[0].rtt_us);
    // The slow relay answers when it wakes up: between 0 and 30 ms late (+ the sleep's slack),
    // 15 ms on average; of 5 probes 20 ms apart the median is rarely under 2 ms.
    REQUIRE(r[1].rtt_us);
    CHECK(r[1].replies == 5);
    CHECK(*r[1].rtt_us > *r[0].rtt_us);
    CHECK(*r[1].rtt_us < 45'000 + wake_us);
    CHECK(r[2].id == "silent");
    CHECK(!r[2].rtt_us);
    CHECK(r[2].replies == 0);
    CHECK(!r[3].rtt_us);
    // A silent relay costs the deadline, no more.
    CHECK(took >= std::chrono::milliseconds(590));
    CHECK(took < std::chrono::milliseconds(900));
}

TEST_CASE("relay probes: done as soon as every probe is answered", "[reach][relay_probe]") {
    Relay a, b;
    const auto started = std::chrono::steady_clock::now();
    auto results = probe_relays({{"a", a.address()}, {"b", b.address()}}, RelayProbeOptions{});
    const auto took = std::chrono::steady_clock::now() - started;
    REQUIRE(results);
    for (const auto& r : results.value()) {
        CHECK(r.replies == 5);
        CHECK(r.rtt_us);
    }
    // 5 rounds 20 ms apart: the last is sent at 80 ms; the default deadline is 1 s.
    CHECK(took >= std::chrono::milliseconds(80));
    CHECK(took < std::chrono::milliseconds(400));
    // No relays: nothing to wait for.
    const auto none = probe_relays({}, RelayProbeOptions{});
    REQUIRE(none);
    CHECK(none.value().empty());
}
