// The lobby's HTTP server (GNU libmicrohttpd), made for the open internet: one event thread
// (epoll) reads every connection and parses requests, so a slow client holds no thread; each
// whole request is handed to a RequestPool thread (lobby/request_pool.h) while its connection
// is suspended, and its answer goes out when the connection resumes. A ConnectionGuard
// (lobby/connection_guard.h) caps the connections per address and puts a deadline on every
// whole request; MHD caps the connections in all and closes idle ones.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "lobby/api_types.h"
#include "lobby/connection_guard.h"
#include "lobby/request_pool.h"
#include "netplay/base/result.h"

struct MHD_Daemon;
struct MHD_Connection;

namespace framelock::lobby {

struct HttpServerConfig {
    std::string bind = "127.0.0.1";  // an address or a host name
    std::uint16_t port = 0;          // 0: the OS picks (port())
    int threads = 8;                 // RequestPool threads
    ConnectionLimits limits;
    unsigned idle_timeout_s = 5;  // a connection silent this long is closed
    // Bodies over this get a JSON 413 (read and dropped; a declared length past 16 times
    // this is answered at once and the connection closed).
    std::size_t body_limit = 64 * 1024;
    bool log_requests = true;  // a line per request (the API's status and time)
};

// Serves one request: called on a RequestPool thread, concurrently. `request.now_ms` is
// left for it to set. What it throws is answered 500.
using HttpHandler = std::function<ApiResponse(ApiRequest& request)>;

class HttpServer {
  public:
    // Binds and starts serving; an Error (kUsage) when the address cannot be listened on.
    static Result<std::unique_ptr<HttpServer>> start(const HttpServerConfig& config,
                                                     HttpHandler handler);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    std::uint16_t port() const { return m_port; }
    // Graceful: no new connections; the requests being served are answered and their
    // answers sent (waiting up to `limit` for each), then every connection closes. Once.
    void stop(std::chrono::milliseconds limit);

    // For /metrics: connections open, refused over the per-address cap, cut at the deadline,
    // requests being served.
    std::map<std::string, double> gauges() const;

  private:
    struct Exchange;   // one request on its way through (http_server.cpp)
    struct Callbacks;  // MHD's C callbacks, calling the members below
    HttpServer(const HttpServerConfig& config, HttpHandler handler);

    bool admit(const std::string& address);
    void connection_event(MHD_Connection* connection, void** socket_context, bool started);
    bool request(MHD_Connection* connection, const char* url, const char* method,
                 const char* upload_data, std::size_t* upload_size, void** exchange);
    void completed(MHD_Connection* connection, void** exchange);
    // On a pool thread: the handler's answer, then the connection resumes.
    void serve(MHD_Connection* connection, Exchange* exchange);
    bool queue(MHD_Connection* connection, Exchange* exchange, const ApiResponse& response);
    void log_request(const ApiRequest& request, int status, double ms) const;
    // The event thread's messages, each text at most once per 10 s (a flood repeats them).
    void library_message(const std::string& text);
    // Every 100 ms: cuts the connections past their deadline; every second, logs who was
    // refused or cut.
    void sweep();

    const HttpServerConfig m_config;
    const HttpHandler m_handler;
    const std::string m_timeout_answer;  // what a cut connection is sent (a JSON 408)
    ConnectionGuard m_guard;
    std::unique_ptr<RequestPool> m_pool;
    MHD_Daemon* m_daemon = nullptr;
    int m_listen_fd = -1;  // after quiescing: closed once the daemon stopped
    std::uint16_t m_port = 0;

    std::mutex m_drain_mutex;  // a request handed to the pool, against stop() draining it
    bool m_draining = false;

    std::mutex m_sweep_mutex;
    std::condition_variable m_sweep_wake;
    bool m_stopping = false;
    std::thread m_sweeper;

    std::mutex m_message_mutex;
    std::map<std::string, std::pair<std::chrono::steady_clock::time_point, int>> m_messages;
};

}  // namespace framelock::lobby
