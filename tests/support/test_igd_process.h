// The minimal UPnP gateway of tests/support/test_igd.py as a child process of a test: started
// on 127.0.0.1 (any free port), asked for its mappings over HTTP, stopped by its destructor
// (or by the kernel when the thread that started it ends).
#pragma once

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/child_process.h"
#include "support/build_paths.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace framelock::test {

inline constexpr const char* kPython = "/usr/bin/python3";

class TestIgd {
  public:
    // `extra`: test_igd.py's options beyond the address and port file (--external-ip,
    // --refuse CODE, --taken PORT, --ssdp-iface ADDR). An error naming the log when it does not
    // start.
    static Result<std::unique_ptr<TestIgd>> start(const std::vector<std::string>& extra) {
        std::unique_ptr<TestIgd> igd(new TestIgd());
        std::vector<std::string> args = {
            kPython,       std::string(build_paths::source_dir) + "/tests/support/test_igd.py",
            "--http-addr", "127.0.0.1:0",
            "--port-file", igd->m_dir.file("port"),
            "--duration",  "120",
            "-v"};
        args.insert(args.end(), extra.begin(), extra.end());
        auto spawned = ChildProcess::spawn(args, igd->log_path(), igd->log_path());
        if (!spawned) return spawned.error();
        igd->m_process.emplace(std::move(spawned).value());
        // The port file is written once HTTP (and SSDP, with --ssdp-iface) listen.
        auto port = wait_for_port_file(igd->m_dir.file("port"), *igd->m_process, ready_deadline());
        if (!port) return make_error(port.error().code, port.error().message + "\n" + igd->log());
        igd->m_port = port.value();
        return igd;
    }

    std::uint16_t port() const { return m_port; }
    std::string root_url() const {
        return "http://127.0.0.1:" + std::to_string(m_port) + "/rootDesc.xml";
    }
    std::string log() const { return read_text(log_path()); }
    ChildProcess& process() { return *m_process; }

    // GET /mappings (the current mappings) or /stats (totals); null when it does not answer
    // within kAnswerLimitS.
    nlohmann::json get(const std::string& path) const {
        httplib::Client client("127.0.0.1", m_port);
        client.set_connection_timeout(kAnswerLimitS, 0);
        client.set_read_timeout(kAnswerLimitS, 0);
        auto response = client.Get(path.c_str());
        if (!response || response->status != 200) return nullptr;
        return nlohmann::json::parse(response->body, nullptr, false);
    }
    nlohmann::json mappings() const { return get("/mappings"); }

  private:
    // A Python process on a busy machine answers in milliseconds, rarely in a second.
    static constexpr int kAnswerLimitS = 10;

    TestIgd() : m_dir("igd") {}
    std::string log_path() const { return m_dir.file("igd.log"); }

    TempDir m_dir;
    std::optional<ChildProcess> m_process;
    std::uint16_t m_port = 0;
};

}  // namespace framelock::test
