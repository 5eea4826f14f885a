#include "lobby/http_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "common/log.h"
#include "lobby/http_service.h"
#include "netplay/base/safe_text.h"

namespace framelock::lobby {
namespace {

using Steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::int64_t steady_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now().time_since_epoch())
        .count();
}

std::string address_text(const sockaddr* address) {
    char text[INET6_ADDRSTRLEN] = "";
    if (address == nullptr) return text;
    if (address->sa_family == AF_INET) {
        ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text,
                    sizeof text);
    } else if (address->sa_family == AF_INET6) {
        ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text,
                    sizeof text);
    }
    return text;
}

std::string peer_address(MHD_Connection* connection) {
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? address_text(info->client_addr) : std::string();
}

// The ConnectionGuard id kept as the connection's socket context.
std::uint64_t guard_id(MHD_Connection* connection) {
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? reinterpret_cast<std::uintptr_t>(info->socket_context) : 0;
}

ApiResponse json_error(int status, const std::string& message, int retry_after_s = 0) {
    return {status, "application/json", nlohmann::json{{"error", message}}.dump(), retry_after_s};
}

MHD_Result add_query(void* query, MHD_ValueKind, const char* key, const char* value) {
    // The first of repeats, as the API reads them.
    if (key != nullptr)
        static_cast<std::map<std::string, std::string>*>(query)->emplace(key, value ? value : "");
    return MHD_YES;
}

// Each connection is a file descriptor: the soft limit is raised (up to the hard one) to fit
// `connections` and some for the store, the log and the rendezvous; what fits is returned.
std::size_t fit_descriptors(std::size_t connections) {
    constexpr rlim_t kOthers = 128;
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return std::min<std::size_t>(connections, 512);
    const rlim_t wanted = static_cast<rlim_t>(connections) + kOthers;
    if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
        rlimit raised = limit;
        raised.rlim_cur =
            limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
        if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    if (limit.rlim_cur == RLIM_INFINITY) return connections;
    return limit.rlim_cur > 2 * kOthers
               ? std::min(connections, static_cast<std::size_t>(limit.rlim_cur - kOthers))
               : std::min<std::size_t>(connections, 16);
}

}  // namespace

struct HttpServer::Exchange {
    ApiRequest request;
    bool too_large = false;  // the body is being dropped: a 413 answers it
    bool queued = false;     // an answer is on its way
    std::atomic<bool> served{false};
    ApiResponse response;  // the handler's, once `served`
};

struct HttpServer::Callbacks {
    static MHD_Result accept(void* server, const sockaddr* address, socklen_t) {
        return static_cast<HttpServer*>(server)->admit(address_text(address)) ? MHD_YES : MHD_NO;
    }
    static void connection(void* server, MHD_Connection* connection, void** socket_context,
                           MHD_ConnectionNotificationCode code) {
        static_cast<HttpServer*>(server)->connection_event(connection, socket_context,
                                                           code == MHD_CONNECTION_NOTIFY_STARTED);
    }
    static MHD_Result request(void* server, MHD_Connection* connection, const char* url,
                              const char* method, const char*, const char* upload_data,
                              std::size_t* upload_size, void** exchange) {
        return static_cast<HttpServer*>(server)->request(connection, url, method, upload_data,
                                                         upload_size, exchange)
                   ? MHD_YES
                   : MHD_NO;
    }
    static void completed(void* server, MHD_Connection* connection, void** exchange,
                          MHD_RequestTerminationCode) {
        static_cast<HttpServer*>(server)->completed(connection, exchange);
    }
    static void message(void* server, const char* format, va_list args) {
        char text[512];
        std::vsnprintf(text, sizeof text, format, args);
        std::string line = text;
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
        static_cast<HttpServer*>(server)->library_message(line);
    }
};

