// The HTTP layer's connection limits without sockets (lobby/connection_guard.h): the cap per
// address, the deadline on each whole request (stopped while a request is served), what is
// cut and reported, and that nothing is kept of an address once its connections are gone.
#include <catch2/catch.hpp>

#include <vector>

#include "lobby/connection_guard.h"

using framelock::lobby::ConnectionGuard;
using framelock::lobby::ConnectionLimits;

namespace {

ConnectionLimits limits(std::size_t per_address, std::int64_t deadline_ms) {
    ConnectionLimits l;
    l.per_address = per_address;
    l.request_deadline_ms = deadline_ms;
    return l;
}

// The sockets cut at `now_ms`.
std::vector<int> cut_at(ConnectionGuard& guard, std::int64_t now_ms) {
    std::vector<int> cut;
    guard.cut_overdue(now_ms, [&](int fd, bool) { cut.push_back(fd); });
    return cut;
}

}  // namespace

TEST_CASE("connection guard: connections past the cap per address are refused and reported",
          "[lobby][connections]") {
    ConnectionGuard guard(limits(2, 10'000));
    REQUIRE(guard.admit("203.0.113.9"));
    const auto a = guard.opened("203.0.113.9", 10, 0);
    REQUIRE(guard.admit("203.0.113.9"));
    guard.opened("203.0.113.9", 11, 0);
    CHECK_FALSE(guard.admit("203.0.113.9"));
    CHECK_FALSE(guard.admit("203.0.113.9"));
    CHECK(guard.admit("198.51.100.4"));  // another address is not affected
    guard.closed(a);
    CHECK(guard.admit("203.0.113.9"));  // one closed: room for one more
    const auto reports = guard.take_reports();
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].address == "203.0.113.9");
    CHECK(reports[0].refused == 2);
    CHECK(guard.take_reports().empty());  // reported once
    CHECK(guard.totals().refused == 2);
    CHECK(guard.totals().open == 1);
}

TEST_CASE(
    "connection guard: a request not whole by the deadline is cut once, whatever arrived, "
    "serving stops the clock and each answer restarts it",
    "[lobby][connections]") {
    ConnectionGuard guard(limits(32, 1000));
    const auto slow = guard.opened("203.0.113.9", 7, 0);
    const auto served = guard.opened("198.51.100.4", 8, 0);
    guard.serving(served);
    CHECK(cut_at(guard, 999).empty());
    CHECK(cut_at(guard, 1000) == std::vector<int>{7});  // `served` is being served
    CHECK(cut_at(guard, 5000).empty());                 // cut once
    guard.answering(served, 5000);                      // its answer: gone by 6000
    CHECK(cut_at(guard, 5999).empty());
    guard.answered(served, 5500);  // went out; the next request by 6500
    CHECK(cut_at(guard, 6499).empty());
    CHECK(cut_at(guard, 6500) == std::vector<int>{8});
    const auto totals = guard.totals();
    CHECK(totals.cut == 2);
    CHECK(totals.open == 2);  // cut, not yet closed by the server
    auto reports = guard.take_reports();
    REQUIRE(reports.size() == 2);
    guard.closed(slow);
    guard.closed(served);
    guard.closed(served);  // twice, or unknown: nothing
    CHECK(guard.totals().open == 0);
    CHECK(guard.take_reports().empty());
}
