#include "lobby/rendezvous_socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "lobby/http_service.h"

namespace framelock::lobby {

Result<std::unique_ptr<RendezvousSocket>> RendezvousSocket::open(const std::string& bind,
                                                                 std::uint16_t port,
                                                                 Rendezvous& rendezvous) {
    const std::string where = (bind.empty() ? "0.0.0.0" : bind) + ":" + std::to_string(port);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (bind.empty() || bind == "::" || bind == "0.0.0.0") {
        // All interfaces (an HTTP service on "::" takes IPv4 too): ENet speaks IPv4 only.
        address.sin_addr.s_addr = htonl(INADDR_ANY);
    } else if (inet_pton(AF_INET, bind.c_str(), &address.sin_addr) != 1) {
        addrinfo hints{};
        hints.ai_family = AF_INET;
        hints.ai_socktype = SOCK_DGRAM;
        addrinfo* found = nullptr;
        if (getaddrinfo(bind.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) {
            return make_error(ErrorCode::kUsage, "cannot serve the rendezvous on UDP " + where +
                                                     ": no IPv4 address for it");
        }
        address.sin_addr = reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr;
        freeaddrinfo(found);
    }
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return make_error(ErrorCode::kIo,
                          std::string("cannot open a UDP socket: ") + std::strerror(errno));
    }
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        const int error = errno;
        ::close(fd);
        return make_error(ErrorCode::kUsage, "cannot serve the rendezvous on UDP " + where + ": " +
                                                 std::strerror(error));
    }
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    return std::unique_ptr<RendezvousSocket>(
        new RendezvousSocket(fd, ntohs(address.sin_port), rendezvous));
}

RendezvousSocket::RendezvousSocket(int fd, std::uint16_t port, Rendezvous& rendezvous)
    : m_fd(fd), m_port(port), m_rendezvous(rendezvous) {
    m_thread = std::thread([this] { serve(); });
}

RendezvousSocket::~RendezvousSocket() {
    m_stop = true;
    m_thread.join();
    ::close(m_fd);
}

void RendezvousSocket::serve() {
    std::uint8_t buffer[512];
    const auto send = [this](const Datagram& out) {
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_addr.s_addr = htonl(out.to.ipv4);
        to.sin_port = htons(out.to.port);
        ::sendto(m_fd, out.bytes.data(), out.bytes.size(), 0,
                 reinterpret_cast<const sockaddr*>(&to), sizeof to);
    };
    while (!m_stop) {
        for (const Datagram& out : m_rendezvous.take_pushes()) send(out);
        pollfd p{m_fd, POLLIN, 0};
        if (::poll(&p, 1, 20) <= 0) continue;
        sockaddr_in from{};
        socklen_t length = sizeof from;
        const ssize_t n =
            ::recvfrom(m_fd, buffer, sizeof buffer, 0, reinterpret_cast<sockaddr*>(&from), &length);
        if (n < 0) continue;
        m_in.fetch_add(1);
        const netplay::Endpoint sender{ntohl(from.sin_addr.s_addr), ntohs(from.sin_port)};
        for (const Datagram& out : m_rendezvous.handle(
                 sender, std::span(buffer, static_cast<std::size_t>(n)), wall_clock_ms())) {
            send(out);
        }
    }
}

}  // namespace framelock::lobby
