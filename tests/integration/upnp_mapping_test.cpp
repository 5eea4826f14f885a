// The UPnP port mapping (frontend/reach/upnp_mapping.h) against the minimal gateway of
// tests/support/test_igd.py: on 127.0.0.1 with the gateway's URL given (SSDP multicast on the
// host's loopback is unreliable, and a real router on the LAN must not answer a test), and
// with real SSDP discovery inside a network namespace of its own when this runs as root.
#include <catch2/catch.hpp>

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "frontend/reach/try_upnp.h"
#include "frontend/reach/upnp_mapping.h"
#include "support/process.h"
#include "support/test_igd_process.h"

using namespace framelock;
using namespace framelock::frontend;
using namespace framelock::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

std::unique_ptr<TestIgd> start_igd(const std::vector<std::string>& extra) {
    auto igd = TestIgd::start(extra);
    INFO((igd ? std::string() : igd.error().message));
    REQUIRE(igd);
    return std::move(igd).value();
}

UpnpOptions options_for(const TestIgd& igd, std::uint32_t lease_s = 120) {
    UpnpOptions options;
    options.igd_url = igd.root_url();
    options.lease_s = lease_s;
    return options;
}

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

TEST_CASE("UPnP: the mapping is on the gateway while it lives and gone after",
          "[integration][upnp]") {
    auto igd = start_igd({"--external-ip", "203.0.113.7"});
    auto opened = UpnpMapping::open(47000, options_for(*igd));
    INFO((opened ? std::string() : opened.error().message) << igd->log());
    REQUIRE(opened);
    auto mapping = std::move(opened).value();
    // A documentation address is a public one here (miniupnpc itself calls it reserved).
    CHECK(mapping->external_address() == "203.0.113.7:47000");
    CHECK(mapping->external_port() == 47000);
    CHECK(mapping->internal_client() == "127.0.0.1");
    CHECK(mapping->lease_s() == 120);

    const nlohmann::json listed = igd->mappings();
    REQUIRE(listed.is_array());
    REQUIRE(listed.size() == 1);
    CHECK(listed[0]["protocol"] == "UDP");
    CHECK(listed[0]["external_port"] == 47000);
    CHECK(listed[0]["internal_client"] == "127.0.0.1");
    CHECK(listed[0]["internal_port"] == 47000);
    CHECK(listed[0]["lease"] == 120);
    CHECK(listed[0]["description"] == "framelock");
    CHECK(listed[0]["adds"] == 1);

    // The destructor removes it at once (the renewal thread wakes, no lease to wait out).
    const auto start = Clock::now();
    mapping.reset();
    CHECK(seconds_since(start) < 1.0);
    CHECK(igd->mappings() == nlohmann::json::array());
    CHECK(igd->get("/stats")["deletes"] == 1);
}

TEST_CASE("UPnP: the lease is renewed every half lease while the mapping lives",
          "[integration][upnp]") {
    auto igd = start_igd({"--external-ip", "198.51.100.20"});
    auto opened = UpnpMapping::open(47002, options_for(*igd, 4));
    INFO((opened ? std::string() : opened.error().message) << igd->log());
    REQUIRE(opened);
    auto mapping = std::move(opened).value();
    const auto opened_at = Clock::now();
    // Renewed every 2 s (at ~2 and ~4 s): waited for, not slept on, so a busy machine that
    // answers late only makes the wait longer. Then, past the 4 s lease, the gateway still
    // holds it, added 3 times without a gap (an expired mapping counts its adds afresh).
    REQUIRE(poll_until([&] { return mapping->renewals() >= 2; }, kReadyLimit));
    CHECK(seconds_since(opened_at) >= 3.9);  // every half lease, not sooner
    const nlohmann::json listed = igd->mappings();
    REQUIRE(listed.size() == 1);
    CHECK(listed[0]["external_port"] == 47002);
    CHECK(listed[0]["lease"] == 4);
    CHECK(listed[0]["adds"] >= 3);
    const auto start = Clock::now();
    mapping.reset();
    CHECK(seconds_since(start) < 1.0);
    CHECK(igd->mappings() == nlohmann::json::array());
}

