#include "common/stop_signal.h"

#include <signal.h>

#include <atomic>

namespace framelock {
namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "used from a signal handler");

extern "C" void on_stop_signal(int) {
    g_stop.store(true);
}

}  // namespace

void install_stop_signal_handlers() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}

bool stop_requested() {
    return g_stop.load();
}

void request_stop() {
    g_stop.store(true);
}

}  // namespace framelock
