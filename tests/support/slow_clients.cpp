#include "support/slow_clients.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace framelock::test {
namespace {

using Clock = std::chrono::steady_clock;

// A blocking connect from `source` (loopback answers at once, or refuses); -1 on failure.
int connect_from(const std::string& source, std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, source.c_str(), &local.sin_addr);
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &server.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
        ::connect(fd, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool send_all(int fd, std::string_view text) {
    return ::send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT) ==
           static_cast<ssize_t>(text.size());
}

}  // namespace

SlowClients::SlowClients(std::uint16_t port, std::vector<std::string> sources, int connections,
                         std::chrono::milliseconds line_every)
    : m_port(port),
      m_sources(std::move(sources)),
      m_connections(connections),
      m_line_every(line_every),
      m_thread([this] { run(); }) {}

SlowClients::~SlowClients() {
    m_stop = true;
    m_thread.join();
}

void SlowClients::run() {
    struct Connection {
        int fd = -1;
        Clock::time_point next;  // the next line, or the next try to connect
        long lines = 0;
    };
    std::vector<Connection> connections(static_cast<std::size_t>(m_connections));
    const auto end = [&](Connection& c, Clock::time_point now) {
        ::close(c.fd);
        c.fd = -1;
        c.next = now + std::chrono::milliseconds(100);  // then again
        --m_open;
        ++m_ended;
    };
    // The connections' lines are spread over the interval, not sent in one burst.
    const auto start = Clock::now();
    for (std::size_t i = 0; i < connections.size(); ++i)
        connections[i].next = start + m_line_every * static_cast<long>(i) / m_connections;
    while (!m_stop) {
        const auto now = Clock::now();
        std::vector<pollfd> polled;
        std::vector<std::size_t> which;
        for (std::size_t i = 0; i < connections.size(); ++i) {
            Connection& c = connections[i];
            if (c.fd < 0 && now >= c.next) {
                c.fd = connect_from(m_sources[i % m_sources.size()], m_port);
                if (c.fd < 0) {
                    c.next = now + std::chrono::milliseconds(100);
                    continue;
                }
                ++m_open;
                ++m_opened;
                c.lines = 0;
                if (!send_all(c.fd, "GET / HTTP/1.1\r\nHost: lobby\r\n")) {
                    end(c, now);
                    continue;
                }
                c.next = now + m_line_every;
            } else if (c.fd >= 0 && now >= c.next) {
                const std::string line = "X-Slow-" + std::to_string(c.lines++) + ": 1\r\n";
                if (!send_all(c.fd, line)) {
                    end(c, now);
                    continue;
                }
                ++m_lines;
                c.next += m_line_every;
            }
            if (c.fd >= 0) {
                polled.push_back({c.fd, POLLIN, 0});
                which.push_back(i);
            }
        }
        // What the server sends is its giving up (a 408, then the end): read, and counted.
        if (::poll(polled.data(), polled.size(), 20) > 0) {
            for (std::size_t k = 0; k < polled.size(); ++k) {
                if (polled[k].revents == 0) continue;
                Connection& c = connections[which[k]];
                char buffer[512];
                const ssize_t got = ::recv(c.fd, buffer, sizeof buffer, MSG_DONTWAIT);
                if (got > 0 &&
                    std::string_view(buffer, static_cast<std::size_t>(got)).find(" 408 ") !=
                        std::string_view::npos)
                    ++m_timed_out;
                const bool pending = got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
                if (got == 0 || (got < 0 && !pending)) end(c, Clock::now());
            }
        } else if (polled.empty()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    for (auto& c : connections)
        if (c.fd >= 0) ::close(c.fd);
}

}  // namespace framelock::test
