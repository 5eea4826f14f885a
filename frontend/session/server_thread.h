// `framelock host`'s server on a thread of its own: its ServerRunner serves the sessions as
// datagrams arrive (the thread sleeps on their sockets), whatever the local player's loop is
// doing meanwhile (emulating a frame, waiting for the display). Run between the player's steps,
// a remote player's input waited in the socket for the host's emulation and drawing before it
// was forwarded to the others.
//
// Threading: the thread alone calls the runner's update() and wait(); every other public
// function of the runner takes the same lock as update() (ServerRunner, "Threading"), so the
// player's loop reads the summary and the events, and steps the rendezvous on a session's
// socket (ServerRunner::with_socket), while the thread runs. The destructor stops the thread
// and joins it: after it the runner is the caller's alone again.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "frontend/session/server_runner.h"
#include "netplay/interfaces/clock.h"

namespace framelock::frontend {

class ServerThread {
  public:
    // Starts serving `runner` (borrowed until the destructor returns) on a new thread.
    ServerThread(ServerRunner& runner, const netplay::Clock& clock);
    ~ServerThread();
    ServerThread(const ServerThread&) = delete;
    ServerThread& operator=(const ServerThread&) = delete;

    // Sleeps up to `max_wait` or until the runner has finished (every session ended and its
    // goodbyes went out, or its duration passed); true when it has.
    bool wait_finished(netplay::Micros max_wait);

  private:
    void run();

    ServerRunner& m_runner;
    const netplay::Clock& m_clock;
    // Written to by the destructor: wakes the thread's sleep on the sockets (-1: no eventfd,
    // then the thread sleeps kPollUs at most and sees m_stop after it).
    int m_wake_fd = -1;
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;  // m_finished
    std::condition_variable m_finished_changed;
    bool m_finished = false;
    std::thread m_thread;  // last: started once everything above is ready
};

}  // namespace framelock::frontend
