// The threads that serve the lobby's HTTP requests (lobby/http_server.h): the server's event
// thread hands each whole request here and goes on with the other connections, so a request
// that waits (on the database, or on a password check of lobby/password_workers.h) holds one
// of these threads and no connection but its own. Jobs run in the order they came.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace framelock::lobby {

class RequestPool {
  public:
    // `threads` threads (at least 1).
    explicit RequestPool(int threads);
    // Runs what is queued, then joins the threads.
    ~RequestPool();
    RequestPool(const RequestPool&) = delete;
    RequestPool& operator=(const RequestPool&) = delete;

    // Queues `job` for a thread. Thread-safe. The queue is not bounded here: the server's
    // connection limit bounds it (one request in flight per connection).
    void post(std::function<void()> job);
    // Waits until nothing is queued or running, or `limit` passed: whether it is idle.
    bool wait_idle(std::chrono::milliseconds limit);

    std::size_t threads() const { return m_threads.size(); }
    // Jobs queued or running now.
    std::size_t in_flight() const;

  private:
    void work();

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;  // a job queued, or stopping
    std::condition_variable m_idle;  // a job done
    std::deque<std::function<void()>> m_queue;
    std::size_t m_running = 0;
    bool m_stopping = false;
    std::vector<std::thread> m_threads;
};

}  // namespace framelock::lobby
