// A store's database connections, shared by the HTTP layer's threads: a caller leases one
// for a call and gives it back, so calls on different connections run at once (SQLite in
// WAL mode reads while another connection writes; PostgreSQL runs them in parallel
// backends). Connections open on demand up to a maximum; past it, callers wait for one to
// come back. A connection serves one caller at a time, so nothing inside it needs a lock.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "netplay/base/result.h"

namespace framelock::lobby {

template <class Connection>
class ConnectionPool {
  public:
    using Opener = std::function<Result<std::unique_ptr<Connection>>()>;

    // `first` is already open (opening it checked the URL); `open` makes the others, at
    // most `max` in all.
    ConnectionPool(std::unique_ptr<Connection> first, std::size_t max, Opener open)
        : m_max(std::max<std::size_t>(max, 1)), m_open(std::move(open)) {
        m_idle.push_back(std::move(first));
        m_count = 1;
    }
    ConnectionPool(const ConnectionPool&) = delete;
    ConnectionPool& operator=(const ConnectionPool&) = delete;

    // A connection for the lease's lifetime; it goes back to the pool when the lease ends.
    class Lease {
      public:
        Lease(ConnectionPool& pool, std::unique_ptr<Connection> c)
            : m_pool(&pool), m_connection(std::move(c)) {}
        Lease(Lease&& other) noexcept = default;
        Lease& operator=(Lease&&) = delete;
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        ~Lease() {
            if (m_connection) m_pool->give_back(std::move(m_connection));
        }
        Connection& operator*() const { return *m_connection; }
        Connection* operator->() const { return m_connection.get(); }

      private:
        ConnectionPool* m_pool;
        std::unique_ptr<Connection> m_connection;
    };

    // An idle connection, a new one while fewer than `max` exist, else the next one given
    // back. Fails only when opening a new connection fails.
    Result<Lease> acquire() {
        std::unique_lock lock(m_mutex);
        m_ready.wait(lock, [&] { return !m_idle.empty() || m_count < m_max; });
        if (!m_idle.empty()) {
            auto c = std::move(m_idle.back());
            m_idle.pop_back();
            return Lease(*this, std::move(c));
        }
        ++m_count;  // reserved: others may open theirs meanwhile, not past the maximum
        lock.unlock();
        auto opened = m_open();
        if (!opened) {
            lock.lock();
            --m_count;
            m_ready.notify_one();
            return opened.error();
        }
        return Lease(*this, std::move(opened).value());
    }

    // Connections open now (idle or leased).
    std::size_t size() const {
        std::lock_guard lock(m_mutex);
        return m_count;
    }

  private:
    void give_back(std::unique_ptr<Connection> c) {
        {
            std::lock_guard lock(m_mutex);
            m_idle.push_back(std::move(c));
        }
        m_ready.notify_one();
    }

    const std::size_t m_max;
    const Opener m_open;
    mutable std::mutex m_mutex;
    std::condition_variable m_ready;
    std::vector<std::unique_ptr<Connection>> m_idle;  // the most recently used last
    std::size_t m_count = 0;
};

}  // namespace framelock::lobby
