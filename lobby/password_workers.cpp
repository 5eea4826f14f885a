#include "lobby/password_workers.h"

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

bool PasswordWorkers::run_job(const std::function<void()>& work) {
    Slot slot{&work, false, nullptr};
    std::unique_lock lock(m_mutex);
    // Full: every worker busy and the queue at its limit.
    if (m_running + m_queue.size() >= m_threads.size() + m_queue_max) {
        ++m_refused;
        return false;
    }
    m_queue.push_back(&slot);
    m_wake.notify_one();
    m_done.wait(lock, [&] { return slot.done; });
    if (slot.error) std::rethrow_exception(slot.error);
    return true;
}

void PasswordWorkers::work() {
    lower_priority();
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
        if (m_queue.empty()) return;  // stopping, and nothing left to do
        Slot* slot = m_queue.front();
        m_queue.pop_front();
        ++m_running;
        lock.unlock();
        try {
            (*slot->work)();
        } catch (...) {
            slot->error = std::current_exception();
        }
        lock.lock();
        --m_running;
        slot->done = true;
        m_done.notify_all();
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
