#include "frontend/lobby_client/room_browser.h"

#include "frontend/lobby_client/lobby_client.h"

#include <fmt/format.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/log.h"
#include "common/stop_signal.h"
#include "frontend/player/room_browser_model.h"
#include "netplay/base/safe_text.h"

namespace framelock::frontend::lobby_client {
namespace {

// Often enough that a room opened elsewhere shows up while the player looks, seldom
// enough not to count against the lobby's per-IP rate limit.
constexpr netplay::Micros kRefreshUs = 2'500'000;
// A join runs on the window's thread (the player waits for it anyway): short limits keep a
// lost lobby from freezing the window for long.
constexpr int kTimeoutS = 2;
// The relays are probed with the first list and again this often (the lobby keeps a
// player's probes 10 min): the delay column follows a network that changed.
constexpr netplay::Micros kProbeEveryUs = 300'000'000;

std::unique_ptr<httplib::Client> make_client(const std::string& url) {
    return lobby_http_client(url, kTimeoutS);
}

// The lobby's reason, shown in the window: safe text (netplay/base/safe_text.h), whatever it is.
std::string error_of(const std::string& body) {
    const auto answer = nlohmann::json::parse(body, nullptr, false);
    if (answer.is_object() && answer.contains("error") && answer["error"].is_string())
        return safe_text(answer["error"].get<std::string>());
    return safe_text(body, 120);
}

// One fetch's HTTP client, shared with the browser so that quitting can cut a request short
// (httplib's stop() shuts the socket under way) instead of waiting out its timeout.
struct FetchJob {
    std::shared_ptr<httplib::Client> client;
    std::atomic<bool> cancelled{false};
};

struct Fetched {
    int status = 0;                        // 0: no answer
    std::string body;                      // the answer
    std::string error;                     // why there was none
    std::optional<nlohmann::json> probes;  // measured before this list (then sent to the lobby)
};

class Browser {
  public:
    Browser(PlayerWindow& window, const std::string& url, const netplay::Clock& clock,
            bool spectating)
        : m_window(window),
          m_url(url),
          m_clock(clock),
          m_spectating(spectating),
          m_client(make_client(url)) {}

    std::optional<BrowseChoice> run() {
        m_model.set_status("asking the lobby ...", Tone::kDim);
        refresh();
        bool was_prompting = false;
        while (!m_window.quit_requested() && !framelock::stop_requested()) {
            const bool prompting = m_model.prompting();
            m_window.set_menu_mode(true, prompting);
            // Once text input is on: from here typed keys go into the password (what a
            // script driving the window, like the tests, waits for before typing).
            if (prompting && !was_prompting) {
                const frontend::BrowserRoom* room = m_model.selected_room();
                framelock::log_info("room {}: asking for its password",
                                    room ? room->code : std::string("?"));
            }
            was_prompting = prompting;
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
            collect();
            m_window.overlay().set_menu(
                OverlayModel::Menu{m_model.lines(m_url), m_model.selected_line()});
            m_window.show(m_clock.now_us());
            // A list needs no 60 Hz loop of its own; this keeps key response under a frame
            // on any display without spinning when vsync is off.
            std::this_thread::sleep_for(std::chrono::milliseconds(15));
        }
        return std::nullopt;
    }

    ~Browser() {
        cancel_fetch();
        m_window.overlay().set_menu(std::nullopt);
        m_window.set_menu_mode(false, false);
    }

  private:
    // Starts fetching the list in the background (unless a fetch is under way already): a
    // slow or lost lobby must not freeze the window, its keys, or the quit button.
    void refresh() {
        m_next_refresh = m_clock.now_us() + kRefreshUs;
        if (m_fetch.valid()) return;
        const bool probe = m_clock.now_us() >= m_next_probe;
        if (probe) m_next_probe = m_clock.now_us() + kProbeEveryUs;
        // A client of its own: httplib's clients are not shared between threads (but stop()).
        m_job = std::make_shared<FetchJob>();
        m_job->client = make_client(m_url);
        m_fetch = std::async(std::launch::async, [url = m_url, probe, job = m_job] {
            Fetched fetched;
            httplib::Client& client = *job->client;
            // This network's round trips to the relays (about 0.1 s, 1 s at most), kept by
            // the lobby for this address: the list then shows each room's expected delay.
            if (probe && !job->cancelled) {
                fetched.probes = probe_relays_json(client, url);
                if (!fetched.probes->empty() && !job->cancelled) {
                    if (Status posted = post_probes(client, url, *fetched.probes); !posted)
                        framelock::log_warn("lobby: {}", posted.error().message);
                }
            }
            if (job->cancelled) return fetched;
            auto res = client.Get("/api/rooms");
            if (!res) {
                fetched.error = httplib::to_string(res.error());
            } else {
                fetched.status = res->status;
                fetched.body = res->body;
            }
            return fetched;
        });
    }

