// The pace of the lobby's password work on this machine now, for tests that give a lobby a
// time window: a room's TTL (a room with a password is stored only once its password is
// hashed, its TTL counted from the request) or a lockout (which a check must not outlast).
//
// The lobby hashes and checks room passwords (Argon2id) on worker threads at nice 10
// (lobby/password_workers.h). On a busy machine those get a fraction of a core: a room with a
// password took 1.3-1.9 s to create where this process, at nice 0, hashed in 0.12 s. So the
// measurement runs where the lobby's work runs, on a PasswordWorkers thread. Links
// framelock_lobby.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>

#include "lobby/password_workers.h"
#include "lobby/secrets.h"

namespace framelock::test {

// The slower of one Argon2id hash and one check of a room password on a lobby password
// worker thread, in seconds (0 when libsodium cannot start: then nothing is measured).
inline double lobby_password_work_s() {
    if (!lobby::secrets_ready()) return 0;
    lobby::PasswordWorkers workers(1, 0);
    const std::function<double()> job = [] {
        using Clock = std::chrono::steady_clock;
        const auto started = Clock::now();
        const std::string hash = lobby::hash_password("s3cret");
        const auto hashed = Clock::now();
        (void)lobby::check_password(hash, "guess");
        const auto checked = Clock::now();
        return std::max(std::chrono::duration<double>(hashed - started).count(),
                        std::chrono::duration<double>(checked - hashed).count());
    };
    return workers.run(job).value_or(0);
}

}  // namespace framelock::test
