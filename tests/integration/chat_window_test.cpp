// Chat in the player's window under a private Xvfb: a `framelock server`, two players and a
// spectator in windows (--video sdl), and a modified spectator in this process whose name and
// message carry terminal escapes and a bidi override. One player opens the chat line with T,
// types through X (xdotool: SDL's real event path) and sends it with Enter; each window then
// opens its chat line (the history above it) and is saved with F12. A window's screenshot carries
// the chat rows it drew as text beside the pixels (Image::text, kChatTextKey): the rows are checked
// there, and in the pixels, the rows' opaque backdrop is as many lines tall as there are rows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "frontend/host/image.h"
#include "frontend/player/player_window.h"
#include "integration/netplay_session.h"
#include "netplay/client/client.h"
#include "netplay/io/enet_transport.h"
#include "netplay/io/real_clock.h"
#include "netplay/sim/sim_session.h"
#include "support/process.h"
#include "support/xvfb.h"

using namespace framelock::test;
using framelock::netplay::Client;
using framelock::netplay::ClientConfig;
using framelock::netplay::EnetTransport;
using framelock::netplay::HashingEmulator;
using framelock::netplay::SteadyClock;

namespace {

// The modified spectator: a name and a message no framelock would send (its --name check
// refuses such a name).
const std::string kHostileName = "eve\x1b]0;PWN\a";
const std::string kHostileText = "hi\x1b[2J\xe2\x80\xae!";
// How the players' windows show them.
const std::string kHostileShownName = "eve\\x1b]0;PWN\\x07";
const std::string kHostileRow = "spectator " + kHostileShownName + ": hi\\x1b[2J\\u202e!";
const std::string kTypedRow = "P1 ann: hello there";

// The colour of the chat rows' backdrop (sdl_overlay.cpp), as a screenshot's pixel.
constexpr std::uint32_t kChatBack = 0x0c0c14;

// A spectator in this process, ticked on a thread of its own until stop(): says kHostileText
// once it is welcomed.
class HostileSpectator {
  public:
    HostileSpectator(const std::string& address, const framelock::netplay::SessionIdentity& id) {
        auto transport = EnetTransport::client();
        REQUIRE(transport);
        m_transport = std::move(transport).value();
        ClientConfig config;
        config.server_address = address;
        config.player_name = kHostileName;
        config.identity = id;
        config.role = framelock::netplay::Role::kSpectator;
        m_client = std::make_unique<Client>(*m_transport, m_clock, m_emulator, config);
        m_client->start();
        m_thread = std::thread([this] { run(); });
    }
    ~HostileSpectator() { stop(); }
    void stop() {
        m_stop = true;
        if (m_thread.joinable()) m_thread.join();
    }
    bool said() const { return m_said; }
    // Why it ended ("" while it plays): read after stop().
    std::string end_reason() const { return m_client->end_reason(); }

