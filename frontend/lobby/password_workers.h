// The lobby's password hashing and checking (Argon2id: deliberately slow, ~50 ms of one
// core and 64 MiB each) on a few threads of their own with a bounded queue. The HTTP thread
// of a join waits for its check without holding anything, so room lists and heartbeats
// run meanwhile; once the queue is full the next job is refused at once (the API answers
// 503 with Retry-After) instead of queueing without bound.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <memory>
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

    // `job` on a worker, its result in the future; nullopt when the queue is full (nothing
    // runs). Thread-safe.
    template <class T>
    std::optional<std::future<T>> try_run(std::function<T()> job) {
        auto promise = std::make_shared<std::promise<T>>();
        std::future<T> result = promise->get_future();
        Job run = [promise, job = std::move(job)]() -> Publish {
            try {
                return [promise, value = job()] { promise->set_value(value); };
            } catch (...) {
                return [promise, e = std::current_exception()] { promise->set_exception(e); };
            }
        };
        if (!enqueue(std::move(run))) return std::nullopt;
        return result;
    }

    // Jobs queued or running now.
    std::size_t in_flight() const;
    // Jobs refused because the queue was full, since the start.
    std::size_t refused() const;

  private:
    // A job computes its outcome on a worker and returns what hands it to the caller; the
    // worker counts itself free before that, so a caller holding the result finds the
    // job's place free again (in_flight() and the bound agree with what callers see).
    using Publish = std::function<void()>;
    using Job = std::function<Publish()>;
    bool enqueue(Job job);
    void work();

    const std::size_t m_queue_max;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Job> m_queue;
    std::size_t m_running = 0;
    std::size_t m_refused = 0;
    bool m_stopping = false;
    std::vector<std::thread> m_threads;
};

}  // namespace framelock::lobby