TEST_CASE("UPnP: a mapping the gateway forgets when its lease runs out", "[integration][upnp]") {
    // The gateway's own lease bookkeeping, which the renewal test relies on.
    auto igd = start_igd({});
    httplib::Client client("127.0.0.1", igd->port());
    const std::string body =
        "<?xml version=\"1.0\"?><s:Envelope "
        "xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body><u:AddPortMapping "
        "xmlns:u=\"urn:schemas-upnp-org:service:WANIPConnection:1\"><NewRemoteHost/>"
        "<NewExternalPort>47004</NewExternalPort><NewProtocol>UDP</NewProtocol>"
        "<NewInternalPort>47004</NewInternalPort><NewInternalClient>127.0.0.1</"
        "NewInternalClient><NewEnabled>1</NewEnabled><NewPortMappingDescription>x</"
        "NewPortMappingDescription><NewLeaseDuration>1</NewLeaseDuration></u:AddPortMapping>"
        "</s:Body></s:Envelope>";
    httplib::Headers headers = {
        {"SOAPAction", "\"urn:schemas-upnp-org:service:WANIPConnection:1#AddPortMapping\""}};
    auto added = client.Post("/ctl/IPConn", headers, body, "text/xml");
    REQUIRE(added);
    CHECK(added->status == 200);
    CHECK(igd->mappings().size() == 1);
    CHECK(poll_until([&] { return igd->mappings() == nlohmann::json::array(); }, kReadyLimit));
}

TEST_CASE("UPnP: a port another machine holds: the next external port", "[integration][upnp]") {
    auto igd = start_igd({"--taken", "47010", "--taken", "47011"});
    auto opened = UpnpMapping::open(47010, options_for(*igd));
    INFO((opened ? std::string() : opened.error().message) << igd->log());
    REQUIRE(opened);
    auto mapping = std::move(opened).value();
    CHECK(mapping->external_port() == 47012);
    CHECK(mapping->external_address() == "203.0.113.1:47012");
    const nlohmann::json listed = igd->mappings();
    REQUIRE(listed.size() == 3);
    CHECK(listed[2]["external_port"] == 47012);
    CHECK(listed[2]["internal_port"] == 47010);
    mapping.reset();
    // Only ours is removed.
    CHECK(igd->mappings().size() == 2);

    // Every port tried is taken: one sentence naming the ports.
    UpnpOptions two = options_for(*igd);
    two.port_attempts = 2;
    auto refused = UpnpMapping::open(47010, two);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message ==
          "the router at 127.0.0.1:" + std::to_string(igd->port()) +
              " has UDP ports 47010-47011 mapped to other machines already (UPnP error 718 "
              "(ConflictInMappingEntry))");
}

TEST_CASE("UPnP: a refused mapping is one sentence with the router's code", "[integration][upnp]") {
    auto igd = start_igd({"--refuse", "606"});
    const auto start = Clock::now();
    auto opened = UpnpMapping::open(47020, options_for(*igd));
    REQUIRE_FALSE(opened);
    CHECK(seconds_since(start) < 2.0);
    CHECK(opened.error().message ==
          "the router at 127.0.0.1:" + std::to_string(igd->port()) +
              " refused the port mapping UDP 47020 -> 127.0.0.1:47020 (UPnP error 606 (Action "
              "not authorized))");
    CHECK(igd->mappings() == nlohmann::json::array());
    // The host's step: one line, then null (the next way in).
    CHECK(try_upnp(47020, options_for(*igd)) == nullptr);
}

TEST_CASE("UPnP: a gateway whose external address is private is behind another NAT",
          "[integration][upnp]") {
    for (const char* address : {"10.0.0.2", "100.64.1.1", "192.168.7.1", "172.20.0.1"}) {
        auto igd = start_igd({"--external-ip", address});
        auto opened = UpnpMapping::open(47030, options_for(*igd));
        REQUIRE_FALSE(opened);
        CHECK(opened.error().message ==
              "the router at 127.0.0.1:" + std::to_string(igd->port()) + "'s external address " +
                  address +
                  " is private: it sits behind another NAT (double "
                  "NAT), where a port mapping would reach no one outside");
        // Nothing was asked for.
        CHECK(igd->get("/stats")["adds"] == 0);
    }
}

TEST_CASE("UPnP: no gateway at the URL", "[integration][upnp]") {
    // A port nothing listens on: the gateway is started and stopped to find one.
    std::string url;
    {
        auto igd = start_igd({});
        url = igd->root_url();
        igd->process().stop(2s);
    }
    UpnpOptions options;
    options.igd_url = url;
    const auto start = Clock::now();
    auto opened = UpnpMapping::open(47040, options);
    REQUIRE_FALSE(opened);
    CHECK(seconds_since(start) < 3.0);
    CHECK(opened.error().message ==
          "the UPnP router's description at " + url + " could not be read");
}

