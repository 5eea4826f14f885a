#include "tools/netem/netem_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/netem/delay_queue.h"
#include "tools/netem/enet_tamper.h"

namespace framelock::netem {

namespace {

// Datagrams read from one socket before looking at the others and at the queue again.
constexpr int kReceiveBurst = 64;
constexpr int kSocketBufferBytes = 4 << 20;

Nanos monotonic_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<Nanos>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

Nanos seconds_to_ns(double seconds) {
    return static_cast<Nanos>(std::llround(seconds * 1e9));
}

double ns_to_ms(Nanos ns) {
    return static_cast<double>(ns) / 1e6;
}

class UniqueFd {
  public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : m_fd(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        if (this != &other) {
            reset();
            m_fd = std::exchange(other.m_fd, -1);
        }
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }

    int get() const { return m_fd; }
    void reset() {
        if (m_fd >= 0) ::close(m_fd);
        m_fd = -1;
    }

  private:
    int m_fd = -1;
};

sockaddr_in to_sockaddr(const Endpoint& endpoint) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(endpoint.address);
    addr.sin_port = htons(endpoint.port);
    return addr;
}

Endpoint from_sockaddr(const sockaddr_in& addr) {
    return Endpoint{ntohl(addr.sin_addr.s_addr), ntohs(addr.sin_port)};
}

// A client is identified by its source address; the key packs it into one integer.
std::uint64_t key_of(const Endpoint& endpoint) {
    return (static_cast<std::uint64_t>(endpoint.address) << 16) | endpoint.port;
}

Endpoint endpoint_of(std::uint64_t key) {
    return Endpoint{static_cast<std::uint32_t>(key >> 16), static_cast<std::uint16_t>(key)};
}

Error io_error(const std::string& what, int err) {
    return make_error(ErrorCode::kIo, what + ": " + std::strerror(err));
}

void set_buffers(int fd) {
    // Best effort: the kernel caps these at net.core.{r,w}mem_max.
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kSocketBufferBytes, sizeof kSocketBufferBytes);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSocketBufferBytes, sizeof kSocketBufferBytes);
}

struct Client {
    UniqueFd upstream;  // connected to the server
    Endpoint source;    // the upstream socket's own address, as the server sees it
    Nanos last_active = 0;
};

}  // namespace

Status write_text_atomic(const std::string& path, std::string_view text) {
    // Readers (tests polling for the port) must never see a half-written file; crash safety
    // is not the point, so no fsync.
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("cannot create '" + temp + "'", errno);
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            ::unlink(temp.c_str());
            return io_error("cannot write '" + temp + "'", err);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0 || ::rename(temp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        return io_error("cannot write '" + path + "'", err);
    }
    return {};
}

struct NetemProxy::State {
    ProxyConfig config;
    UniqueFd listen_fd;
    UniqueFd wake_fd;  // eventfd: request_stop() pokes it to end a wait at once
    std::uint16_t listen_port = 0;
    std::atomic<bool> stop{false};
    bool ran = false;

    ImpairmentModel up_model;
    ImpairmentModel down_model;
    DelayQueue queue;
    std::unordered_map<std::uint64_t, Client> clients;
    bool refusal_logged = false;

    // poll set: [0] wake_fd, [1] listen_fd, [2..] upstream sockets of fd_clients[i - 2].
    std::vector<pollfd> fds;
    std::vector<std::uint64_t> fd_clients;
    bool fds_dirty = true;

    std::vector<std::uint8_t> buffer = std::vector<std::uint8_t>(kMaxDatagram);
    ProxyStats stats;
    Nanos last_traffic = 0;
    Nanos started = 0;  // when run() began: blackout windows count from here
    EnetTamper tamper;  // --tamper-every
    std::uint64_t up_datagrams = 0;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> capture{nullptr, &std::fclose};

    explicit State(const ProxyConfig& c)
        : config(c),
          up_model(c.up, c.seed, c.blackouts),
          // A separate stream per direction: each direction's fate depends only on its own
          // datagram count, not on how the two directions interleave.
          down_model(c.down, c.seed ^ 0xd1b54a32d192ed03ULL, c.blackouts) {
        stats.config = c;
    }

    template <class... Args>
    void log(fmt::format_string<Args...> format, Args&&... args) {
        if (config.log) config.log(fmt::format(format, std::forward<Args>(args)...));
    }