HttpServer::HttpServer(const HttpServerConfig& config, HttpHandler handler)
    : m_config(config),
      m_handler(std::move(handler)),
      m_timeout_answer([&] {
          const std::string body =
              nlohmann::json{
                  {"error", fmt::format("no whole request within {} s: the connection is closed",
                                        config.limits.request_deadline_ms / 1000.0)}}
                  .dump();
          return fmt::format(
              "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\n"
              "Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{}",
              body.size(), body);
      }()),
      m_guard(config.limits),
      m_pool(std::make_unique<RequestPool>(config.threads)) {}

Result<std::unique_ptr<HttpServer>> HttpServer::start(const HttpServerConfig& config,
                                                      HttpHandler handler) {
    const auto cannot = [&](const std::string& why) {
        return make_error(ErrorCode::kUsage, fmt::format("cannot listen on {}:{} ({})", config.bind,
                                                         config.port, why));
    };
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(config.port);
    if (::getaddrinfo(config.bind.c_str(), port.c_str(), &hints, &found) != 0 || !found)
        return cannot("not an address or a host name this machine resolves");
    sockaddr_storage address{};
    std::memcpy(&address, found->ai_addr, std::min<std::size_t>(found->ai_addrlen, sizeof address));
    const bool ipv6 = found->ai_family == AF_INET6;
    ::freeaddrinfo(found);

    HttpServerConfig fitted = config;
    fitted.limits.total = fit_descriptors(config.limits.total);
    std::unique_ptr<HttpServer> server(new HttpServer(fitted, std::move(handler)));
    HttpServer* s = server.get();
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (ipv6) flags |= MHD_USE_IPv6;
    // The logger first: libmicrohttpd prints what it says before it to stderr itself.
    s->m_daemon = MHD_start_daemon(
        flags, config.port, &Callbacks::accept, s, &Callbacks::request, s,
        MHD_OPTION_EXTERNAL_LOGGER, &Callbacks::message, s, MHD_OPTION_SOCK_ADDR,
        reinterpret_cast<sockaddr*>(&address), MHD_OPTION_CONNECTION_LIMIT,
        static_cast<unsigned>(fitted.limits.total), MHD_OPTION_CONNECTION_TIMEOUT,
        config.idle_timeout_s, MHD_OPTION_NOTIFY_CONNECTION, &Callbacks::connection, s,
        MHD_OPTION_NOTIFY_COMPLETED, &Callbacks::completed, s, MHD_OPTION_END);
    if (s->m_daemon == nullptr) return cannot("in use, or not an address of this machine");
    const MHD_DaemonInfo* bound = MHD_get_daemon_info(s->m_daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->m_port = bound != nullptr ? bound->port : config.port;
    s->m_sweeper = std::thread([s] { s->sweep(); });
    return Result<std::unique_ptr<HttpServer>>(std::move(server));
}

HttpServer::~HttpServer() {
    stop(std::chrono::seconds(5));
}

void HttpServer::stop(std::chrono::milliseconds limit) {
    if (m_daemon == nullptr) return;
    // From here a request that arrives whole is answered 503 on the event thread; those
    // already handed to the pool are answered first.
    {
        std::lock_guard lock(m_drain_mutex);
        m_draining = true;
    }
    m_listen_fd = MHD_quiesce_daemon(m_daemon);
    // A suspended connection must be resumed before the daemon stops: the pool is waited
    // for however long its requests take (the store and the password checks end them).
    while (!m_pool->wait_idle(limit))
        log_warn("lobby stopping: {} requests still being served", m_pool->in_flight());
    const auto deadline = Steady::now() + limit;
    while (m_guard.totals().busy > 0 && Steady::now() < deadline) std::this_thread::sleep_for(10ms);
    {
        std::lock_guard lock(m_sweep_mutex);
        m_stopping = true;
    }
    m_sweep_wake.notify_all();
    if (m_sweeper.joinable()) m_sweeper.join();
    MHD_stop_daemon(m_daemon);
    m_daemon = nullptr;
    if (m_listen_fd >= 0) ::close(m_listen_fd);
    m_listen_fd = -1;
}

std::map<std::string, double> HttpServer::gauges() const {
    const ConnectionGuard::Totals totals = m_guard.totals();
    return {{"framelock_lobby_http_connections", static_cast<double>(totals.open)},
            {"framelock_lobby_http_connections_refused", static_cast<double>(totals.refused)},
            {"framelock_lobby_http_requests_cut", static_cast<double>(totals.cut)},
            {"framelock_lobby_http_requests_in_flight", static_cast<double>(m_pool->in_flight())}};
}

bool HttpServer::admit(const std::string& address) {
    return m_guard.admit(address);
}

void HttpServer::connection_event(MHD_Connection* connection, void** socket_context, bool started) {
    if (started) {
        const MHD_ConnectionInfo* fd =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        const std::uint64_t id = m_guard.opened(peer_address(connection),
                                                fd != nullptr ? fd->connect_fd : -1, steady_ms());
        *socket_context = reinterpret_cast<void*>(static_cast<std::uintptr_t>(id));
    } else {
        m_guard.closed(reinterpret_cast<std::uintptr_t>(*socket_context));
    }
}

bool HttpServer::request(MHD_Connection* connection, const char* url, const char* method,
                         const char* upload_data, std::size_t* upload_size, void** slot) {
    auto* exchange = static_cast<Exchange*>(*slot);
    const auto too_large = [&] {
        log_request(exchange->request, 413, 0);
        return json_error(413, fmt::format("request body over {} bytes: the lobby takes no more",
                                           m_config.body_limit));
    };
    if (exchange == nullptr) {  // the headers are in
        exchange = new Exchange;
        *slot = exchange;
        ApiRequest& r = exchange->request;
        r.method = std::strcmp(method, "HEAD") == 0 ? "GET" : method;  // MHD sends no body
        r.path = url != nullptr ? url : "/";
        MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &add_query, &r.query);
        const char* auth =
            MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
        if (auth != nullptr && std::strncmp(auth, "Bearer ", 7) == 0) r.bearer = auth + 7;
        r.client = peer_address(connection);
        const char* length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
                                                         MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (length != nullptr) {
            const std::uint64_t declared = std::strtoull(length, nullptr, 10);
            if (declared > m_config.body_limit) {
                exchange->too_large = true;
                // Far too large to read and drop: answered at once, and MHD closes the
                // connection after the answer (the body unread).
                if (declared > 16 * m_config.body_limit)
                    return queue(connection, exchange, too_large());
            }
        }
        return true;
    }
    if (*upload_size > 0) {  // more of the body
        if (!exchange->too_large &&
            exchange->request.body.size() + *upload_size <= m_config.body_limit) {
            exchange->request.body.append(upload_data, *upload_size);
        } else if (!exchange->too_large) {
            exchange->too_large = true;
            std::string().swap(exchange->request.body);
        }
        *upload_size = 0;
        return true;
    }
    if (exchange->queued) return true;
    if (exchange->served.load(std::memory_order_acquire))
        return queue(connection, exchange, exchange->response);
    if (exchange->too_large) return queue(connection, exchange, too_large());
    std::lock_guard lock(m_drain_mutex);
    if (m_draining) return queue(connection, exchange, json_error(503, "the lobby is stopping", 1));
    m_guard.serving(guard_id(connection));
    MHD_suspend_connection(connection);
    m_pool->post([this, connection, exchange] { serve(connection, exchange); });
    return true;
}