TEST_CASE("UPnP: a gateway that stops answering holds the exit up 2 s at most",
          "[integration][upnp]") {
    auto igd = start_igd({});
    auto opened = UpnpMapping::open(47050, options_for(*igd));
    REQUIRE(opened);
    auto mapping = std::move(opened).value();
    // Stopped, its socket still accepts connections but nothing answers.
    igd->process().send_signal(SIGSTOP);
    const auto start = Clock::now();
    mapping.reset();
    const double took = seconds_since(start);
    CHECK(took >= 1.9);
    CHECK(took < 3.0);
    // Going on, it gets the removal the mapping sent (which finishes in the background).
    igd->process().send_signal(SIGCONT);
    CHECK(poll_until([&] { return igd->mappings() == nlohmann::json::array(); }, kReadyLimit));
}

namespace {

// What the namespace's thread saw; checked on the test's thread.
struct NamespaceRun {
    std::string skipped;  // why it could not run
    std::string setup_error;
    std::string no_gateway_error;
    double no_gateway_s = 0;
    std::string found_error;
    int searches = 0;  // discoveries run until the gateway was found
    std::string external_address, internal_client;
    nlohmann::json listed, listed_after;
    std::string igd_log;
};

std::string ip_program() {
    for (const char* path : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
        if (std::filesystem::exists(path)) return path;
    return {};
}

// Runs on a thread of its own: the network namespace is the thread's, and the processes,
// sockets and threads it starts live in it too.
void discover_in_namespace(NamespaceRun& run) {
    const std::string ip = ip_program();
    if (ip.empty()) {
        run.skipped = "'ip' is missing (Debian: iproute2)";
        return;
    }
    if (::geteuid() != 0) {
        run.skipped = "not root: no network namespace of its own";
        return;
    }
    if (::unshare(CLONE_NEWNET) != 0) {
        run.skipped = std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
        return;
    }
    // Only a loopback interface, up, with multicast on and the multicast route through it.
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{ip, "link", "set", "lo", "up"},
          std::vector<std::string>{ip, "link", "set", "lo", "multicast", "on"},
          std::vector<std::string>{ip, "route", "add", "224.0.0.0/4", "dev", "lo"}}) {
        const ProcessResult result = run_process(args, 10s);
        if (result.exit_code != 0) {
            run.setup_error = args[1] + " " + args[2] + ": " + result.err;
            return;
        }
    }
    UpnpOptions options;
    options.discover_ms = 500;
    // No gateway yet: discovery gives up after its time.
    const auto start = Clock::now();
    auto none = UpnpMapping::open(47060, options);
    run.no_gateway_s = seconds_since(start);
    if (!none) run.no_gateway_error = none.error().message;

    auto igd = TestIgd::start({"--external-ip", "203.0.113.9", "--ssdp-iface", "127.0.0.1"});
    if (!igd) {
        run.setup_error = igd.error().message;
        return;
    }
    // Each search waits 2 s for an answer. The gateway listens before its port file exists,
    // so it is ready; but on a busy machine its Python process may not be scheduled within
    // one search's 2 s. Unanswered searches are repeated up to a generous overall deadline
    // (a wait for an answer, not for a fixed time); any other error ends the wait.
    options.discover_ms = 2000;
    const auto deadline = Clock::now() + kReadyLimit;
    auto found = UpnpMapping::open(47060, options);
    for (run.searches = 1; !found && Clock::now() < deadline; ++run.searches) {
        if (found.error().message.rfind("no UPnP router (IGD) answered", 0) != 0) break;
        found = UpnpMapping::open(47060, options);
    }
    if (!found) {
        run.found_error = found.error().message;
    } else {
        run.external_address = found.value()->external_address();
        run.internal_client = found.value()->internal_client();
        run.listed = igd.value()->mappings();
        found.value().reset();
        run.listed_after = igd.value()->mappings();
    }
    run.igd_log = igd.value()->log();
}

}  // namespace

// Last in this file: a skip ends the test binary (exit 77, CTest's skip code).
TEST_CASE("UPnP: SSDP discovery finds the gateway in a network namespace of its own",
          "[integration][upnp][netns]") {
    NamespaceRun run;
    std::thread([&run] { discover_in_namespace(run); }).join();
    if (!run.skipped.empty()) {
        std::printf("SKIPPED: SSDP discovery test: %s\n", run.skipped.c_str());
        std::fflush(stdout);
        std::_Exit(77);
    }
    INFO(run.igd_log);
    INFO("searches until the gateway was found: " << run.searches);
    REQUIRE(run.setup_error == "");
    CHECK(run.no_gateway_error == "no UPnP router (IGD) answered within 500 ms");
    CHECK(run.no_gateway_s < 2.0);
    REQUIRE(run.found_error == "");
    CHECK(run.external_address == "203.0.113.9:47060");
    CHECK(run.internal_client == "127.0.0.1");
    REQUIRE(run.listed.size() == 1);
    CHECK(run.listed[0]["internal_port"] == 47060);
    CHECK(run.listed_after == nlohmann::json::array());
}
