#include "bench/session_processes.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <utility>

#include "bench/sibling_exe.h"

namespace framelock::bench {

using namespace std::chrono_literals;

std::string tail_of(const std::string& path) {
    std::ifstream in(path);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    return text.size() > 2000 ? text.substr(text.size() - 2000) : text;
}

SessionProcesses::SessionProcesses(std::string tag, const std::string& name,
                                   std::vector<std::string> game)
    : m_tag(std::move(tag)), m_game(std::move(game)), m_dir(name) {
    // The pointers handed out stay valid: no session starts more processes than this.
    m_children.reserve(16);
}

ChildProcess* SessionProcesses::spawn(const std::string& name,
                                      const std::vector<std::string>& args) {
    if (m_children.size() == m_children.capacity()) {
        std::fprintf(stderr, "%s: too many processes in one session\n", m_tag.c_str());
        return nullptr;
    }
    auto child = ChildProcess::spawn(args, file(name + ".log"), file(name + ".log"));
    if (!child) {
        std::fprintf(stderr, "%s: %s\n", m_tag.c_str(), child.error().message.c_str());
        return nullptr;
    }
    m_children.push_back(std::move(child).value());
    return &m_children.back();
}

std::optional<std::string> SessionProcesses::address_of(const std::string& name,
                                                        ChildProcess& child) {
    auto port = wait_for_port_file(file(name + ".port"), child, Clock::now() + 10s);
    if (!port) {
        std::fprintf(stderr, "%s: %s\n%s", m_tag.c_str(), port.error().message.c_str(),
                     tail_of(file(name + ".log")).c_str());
        return std::nullopt;
    }
    return "127.0.0.1:" + std::to_string(port.value());
}

std::optional<std::string> SessionProcesses::server(int players, const std::string& mode,
                                                    int seconds,
                                                    const std::vector<std::string>& extra) {
    std::vector<std::string> args = {sibling_exe("framelock"),
                                     "server",
                                     "--bind",
                                     "127.0.0.1",
                                     "--port",
                                     "0",
                                     "--players",
                                     std::to_string(players),
                                     "--mode",
                                     mode,
                                     "--port-file",
                                     file("server.port"),
                                     "--duration",
                                     std::to_string(seconds),
                                     "--stats-json",
                                     file("server.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    m_server = spawn("server", args);
    if (!m_server) return std::nullopt;
    return address_of("server", *m_server);
}

std::optional<std::string> SessionProcesses::proxy(const std::string& address,
                                                   const std::vector<std::string>& impairment,
                                                   int seconds) {
    std::vector<std::string> args = {sibling_exe("framelock_netem"),
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--forward",
                                     address,
                                     "--duration",
                                     std::to_string(seconds),
                                     "--port-file",
                                     file("netem.port"),
                                     "--stats-file",
                                     file("netem.json")};
    args.insert(args.end(), impairment.begin(), impairment.end());
    m_proxy = spawn("netem", args);
    if (!m_proxy) return std::nullopt;
    return address_of("netem", *m_proxy);
}

std::vector<std::string> SessionProcesses::game_args(const std::string& name) const {
    std::vector<std::string> args = m_game;
    args.insert(args.end(), {"--name", name, "--video", "none", "--audio", "none", "--stats-json",
                             file(name + ".json")});
    return args;
}

ChildProcess* SessionProcesses::join(const std::string& address, const std::string& name,
                                     const std::vector<std::string>& extra) {
    std::vector<std::string> args = {sibling_exe("framelock"), "join", address};
    const auto game = game_args(name);
    args.insert(args.end(), game.begin(), game.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return spawn(name, args);
}

bool SessionProcesses::finished(ChildProcess& child, const std::string& name,
                                Clock::time_point deadline) {
    const auto status = child.wait_until(deadline);
    if (status && status->success()) return true;
    std::fprintf(stderr, "%s: %s %s\n%s", m_tag.c_str(), name.c_str(),
                 status ? status->describe().c_str() : "timed out",
                 tail_of(file(name + ".log")).c_str());
    return false;
}

}  // namespace framelock::bench
