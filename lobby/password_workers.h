// The lobby's password hashing and checking (Argon2id: deliberately slow, ~50 ms of one
// core and 64 MiB each) on a few threads of their own with a bounded queue. The HTTP thread
// of a join waits for its check without holding anything, so room lists and heartbeats
// run meanwhile; once the queue is full the next job is refused at once (the API answers
// 503 with Retry-After) instead of queueing without bound.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace framelock::lobby {

class PasswordWorkers {
  public:
    // `threads` workers (at least 1), at most `queue` jobs waiting beyond those running.
    // The workers run at a lower CPU priority than the threads that serve requests.
    PasswordWorkers(int threads, std::size_t queue);
    // Runs what is queued, then joins the workers.
    ~PasswordWorkers();
    PasswordWorkers(const PasswordWorkers&) = delete;
    PasswordWorkers& operator=(const PasswordWorkers&) = delete;

    // Runs `job` on a worker and waits for it: its result, or nullopt at once when the
    // queue is full (then nothing runs). An exception from `job` is rethrown here.
    // Thread-safe; the caller holds no lock of ours while it waits.
    template <class T>
    std::optional<T> run(const std::function<T()>& job) {
        std::optional<T> result;
        if (!run_job([&] { result = job(); })) return std::nullopt;
        return result;
    }

    // Jobs queued or running now.
    std::size_t in_flight() const;
    // Jobs refused because the queue was full, since the start.
    std::size_t refused() const;

  private:
    // A job waiting or running: the caller's, on the caller's stack until `done`.
    struct Slot {
        const std::function<void()>* work;
        bool done = false;
        std::exception_ptr error;
    };
    bool run_job(const std::function<void()>& work);
    void work();

    const std::size_t m_queue_max;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;  // a job queued, or stopping
    std::condition_variable m_done;  // a job done
    std::deque<Slot*> m_queue;
    std::size_t m_running = 0;
    std::size_t m_refused = 0;
    bool m_stopping = false;
    std::vector<std::thread> m_threads;
};

}  // namespace framelock::lobby
