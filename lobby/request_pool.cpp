#include "lobby/request_pool.h"

#include <algorithm>

namespace framelock::lobby {

RequestPool::RequestPool(int threads) {
    for (int i = 0; i < std::max(threads, 1); ++i) m_threads.emplace_back([this] { work(); });
}

RequestPool::~RequestPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    for (auto& t : m_threads) t.join();
}

void RequestPool::post(std::function<void()> job) {
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(job));
    }
    m_wake.notify_one();
}

bool RequestPool::wait_idle(std::chrono::milliseconds limit) {
    std::unique_lock lock(m_mutex);
    return m_idle.wait_for(lock, limit, [&] { return m_queue.empty() && m_running == 0; });
}

std::size_t RequestPool::in_flight() const {
    std::lock_guard lock(m_mutex);
    return m_queue.size() + m_running;
}

void RequestPool::work() {
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
        if (m_queue.empty()) return;  // stopping, and nothing left to do
        std::function<void()> job = std::move(m_queue.front());
        m_queue.pop_front();
        ++m_running;
        lock.unlock();
        job();  // the server's jobs catch what they throw
        lock.lock();
        --m_running;
        m_idle.notify_all();
    }
}

}  // namespace framelock::lobby