    DirectionStats& stats_for(Direction direction) {
        return direction == Direction::kUp ? stats.up : stats.down;
    }

    void rebuild_fds() {
        fds.clear();
        fd_clients.clear();
        fds.push_back({wake_fd.get(), POLLIN, 0});
        fds.push_back({listen_fd.get(), POLLIN, 0});
        for (const auto& [key, client] : clients) {
            fds.push_back({client.upstream.get(), POLLIN, 0});
            fd_clients.push_back(key);
        }
        fds_dirty = false;
    }

    void expire_clients(Nanos now) {
        const Nanos timeout = seconds_to_ns(config.client_timeout_s);
        for (auto it = clients.begin(); it != clients.end();) {
            if (now - it->second.last_active >= timeout) {
                log("client {} expired after {:.1f} s idle", endpoint_of(it->first).to_string(),
                    config.client_timeout_s);
                ++stats.clients_expired;
                it = clients.erase(it);
                fds_dirty = true;
            } else {
                ++it;
            }
        }
    }

    Client* find_or_open_client(std::uint64_t key, Nanos now) {
        if (auto it = clients.find(key); it != clients.end()) return &it->second;
        if (clients.size() >= config.max_clients) expire_clients(now);
        const std::string name = endpoint_of(key).to_string();
        if (clients.size() >= config.max_clients) {
            if (!refusal_logged) {
                log("client table full ({} clients): refusing datagrams from {} and other new "
                    "clients",
                    config.max_clients, name);
                refusal_logged = true;
            }
            return nullptr;
        }
        UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        if (fd.get() < 0) {
            log("cannot open an upstream socket for {}: {}", name, std::strerror(errno));
            return nullptr;
        }
        set_buffers(fd.get());
        const sockaddr_in server = to_sockaddr(config.forward);
        if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&server), sizeof server) != 0) {
            log("cannot connect an upstream socket for {} to {}: {}", name,
                config.forward.to_string(), std::strerror(errno));
            return nullptr;
        }
        sockaddr_in local{};
        socklen_t length = sizeof local;
        ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &length);

        Client& client = clients[key];
        client.upstream = std::move(fd);
        client.source = from_sockaddr(local);
        client.last_active = now;
        ++stats.clients_seen;
        fds_dirty = true;
        log("client {} -> upstream source {}", name, client.source.to_string());
        return &client;
    }

    void admit(Direction direction, std::uint64_t client, std::size_t size, Nanos now) {
        DirectionStats& s = stats_for(direction);
        ++s.datagrams_in;
        s.bytes_in += size;
        last_traffic = now;

        const Decision decision =
            (direction == Direction::kUp ? up_model : down_model).decide(size, now - started);
        s.bursts += decision.burst_began ? 1 : 0;
        s.longest_burst = std::max<std::uint64_t>(s.longest_burst,
                                                  static_cast<std::uint64_t>(decision.burst_run));
        if (decision.copies == 0) {
            ++(decision.blackout ? s.blackout : decision.burst ? s.burst_dropped : s.dropped);
            return;
        }
        s.spikes += decision.spike_ns > 0 ? 1 : 0;
        if (decision.corrupt_bit >= 0) {
            flip_bit(std::span(buffer.data(), size), decision.corrupt_bit);
            ++s.corrupted;
        }
        const std::span<std::uint8_t> bytes(buffer.data(), size);
        if (direction == Direction::kUp && config.tamper_every > 0) {
            tamper.observe_up(client, bytes);
            if (++up_datagrams % config.tamper_every == 0 && tamper.tamper_up(client, bytes))
                ++s.tampered;
        }
        if (capture) {
            std::fputs(direction == Direction::kUp ? "up " : "down ", capture.get());
            for (const std::uint8_t b : bytes) std::fprintf(capture.get(), "%02x", b);
            std::fputc('\n', capture.get());
        }
        for (int copy = 0; copy < decision.copies; ++copy) {
            if (queue.bytes() + size > config.max_queued_bytes) {
                ++s.overflow;
                continue;
            }
            if (copy == 1) ++s.duplicated;
            const double planned = ns_to_ms(decision.hold_ns[copy]);
            s.planned_min_ms = s.planned ? std::min(s.planned_min_ms, planned) : planned;
            s.planned_max_ms = s.planned ? std::max(s.planned_max_ms, planned) : planned;
            ++s.planned;
            Datagram datagram;
            datagram.due = now + decision.hold_ns[copy];
            datagram.received = now;
            datagram.direction = direction;
            datagram.client = client;
            datagram.payload.assign(buffer.begin(), buffer.begin() + static_cast<long>(size));
            queue.push(std::move(datagram));
        }
    }

    void receive_from_clients() {
        for (int i = 0; i < kReceiveBurst; ++i) {
            sockaddr_in from{};
            socklen_t length = sizeof from;
            const ssize_t n = ::recvfrom(listen_fd.get(), buffer.data(), buffer.size(),
                                         MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &length);
            if (n < 0) {
                if (errno == EINTR) continue;
                return;  // EAGAIN: drained
            }
            const Nanos now = monotonic_ns();
            const std::uint64_t key = key_of(from_sockaddr(from));
            Client* client = find_or_open_client(key, now);
            if (!client) {
                ++stats.refused_datagrams;
                continue;
            }
            client->last_active = now;
            admit(Direction::kUp, key, static_cast<std::size_t>(n), now);
        }
    }

    void receive_from_server(std::uint64_t key) {
        for (int i = 0; i < kReceiveBurst; ++i) {
            const auto it = clients.find(key);
            if (it == clients.end()) return;  // expired meanwhile
            const ssize_t n =
                ::recv(it->second.upstream.get(), buffer.data(), buffer.size(), MSG_DONTWAIT);
            if (n < 0) {
                // ECONNREFUSED: an earlier datagram hit a closed port (ICMP); keep reading.
                if (errno == EINTR || errno == ECONNREFUSED) continue;
                return;
            }
            const Nanos now = monotonic_ns();
            it->second.last_active = now;
            admit(Direction::kDown, key, static_cast<std::size_t>(n), now);
        }
    }

    void release_due() {
        for (Nanos now = monotonic_ns(); queue.next_due() <= now; now = monotonic_ns()) {
            const Datagram datagram = queue.pop();
            DirectionStats& s = stats_for(datagram.direction);
            ssize_t sent = -1;
            if (datagram.direction == Direction::kUp) {
                const auto it = clients.find(datagram.client);
                if (it == clients.end()) {
                    ++s.unsent;
                    continue;
                }
                sent = ::send(it->second.upstream.get(), datagram.payload.data(),
                              datagram.payload.size(), MSG_DONTWAIT);
            } else {
                const sockaddr_in to = to_sockaddr(endpoint_of(datagram.client));
                sent = ::sendto(listen_fd.get(), datagram.payload.data(), datagram.payload.size(),
                                MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&to), sizeof to);
            }
            if (sent < 0) {
                ++s.send_errors;
                continue;
            }
            const Nanos done = monotonic_ns();
            const double hold = ns_to_ms(done - datagram.received);
            const double late = ns_to_ms(done - datagram.due);
            ++s.datagrams_out;
            s.bytes_out += datagram.payload.size();
            s.hold_sum_ms += hold;
            s.hold_max_ms = std::max(s.hold_max_ms, hold);
            s.late_sum_ms += late;
            s.late_max_ms = std::max(s.late_max_ms, late);
        }
    }

    Result<ProxyStats> run() {
        const Nanos start = monotonic_ns();
        const Nanos end = start + seconds_to_ns(config.duration_s);
        const Nanos idle = config.idle_exit_s > 0 ? seconds_to_ns(config.idle_exit_s) : kNever;
        // Idle clients are looked for a few times per timeout, at most once per second.
        const Nanos expiry_period = std::clamp<Nanos>(seconds_to_ns(config.client_timeout_s) / 4,
                                                      10'000'000, 1'000'000'000);
        Nanos next_expiry = start + expiry_period;
        last_traffic = start;
        started = start;

        for (;;) {
            release_due();
            const Nanos now = monotonic_ns();
            if (stop.load()) {
                stats.reason = StopReason::kRequested;
                break;
            }
            if (now >= end) {
                stats.reason = StopReason::kDuration;
                break;
            }
            const Nanos idle_deadline = idle == kNever ? kNever : last_traffic + idle;
            if (now >= idle_deadline) {
                stats.reason = StopReason::kIdle;
                break;
            }
            if (now >= next_expiry) {
                expire_clients(now);
                next_expiry = now + expiry_period;
            }

            Nanos wake = std::min({end, idle_deadline, queue.next_due()});
            if (!clients.empty()) wake = std::min(wake, next_expiry);
            const Nanos wait = std::max<Nanos>(0, wake - now);
            const timespec timeout{static_cast<time_t>(wait / 1'000'000'000),
                                   static_cast<long>(wait % 1'000'000'000)};
            if (fds_dirty) rebuild_fds();
            const int ready = ::ppoll(fds.data(), fds.size(), &timeout, nullptr);
            if (ready < 0) {
                if (errno == EINTR) continue;
                return io_error("ppoll failed", errno);
            }
            if (ready == 0) continue;
            if (fds[0].revents & POLLIN) {
                std::uint64_t count = 0;
                if (::read(wake_fd.get(), &count, sizeof count) < 0) {
                    // Nothing to do: the stop flag is what matters, read or not.
                }
            }
            if (fds[1].revents & (POLLIN | POLLERR)) receive_from_clients();
            for (std::size_t i = 2; i < fds.size(); ++i) {
                if (fds[i].revents & (POLLIN | POLLERR)) receive_from_server(fd_clients[i - 2]);
            }
        }

        stats.elapsed_s = static_cast<double>(monotonic_ns() - start) / 1e9;
        while (!queue.empty()) ++stats_for(queue.pop().direction).unsent;
        return stats;
    }
};

NetemProxy::NetemProxy(std::unique_ptr<State> state) : m_state(std::move(state)) {}
NetemProxy::~NetemProxy() = default;

Result<std::unique_ptr<NetemProxy>> NetemProxy::open(const ProxyConfig& config) {
    if (auto status = validate(config); !status) return status.error();
    auto state = std::make_unique<State>(config);

    state->wake_fd = UniqueFd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    if (state->wake_fd.get() < 0) return io_error("cannot create an eventfd", errno);

    state->listen_fd = UniqueFd(::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (state->listen_fd.get() < 0) return io_error("cannot open a UDP socket", errno);
    set_buffers(state->listen_fd.get());
    const sockaddr_in listen = to_sockaddr(config.listen);
    if (::bind(state->listen_fd.get(), reinterpret_cast<const sockaddr*>(&listen), sizeof listen) !=
        0) {
        return io_error("cannot bind --listen " + config.listen.to_string(), errno);
    }
    sockaddr_in bound{};
    socklen_t length = sizeof bound;
    if (::getsockname(state->listen_fd.get(), reinterpret_cast<sockaddr*>(&bound), &length) != 0)
        return io_error("cannot read the bound listen address", errno);
    state->listen_port = ntohs(bound.sin_port);
    state->stats.listen_port = state->listen_port;

    if (config.forward.port == state->listen_port &&
        (config.forward.address == config.listen.address || config.listen.address == 0)) {
        return make_error(ErrorCode::kUsage,
                          "--forward " + config.forward.to_string() +
                              " is the proxy's own listen address; it would forward to itself");
    }
    if (!config.capture_file.empty()) {
        state->capture.reset(std::fopen(config.capture_file.c_str(), "w"));
        if (!state->capture)
            return io_error("cannot write --capture " + config.capture_file, errno);
    }
    if (!config.port_file.empty()) {
        if (auto status =
                write_text_atomic(config.port_file, std::to_string(state->listen_port) + "\n");
            !status) {
            return status.error();
        }
    }
    state->log("listening on {}, forwarding to {}",
               Endpoint{config.listen.address, state->listen_port}.to_string(),
               config.forward.to_string());
    return std::unique_ptr<NetemProxy>(new NetemProxy(std::move(state)));
}

std::uint16_t NetemProxy::listen_port() const {
    return m_state->listen_port;
}

Result<ProxyStats> NetemProxy::run() {
    assert(!m_state->ran && "NetemProxy::run() is single-shot");
    m_state->ran = true;
    return m_state->run();
}

void NetemProxy::request_stop() noexcept {
    m_state->stop.store(true);
    const std::uint64_t one = 1;
    if (::write(m_state->wake_fd.get(), &one, sizeof one) < 0) {
        // The counter is full or the fd gone: run() sees the flag on its next wake anyway.
    }
}

}  // namespace framelock::netem
