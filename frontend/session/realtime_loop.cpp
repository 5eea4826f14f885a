#include "frontend/session/realtime_loop.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "common/log.h"
#include "common/stop_signal.h"
#include "frontend/session/client_runner.h"
#include "frontend/session/server_runner.h"
#include "frontend/session/server_thread.h"

namespace framelock::frontend {

using netplay::Micros;

void run_realtime(ServerRunner* server, ClientRunner* client, const netplay::Clock& clock,
                  Micros deadline_us, RealtimeObserver* observer) {
    // A host: its server runs on a thread of its own, serving the remote players' datagrams as
    // they arrive, not when the player's emulation and drawing leave time for it. Stopped
    // (joined) when the loop returns.
    std::unique_ptr<ServerThread> server_thread;
    if (server && client) server_thread = std::make_unique<ServerThread>(*server, clock);
    bool stopping = false;
    for (;;) {
        if (stop_requested() && !stopping) {
            stopping = true;
            log_info("stopping (signal)");
            if (client) client->leave("interrupted");
        }
        if (server && !server_thread) server->update();
        if (observer && observer->before_step() && !stopping) {
            stopping = true;
            log_info("stopping ({})", observer->stop_reason());
            if (client) client->leave("quit");
        }
        if (client) client->step();
        if (observer) observer->after_step();
        const bool client_done = !client || client->finished();
        const bool server_done = !server || server->finished() || stopping;
        if (client_done && server_done) return;
        const Micros now = clock.now_us();
        if (deadline_us > 0 && now >= deadline_us) {
            log_warn("time limit reached");
            if (client) client->leave("time limit");
            return;
        }

        Micros wake = deadline_us > 0 ? deadline_us : now + 1'000'000;
        if (observer) wake = std::min(wake, observer->next_wakeup(now));
        if (!client_done) wake = std::min(wake, client->next_wakeup());
        if (server && !server_done && !server_thread) wake = std::min(wake, server->next_wakeup());
        const Micros wait = wake - clock.now_us();
        if (client_done && server_thread) {
            // A host whose player is done: its server goes on serving the others.
            server_thread->wait_finished(std::max<Micros>(wait, 1000));
            continue;
        }
        if (client_done) {
            // A server alone: its timers are a polling tick, not deadlines, so it sleeps on
            // its socket for at least ENet's 1 ms granularity (a datagram wakes it at once).
            server->wait(std::max<Micros>(wait, 1000));
            continue;
        }
        if (wait <= 0) continue;
        // ENet sleeps in whole milliseconds (rounding down); the rest of a millisecond is
        // slept here, without servicing the socket, so the loop never spins until a frame.
        if (wait < 1000) {
            std::this_thread::sleep_for(std::chrono::microseconds(wait));
            continue;
        }
        client->wait(wait);
    }
}

}  // namespace framelock::frontend
