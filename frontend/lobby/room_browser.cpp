#include "frontend/lobby/room_browser.h"

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "frontend/log.h"
#include "frontend/room_browser_model.h"
#include "frontend/stop_signal.h"

namespace framelock::lobby {
namespace {

using frontend::BrowserAction;
using frontend::RoomBrowserModel;
using frontend::Tone;

// Often enough that a room opened elsewhere shows up while the player looks, seldom
// enough not to count against the lobby's per-IP rate limit.
constexpr netplay::Micros kRefreshUs = 2'500'000;
// The requests run on the window's thread: short limits keep a lost lobby from freezing
// the window for long.
constexpr int kTimeoutS = 2;

std::unique_ptr<httplib::Client> make_client(const std::string& url) {
    auto client = std::make_unique<httplib::Client>(url);
    client->set_connection_timeout(kTimeoutS, 0);
    client->set_read_timeout(kTimeoutS, 0);
    client->set_write_timeout(kTimeoutS, 0);
    return client;
}

std::string error_of(const std::string& body) {
    const auto json = nlohmann::json::parse(body, nullptr, false);
    if (json.is_object() && json.contains("error") && json["error"].is_string())
        return json["error"].get<std::string>();
    return body.substr(0, 120);
}

class Browser {
  public:
    Browser(frontend::PlayerWindow& window, const std::string& url, const netplay::Clock& clock,
            bool spectating)
        : m_window(window),
          m_url(url),
          m_clock(clock),
          m_spectating(spectating),
          m_client(make_client(url)) {}

    std::optional<BrowseChoice> run() {
        refresh();
        while (!m_window.quit_requested() && !frontend::stop_requested()) {
            m_window.set_menu_mode(true, m_model.prompting());
            m_window.pump_events();
            for (const auto& event : m_window.take_menu_events()) {
                const BrowserAction action = m_model.handle(event.key, event.text);
                switch (action.kind) {
                    case BrowserAction::Kind::kNone:
                        break;
                    case BrowserAction::Kind::kQuit:
                        return std::nullopt;
                    case BrowserAction::Kind::kRefresh:
                        refresh();
                        break;
                    case BrowserAction::Kind::kJoin:
                        if (auto choice = join(action)) return choice;
                        break;
                }
            }
            if (m_clock.now_us() >= m_next_refresh) refresh();
            m_window.overlay().set_menu(
                frontend::OverlayModel::Menu{m_model.lines(m_url), m_model.selected_line()});
            m_window.show(m_clock.now_us());
            // A list needs no 60 Hz loop of its own; this keeps key response under a frame
            // on any display without spinning when vsync is off.
            std::this_thread::sleep_for(std::chrono::milliseconds(15));
        }
        return std::nullopt;
    }

    ~Browser() {
        m_window.overlay().set_menu(std::nullopt);
        m_window.set_menu_mode(false, false);
    }

  private:
    void refresh() {
        m_next_refresh = m_clock.now_us() + kRefreshUs;
        auto res = m_client->Get("/api/rooms");
        if (!res) {
            m_model.set_status(
                fmt::format("cannot reach the lobby: {}", httplib::to_string(res.error())),
                Tone::kError);
            return;
        }
        auto rooms = res->status == 200 ? frontend::parse_rooms_json(res->body) : std::nullopt;
        if (!rooms) {
            m_model.set_status(
                fmt::format("the lobby answered {}: {}", res->status, error_of(res->body)),
                Tone::kError);
            return;
        }
        // The list in the log whenever it changes: scripts and tests see what is shown.
        std::string codes;
        for (const auto& room : *rooms) codes += " " + room.code;
        if (codes != m_logged_codes) {
            frontend::log_info("rooms:{}", codes.empty() ? " none" : codes);
            m_logged_codes = codes;
        }
        m_model.set_status(fmt::format("{} room{}, refreshed every {} s", rooms->size(),
                                       rooms->size() == 1 ? "" : "s", kRefreshUs / 1'000'000.0),
                           Tone::kDim);
        m_model.set_rooms(std::move(*rooms));
    }

    std::optional<BrowseChoice> join(const BrowserAction& action) {
        const nlohmann::json body{{"password", action.password}};
        auto res = m_client->Post(fmt::format("/api/rooms/{}/join", action.code), body.dump(),
                                  "application/json");
        if (!res) {
            m_model.set_status(
                fmt::format("cannot reach the lobby: {}", httplib::to_string(res.error())),
                Tone::kError);
            return std::nullopt;
        }
        const auto json = nlohmann::json::parse(res->body, nullptr, false);
        if (res->status != 200 || !json.is_object() || !json.contains("server_address") ||
            !json["server_address"].is_string()) {
            frontend::log_warn("join {}: the lobby answered {}: {}", action.code, res->status,
                               error_of(res->body));
            m_model.set_status(fmt::format("cannot join {}: {}", action.code, error_of(res->body)),
                               Tone::kError);
            // The room may have filled or closed meanwhile: show the list as it is now.
            refresh();
            return std::nullopt;
        }
        if (json.value("full", false) && !m_spectating) {
            // Every player slot is taken: the session's server would refuse a player.
            m_model.set_status(fmt::format("{} is full", action.code), Tone::kWarning);
            refresh();
            return std::nullopt;
        }
        BrowseChoice choice{action.code, json["server_address"].get<std::string>(),
                            action.password};
        frontend::log_info("joining {} at {}", choice.code, choice.server_address);
        return choice;
    }

    frontend::PlayerWindow& m_window;
    std::string m_url;
    const netplay::Clock& m_clock;
    bool m_spectating;
    std::unique_ptr<httplib::Client> m_client;
    RoomBrowserModel m_model;
    netplay::Micros m_next_refresh = 0;
    std::string m_logged_codes = "?";
};

}  // namespace

std::optional<BrowseChoice> run_room_browser(frontend::PlayerWindow& window,
                                             const std::string& lobby_url,
                                             const netplay::Clock& clock, bool spectating) {
    Browser browser(window, lobby_url, clock, spectating);
    return browser.run();
}

}  // namespace framelock::lobby