  private:
    void run() {
        while (!m_stop && m_client->state() != Client::State::kEnded) {
            m_client->tick(0);
            while (m_client->poll_event()) {
            }
            while (m_client->poll_chat()) {
            }
            // Said once welcomed: its emulator (not the players' core) could not load the
            // session's state, and a member may talk before it watches.
            if (!m_said && m_client->state() != Client::State::kConnecting)
                m_said = m_client->say(kHostileText).ok();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        m_client->leave("done");
        for (int i = 0; i < 50; ++i) {
            m_client->tick(0);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }

    SteadyClock m_clock;
    HashingEmulator m_emulator;
    std::unique_ptr<EnetTransport> m_transport;
    std::unique_ptr<Client> m_client;
    std::thread m_thread;
    std::atomic<bool> m_stop{false}, m_said{false};
};

// The session's identity as a player's log states it ("connecting to ... (CORE VERSION,
// content HASH, options HASH)"), with the fps and ports the players run at.
framelock::netplay::SessionIdentity identity_from_log(const std::string& log) {
    const std::regex line(
        R"(as player '[^']*' \((\S+) (\S+), content ([0-9a-f]{16}), options ([0-9a-f]{16})\))");
    std::smatch m;
    INFO(log);
    REQUIRE(std::regex_search(log, m, line));
    return {m[1], m[2], std::stoull(m[3], nullptr, 16), std::stoull(m[4], nullptr, 16), 60'000, 2};
}

// The X window of process `pid`.
std::string window_of(pid_t pid) {
    const std::string ids = xdotool({"search", "--sync", "--pid", std::to_string(pid)});
    return ids.substr(0, ids.find('\n'));
}

// `keys` pressed in `window` through XTest (the window focused first: XTest types into the
// focused window, as a keyboard does; events sent to a window directly are marked synthetic).
void press(const std::string& window, const std::vector<std::string>& keys) {
    xdotool({"windowfocus", "--sync", window});
    std::vector<std::string> args = {"key"};
    args.insert(args.end(), keys.begin(), keys.end());
    xdotool(args);
}

// Presses F12 in `window` and returns the screenshot NAME's process wrote (its log names it).
framelock::frontend::Image screenshot(Session& session, const std::string& name,
                                      ChildProcess& child, const std::string& window,
                                      Deadline deadline) {
    const std::size_t from = session.log_size(name);
    press(window, {"F12"});
    session.wait_for_log(name, "window picture written to ", child, deadline, from);
    const std::string log = read_text(session.dir().file(name + ".log"));
    const auto at = log.find("window picture written to ", from);
    const std::string path =
        log.substr(at + 26, log.find('\n', at) - at - 26);  // to the end of the line
    auto image = framelock::frontend::read_png(path);
    INFO(path);
    REQUIRE(image.ok());
    return std::move(image).value();
}

// The chat rows a screenshot carries, one a line.
std::vector<std::string> chat_rows(const framelock::frontend::Image& image) {
    for (const auto& [key, text] : image.text) {
        if (key != framelock::frontend::kChatTextKey) continue;
        std::vector<std::string> rows;
        for (std::size_t at = 0; at < text.size();) {
            const auto end = text.find('\n', at);
            rows.push_back(text.substr(at, end - at));
            at = end + 1;
        }
        return rows;
    }
    FAIL("the screenshot carries no chat rows");
    return {};
}

// The longest run of pixel rows at the window's left edge (x = 4: the backdrop's first
// column) in the chat's backdrop colour: the rows, one on the other (a pixel of the game's
// that happens to be that colour is no run).
int backdrop_lines(const framelock::frontend::Image& image) {
    int longest = 0, run = 0;
    for (unsigned y = 0; y < image.height; ++y) {
        run = image.at(4, y) == kChatBack ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return longest;
}

}  // namespace

TEST_CASE(
    "Window chat: a line typed in one player's window shows in both players' and the "
    "spectator's windows, a muted sender's not, and a hostile name and text show escaped",
    "[integration][window][chat]") {
    FRAMELOCK_SKIP_UNLESS_XVFB();
    FRAMELOCK_SKIP_UNLESS_XDOTOOL();
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    Xvfb xvfb;
    ::setenv("SDL_AUDIODRIVER", "dummy", 1);
    constexpr int kFrames = 60 * 60;  // a minute: the test ends them once it has its pictures
    const auto limit = session_time(kFrames);
    const Deadline deadline = after(limit);
    Session session("chat-window");
    const auto window = [&](const std::string& name) {
        const std::string config = session.dir().file(name + ".toml");
        write_text(config, "[video]\nscale = 2\nscreenshot_dir = \"" +
                               session.dir().file(name + "-shots") + "\"\n");
        return std::vector<std::string>{"--video", "sdl", "--audio", "none", "--config", config};
    };
    session.start_server(2, limit);
    const auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    // The spectator once a player is in (before, a server has nobody to watch), and before
    // the second: the session has not started when it comes.
    ChildProcess& ann = session.start_client("ann", core, 1, 31, kFrames, window("ann"));
    session.wait_for_log("server", "ann joined", session.server(), deadline);
    ChildProcess& sam =
        session.start_client("sam", core, 0, 9, kFrames, with(window("sam"), {"--spectate"}));
    session.wait_for_log("server", "sam watches", session.server(), deadline);
    ChildProcess& bob = session.start_client("bob", core, 2, 32, kFrames,
                                             with(window("bob"), {"--mute", kHostileShownName}));
    session.wait_for_log("ann", "session started", ann, deadline);
    session.wait_for_log("sam", "session started", sam, deadline);

    // The modified spectator says its line; every window's process logs it, but bob's.
    const auto port = framelock::parse_port_file(read_text(session.dir().file("server.port")));
    REQUIRE(port);
    HostileSpectator eve("127.0.0.1:" + std::to_string(*port),
                         identity_from_log(read_text(session.dir().file("ann.log"))));
    {
        INFO("the modified spectator " << (eve.said() ? "said its line" : "did not say its line"));
        session.wait_for_log("server", "chat: " + kHostileRow, session.server(), deadline);
    }
    session.wait_for_log("ann", kHostileRow, ann, deadline);
    session.wait_for_log("sam", kHostileRow, sam, deadline);

    // ann types: T opens the chat line (the screenshot shows it open), the text, Enter.
    const std::string ann_window = window_of(ann.pid());
    press(ann_window, {"t"});
    const auto opened = screenshot(session, "ann", ann, ann_window, deadline);
    CHECK(chat_rows(opened).back() == "say: _");
    xdotool({"windowfocus", "--sync", ann_window});
    xdotool({"type", "hello there"});
    const auto typing = screenshot(session, "ann", ann, ann_window, deadline);
    CHECK(chat_rows(typing).back() == "say: hello there_");
    press(ann_window, {"Return"});
    for (auto [name, child] :
         {std::pair<const char*, ChildProcess*>{"ann", &ann}, {"bob", &bob}, {"sam", &sam}})
        session.wait_for_log(name, ": " + kTypedRow, *child, deadline);

    // Each window with its chat line open (T): the history above it, whenever each line came
    // (new lines show on their own for ChatPanel::kShowUs; a loaded machine may pass that).
    const auto opened_shot = [&](const std::string& name, ChildProcess& child) {
        const std::string id = window_of(child.pid());
        press(id, {"t"});
        return screenshot(session, name, child, id, deadline);
    };
    const auto ann_shot = opened_shot("ann", ann);
    const auto bob_shot = opened_shot("bob", bob);
    const auto sam_shot = opened_shot("sam", sam);
    const std::vector<std::string> both = {kHostileRow, kTypedRow, "say: _"};
    CHECK(chat_rows(ann_shot) == both);
    CHECK(chat_rows(sam_shot) == both);
    CHECK(chat_rows(bob_shot) == std::vector<std::string>{kTypedRow, "say: _"});  // eve muted
    // The pixels: each row on the chat's backdrop, a line tall.
    const int one_row = backdrop_lines(bob_shot) / 2;
    CHECK(one_row > 8);
    CHECK(backdrop_lines(bob_shot) == 2 * one_row);
    CHECK(backdrop_lines(ann_shot) == 3 * one_row);
    CHECK(backdrop_lines(sam_shot) == 3 * one_row);
    std::printf(
        "[figure] chat window: rows %d px tall; ann and sam show 2 lines, bob (muting "
        "eve) 1\n",
        one_row);
    std::fflush(stdout);
    eve.stop();
    ::unsetenv("SDL_AUDIODRIVER");
}
