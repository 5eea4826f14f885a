#include "frontend/lobby/password_workers.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

namespace framelock::lobby {
namespace {

// Nice 10: when the cores are busy, a thread answering a list or a heartbeat (nice 0) gets
// about nine tenths of a core against a password check, so the slow checks cannot stretch
// the quick answers. Best effort: if the system refuses, the workers run as they are.
void lower_priority() {
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    ::setpriority(PRIO_PROCESS, tid, 10);
}

}  // namespace

PasswordWorkers::PasswordWorkers(int threads, std::size_t queue) : m_queue_max(queue) {
    for (int i = 0; i < std::max(threads, 1); ++i) m_threads.emplace_back([this] { work(); });
}

PasswordWorkers::~PasswordWorkers() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    for (auto& t : m_threads) t.join();
}

bool PasswordWorkers::enqueue(Job job) {
    {
        std::lock_guard lock(m_mutex);
        // Full: every worker busy and the queue at its limit.
        if (m_running + m_queue.size() >= m_threads.size() + m_queue_max) {
            ++m_refused;
            return false;
        }
        m_queue.push_back(std::move(job));
    }
    m_wake.notify_one();
    return true;
}

void PasswordWorkers::work() {
    lower_priority();
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
        if (m_queue.empty()) return;  // stopping, and nothing left to do
        auto job = std::move(m_queue.front());
        m_queue.pop_front();
        ++m_running;
        lock.unlock();
        Publish publish = job();  // an exception goes to the waiting caller too
        lock.lock();
        --m_running;
        lock.unlock();
        publish();
        lock.lock();
    }
}

std::size_t PasswordWorkers::in_flight() const {
    std::lock_guard lock(m_mutex);
    return m_running + m_queue.size();
}

std::size_t PasswordWorkers::refused() const {
    std::lock_guard lock(m_mutex);
    return m_refused;
}

}  // namespace framelock::lobby