void HttpServer::serve(MHD_Connection* connection, Exchange* exchange) {
    const auto start = Steady::now();
    ApiResponse response;
    try {
        response = m_handler(exchange->request);
    } catch (const std::exception& e) {
        response = json_error(500, std::string("internal error: ") + e.what());
    }
    log_request(exchange->request, response.status,
                std::chrono::duration<double, std::milli>(Steady::now() - start).count());
    exchange->response = std::move(response);
    exchange->served.store(true, std::memory_order_release);
    MHD_resume_connection(connection);  // the last touch: the event thread owns it again
}

bool HttpServer::queue(MHD_Connection* connection, Exchange* exchange,
                       const ApiResponse& response) {
    MHD_Response* out = MHD_create_response_from_buffer(
        response.body.size(), const_cast<char*>(response.body.data()), MHD_RESPMEM_MUST_COPY);
    if (out == nullptr) return false;
    if (!response.body.empty())
        MHD_add_response_header(out, MHD_HTTP_HEADER_CONTENT_TYPE, response.content_type.c_str());
    MHD_add_response_header(out, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (response.retry_after_s > 0)
        MHD_add_response_header(out, MHD_HTTP_HEADER_RETRY_AFTER,
                                std::to_string(response.retry_after_s).c_str());
    const MHD_Result queued =
        MHD_queue_response(connection, static_cast<unsigned>(response.status), out);
    MHD_destroy_response(out);
    exchange->queued = true;
    m_guard.answering(guard_id(connection), steady_ms());
    return queued == MHD_YES;
}

void HttpServer::completed(MHD_Connection* connection, void** slot) {
    delete static_cast<Exchange*>(*slot);
    *slot = nullptr;
    m_guard.answered(guard_id(connection), steady_ms());
}

void HttpServer::log_request(const ApiRequest& request, int status, double ms) const {
    if (!m_config.log_requests) return;
    // The method and path are the client's (libmicrohttpd decodes %0A in a path into a new
    // line): escaped, so no request forges a log line.
    log_info("lobby request method={} path={} status={} ms={:.2f} client={}",
             safe_text(request.method, 16), safe_text(request.path, 80), status, ms,
             request.client);
}

void HttpServer::library_message(const std::string& text) {
    const auto now = Steady::now();
    int repeats = 0;
    {
        std::lock_guard lock(m_message_mutex);
        auto [it, fresh] = m_messages.try_emplace(text, now, 0);
        if (!fresh && now - it->second.first < 10s) {
            ++it->second.second;
            return;
        }
        repeats = fresh ? 0 : it->second.second;
        it->second = {now, 0};
        if (m_messages.size() > 64) m_messages.clear();  // texts vary little; never grows
    }
    log_warn("lobby http (libmicrohttpd): {}{}", text,
             repeats > 0 ? fmt::format(" (and {} more like it in the last 10 s)", repeats) : "");
}

void HttpServer::sweep() {
    std::unique_lock lock(m_sweep_mutex);
    auto next_report = Steady::now() + 1s;
    const double deadline_s = m_config.limits.request_deadline_ms / 1000.0;
    while (!m_stopping) {
        m_sweep_wake.wait_for(lock, 100ms);
        if (m_stopping) break;
        m_guard.cut_overdue(steady_ms(), [&](int fd, bool answering) {
            if (fd < 0) return;
            // Nothing else writes to a connection before its answer is queued.
            if (!answering)
                (void)::send(fd, m_timeout_answer.data(), m_timeout_answer.size(),
                             MSG_NOSIGNAL | MSG_DONTWAIT);
            ::shutdown(fd, SHUT_RDWR);  // the event thread sees it end and closes it
        });
        if (Steady::now() < next_report) continue;
        next_report = Steady::now() + 1s;
        for (const auto& report : m_guard.take_reports()) {
            if (report.refused > 0)
                log_warn(
                    "lobby: refused {} connection(s) from {}: {} open from one address is the "
                    "limit (--connections-per-address)",
                    report.refused, report.address, m_config.limits.per_address);
            if (report.cut > 0)
                log_warn(
                    "lobby: cut {} connection(s) from {} that sent no whole request within {} s "
                    "(--request-deadline)",
                    report.cut, report.address, deadline_s);
        }
    }
}

}  // namespace framelock::lobby