    // Ends a fetch under way at once: its requests fail now, not at their timeout (stopped
    // again until it returns, in case a request began between a check and the stop).
    void cancel_fetch() {
        if (!m_fetch.valid()) return;
        m_job->cancelled = true;
        while (m_fetch.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
            m_job->client->stop();
    }

    // Takes in a finished fetch, if there is one.
    void collect() {
        if (!m_fetch.valid() ||
            m_fetch.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
            return;
        const Fetched res = m_fetch.get();
        if (res.probes) m_probes = *res.probes;
        if (res.status == 0) {
            m_model.set_status(fmt::format("cannot reach the lobby: {}", res.error), Tone::kError);
            return;
        }
        auto rooms = res.status == 200 ? parse_rooms_json(res.body) : std::nullopt;
        if (!rooms) {
            m_model.set_status(
                fmt::format("the lobby answered {}: {}", res.status, error_of(res.body)),
                Tone::kError);
            return;
        }
        // The list in the log whenever it changes: scripts and tests see what is shown.
        std::string codes;
        for (const auto& room : *rooms) codes += " " + room.code;
        if (codes != m_logged_codes) {
            framelock::log_info("rooms:{}", codes.empty() ? " none" : codes);
            m_logged_codes = codes;
        }
        m_model.set_status(fmt::format("{} room{}, refreshed every {} s", rooms->size(),
                                       rooms->size() == 1 ? "" : "s", kRefreshUs / 1'000'000.0),
                           Tone::kDim);
        m_model.set_rooms(std::move(*rooms));
    }

    std::optional<BrowseChoice> join(const BrowserAction& action) {
        nlohmann::json body{{"password", action.password}};
        // The lobby may still move a room waiting for its second player to the relay that
        // suits both.
        if (!m_probes.empty()) body["probes"] = m_probes;
        auto res = m_client->Post(fmt::format("/api/rooms/{}/join", action.code), body.dump(),
                                  "application/json");
        if (!res) {
            framelock::log_warn("join {}: cannot reach the lobby: {}", action.code,
                                httplib::to_string(res.error()));
            m_model.set_status(
                fmt::format("cannot reach the lobby: {}", httplib::to_string(res.error())),
                Tone::kError);
            return std::nullopt;
        }
        const auto answer = nlohmann::json::parse(res->body, nullptr, false);
        if (res->status != 200 || !answer.is_object() || !answer.contains("server_address") ||
            !answer["server_address"].is_string()) {
            framelock::log_warn("join {}: the lobby answered {}: {}", action.code, res->status,
                                error_of(res->body));
            m_model.set_status(fmt::format("cannot join {}: {}", action.code, error_of(res->body)),
                               Tone::kError);
            // The room may have filled or closed meanwhile: show the list as it is now.
            refresh();
            return std::nullopt;
        }
        if (answer.value("full", false) && !m_spectating) {
            // Every player slot is taken: the session's server would refuse a player.
            m_model.set_status(fmt::format("{} is full", action.code), Tone::kWarning);
            refresh();
            return std::nullopt;
        }
        BrowseChoice choice{action.code, answer["server_address"].get<std::string>(),
                            action.password};
        if (answer.contains("expected_delay") && answer["expected_delay"].is_number_integer())
            framelock::log_info("joining {} at {} (expected delay {} frames, {} ms)", choice.code,
                                choice.server_address, answer["expected_delay"].get<int>(),
                                answer.value("expected_rtt_ms", 0.0));
        else
            framelock::log_info("joining {} at {}", choice.code, choice.server_address);
        return choice;
    }

    PlayerWindow& m_window;
    std::string m_url;
    const netplay::Clock& m_clock;
    bool m_spectating;
    std::unique_ptr<httplib::Client> m_client;  // joins, on this thread
    std::future<Fetched> m_fetch;               // the list, on its own
    std::shared_ptr<FetchJob> m_job;            // m_fetch's client
    RoomBrowserModel m_model;
    netplay::Micros m_next_refresh = 0;
    netplay::Micros m_next_probe = 0;
    nlohmann::json m_probes = nlohmann::json::object();  // the last probes, for joins
    std::string m_logged_codes = "?";
};

}  // namespace

std::optional<BrowseChoice> run_room_browser(PlayerWindow& window, const std::string& lobby_url,
                                             const netplay::Clock& clock, bool spectating) {
    Browser browser(window, lobby_url, clock, spectating);
    return browser.run();
}

}  // namespace framelock::frontend::lobby_client
