#include "frontend/player/sdl/sdl_player_window.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <utility>

#include "common/log.h"

namespace framelock::frontend {
namespace {

constexpr netplay::Micros kNoticeUs = 4'000'000;

void set_common_hints() {
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    // Hot-plugged and virtual controllers are found through the same events.
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "0");
}

std::string timestamp_name() {
    const std::time_t t = std::time(nullptr);
    std::tm local{};
    localtime_r(&t, &local);
    char text[32];
    std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &local);
    return text;
}

// The keys the room browser's menu reads: what each means, and whether holding it repeats
// (the arrows and Backspace, as in any list or text field) or it acts once per press.
struct MenuKey {
    SDL_Scancode scancode;
    BrowserKey key;
    bool repeats;
};
constexpr MenuKey kMenuKeys[] = {
    {SDL_SCANCODE_UP, BrowserKey::kUp, true},
    {SDL_SCANCODE_DOWN, BrowserKey::kDown, true},
    {SDL_SCANCODE_BACKSPACE, BrowserKey::kBackspace, true},
    {SDL_SCANCODE_RETURN, BrowserKey::kAccept, false},
    {SDL_SCANCODE_KP_ENTER, BrowserKey::kAccept, false},
    {SDL_SCANCODE_ESCAPE, BrowserKey::kBack, false},
    {SDL_SCANCODE_R, BrowserKey::kRefresh, false},
};

// The controller's buttons in the menu.
struct MenuButton {
    SDL_GameControllerButton button;
    BrowserKey key;
};
constexpr MenuButton kMenuButtons[] = {
    {SDL_CONTROLLER_BUTTON_DPAD_UP, BrowserKey::kUp},
    {SDL_CONTROLLER_BUTTON_DPAD_DOWN, BrowserKey::kDown},
    {SDL_CONTROLLER_BUTTON_A, BrowserKey::kAccept},
    {SDL_CONTROLLER_BUTTON_B, BrowserKey::kBack},
    {SDL_CONTROLLER_BUTTON_Y, BrowserKey::kRefresh},
};

}  // namespace

SdlSubsystems::SdlSubsystems(Uint32 flags) : m_flags(flags) {
    set_common_hints();
    m_ok = SDL_InitSubSystem(flags) == 0;
    if (!m_ok) m_error = SDL_GetError();
}

SdlSubsystems::~SdlSubsystems() {
    if (m_ok) SDL_QuitSubSystem(m_flags);
    // The last one out shuts SDL down completely (its event queue and hint tables).
    if (SDL_WasInit(SDL_INIT_EVERYTHING) == 0) SDL_Quit();
}

// A player's window goes on the display the environment names: X11 when $DISPLAY is set
// (XWayland included), else Wayland. Without this, SDL would fall back to its off-screen
// driver when that display cannot be reached and "open" a window nobody sees. An explicit
// $SDL_VIDEODRIVER is the user's choice and is left alone.
void choose_video_driver() {
    const char* forced = std::getenv("SDL_VIDEODRIVER");
    if (forced && *forced) return;
    const char* x11 = std::getenv("DISPLAY");
    SDL_SetHint(SDL_HINT_VIDEODRIVER, x11 && *x11 ? "x11" : "wayland");
}

bool display_available(std::string* why) {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    const char* forced = std::getenv("SDL_VIDEODRIVER");
    if ((!x11 || !*x11) && (!wayland || !*wayland) && (!forced || !*forced)) {
        if (why) *why = "no display ($DISPLAY and $WAYLAND_DISPLAY are not set)";
        return false;
    }
    choose_video_driver();
    SdlSubsystems video(SDL_INIT_VIDEO);
    if (!video.ok()) {
        if (why)
            *why = fmt::format("cannot open the display {}: {}",
                               x11 && *x11 ? x11 : (wayland ? wayland : "?"), video.error());
        return false;
    }
    return true;
}

Result<std::unique_ptr<PlayerWindow>> open_player_window(const PlayerWindowConfig& config) {
    auto window = SdlPlayerWindow::open(config);
    if (!window) return window.error();
    return std::unique_ptr<PlayerWindow>(std::move(window).value());
}

SdlPlayerWindow::SdlPlayerWindow(const PlayerWindowConfig& config) : m_config(config) {}

SdlPlayerWindow::~SdlPlayerWindow() {
    // Textures before their renderer, the device before SDL's audio goes.
    m_overlay_renderer.reset();
    m_input.reset();
    m_audio.reset();
    m_sdl_audio.reset();
    m_video.reset();
}

Result<std::unique_ptr<SdlPlayerWindow>> SdlPlayerWindow::open(const PlayerWindowConfig& config) {
    std::unique_ptr<SdlPlayerWindow> w(new SdlPlayerWindow(config));
    std::string why;
    if (!display_available(&why))
        return make_error(ErrorCode::kUsage,
                          "--video sdl: " + why + "; use --video none to run headless");
    choose_video_driver();
    w->m_sdl = std::make_unique<SdlSubsystems>(SDL_INIT_VIDEO | SDL_INIT_GAMECONTROLLER);
    if (!w->m_sdl->ok())
        return make_error(ErrorCode::kUsage, "cannot start SDL video: " + w->m_sdl->error());
    auto video = SdlVideo::create(config.title, config.settings.video, config.base_width,
                                  config.base_height, config.aspect);
    if (!video) return video.error();
    w->m_video = std::move(video).value();
    // Keys are game buttons here, never text: no input method may swallow them.
    SDL_StopTextInput();
    w->m_overlay_renderer =
        std::make_unique<SdlOverlay>(w->m_video->renderer(), config.settings.video);
    w->m_overlay.set_visible(config.settings.video.overlay);

    auto input = SdlInput::create(config.settings.input);
    if (!input) return input.error();
    w->m_input = std::move(input).value();

    if (config.audio) {
        w->m_sdl_audio = std::make_unique<SdlSubsystems>(SDL_INIT_AUDIO);
        Result<std::unique_ptr<SdlAudio>> audio =
            w->m_sdl_audio->ok() ? SdlAudio::open(config.settings.audio, config.sample_rate)
                                 : Result<std::unique_ptr<SdlAudio>>(make_error(
                                       ErrorCode::kIo, "no sound: " + w->m_sdl_audio->error()));
        if (audio) {
            w->m_audio = std::move(audio).value();
        } else if (config.audio_required) {
            return audio.error();
        } else {
            log_warn("{}; playing without sound", audio.error().message);
            w->m_sdl_audio.reset();
        }
    }
    return w;
}

void SdlPlayerWindow::pump_events() {
    SDL_Event event;
    while (SDL_PollEvent(&event)) {
        if (event.type == SDL_QUIT) {
            m_quit = true;
            continue;
        }
        if (m_menu_mode && menu_event_for(event, m_text_input, m_menu_events)) continue;
        if (m_overlay.chat().typing() && chat_event(event)) continue;
        if (event.type == SDL_KEYDOWN && !event.key.repeat) {
            const auto action = hotkey_for(m_config.settings.hotkeys,
                                           static_cast<KeyCode>(event.key.keysym.scancode));
            switch (action) {
                case HotkeyAction::kNone:
                    break;
                case HotkeyAction::kFullscreen:
                    m_video->toggle_fullscreen();
                    continue;
                case HotkeyAction::kScreenshot:
                    hotkey_screenshot(m_last_now);
                    continue;
                case HotkeyAction::kOverlay:
                    m_overlay.set_visible(!m_overlay.visible());
                    continue;
                case HotkeyAction::kQuit:
                    m_quit = true;
                    continue;
                case HotkeyAction::kChat:
                    if (!m_overlay.chat_on()) break;  // no session with chat: a key as any
                    m_overlay.chat().open_line();
                    m_input->release_keys();
                    set_text_input(true);
                    continue;
            }
        }
        if (m_viewer_mode && viewer_event(event)) continue;
        m_input->handle_event(event, m_next_frame);
    }
    for (auto& notice : m_input->take_notices())
        m_overlay.messages().post(std::move(notice), Tone::kNormal, m_last_now, kNoticeUs);
}

void SdlPlayerWindow::set_menu_mode(bool on, bool text_input) {
    m_menu_mode = on;
    set_text_input(on && text_input);
    if (!on) m_menu_events.clear();
}

void SdlPlayerWindow::set_text_input(bool on) {
    if (on == m_text_input) return;
    // Text input only while a prompt or the chat line is open: it may bring up an input
    // method, and outside them every key is a command or a button.
    if (on)
        SDL_StartTextInput();
    else
        SDL_StopTextInput();
    m_text_input = on;
}

void SdlPlayerWindow::set_chat(bool on) {
    m_overlay.set_chat_on(on);
    if (!on && m_overlay.chat().typing()) {
        m_overlay.chat().close_line();
        set_text_input(false);
    }
}

bool SdlPlayerWindow::chat_event(const SDL_Event& event) {
    ChatPanel& chat = m_overlay.chat();
    if (event.type == SDL_TEXTINPUT) {
        chat.type(event.text.text);
        return true;
    }
    if (event.type == SDL_KEYUP) return true;
    if (event.type != SDL_KEYDOWN) return false;  // controllers, the window: as ever
    switch (event.key.keysym.scancode) {
        case SDL_SCANCODE_RETURN:
        case SDL_SCANCODE_KP_ENTER:
            if (auto line = chat.submit()) m_chat_out.push_back(std::move(*line));
            set_text_input(false);
            return true;
        case SDL_SCANCODE_ESCAPE:
            chat.close_line();
            set_text_input(false);
            return true;
        case SDL_SCANCODE_BACKSPACE:
            chat.backspace();
            return true;
        case SDL_SCANCODE_PAGEUP:
            chat.scroll(static_cast<int>(ChatPanel::kHistoryRows) - 1);
            return true;
        case SDL_SCANCODE_PAGEDOWN:
            chat.scroll(-(static_cast<int>(ChatPanel::kHistoryRows) - 1));
            return true;
        default:
            break;
    }
    // Letters are text (they arrive as SDL_TEXTINPUT); of the hotkeys, fullscreen and
    // screenshot still act while typing, when their key types nothing (F11, F12).
    const SDL_Keycode key = event.key.keysym.sym;
    if (key >= 0x20 && key < 0x7f) return true;
    const HotkeyAction action =
        hotkey_for(m_config.settings.hotkeys, static_cast<KeyCode>(event.key.keysym.scancode));
    return action != HotkeyAction::kFullscreen && action != HotkeyAction::kScreenshot;
}

bool SdlPlayerWindow::viewer_event(const SDL_Event& event) {
    switch (event.type) {
        case SDL_KEYDOWN: {
            const auto input =
                viewer_input_for_key(static_cast<KeyCode>(event.key.keysym.scancode));
            if (input && (!event.key.repeat || viewer_key_repeats(input->command)))
                m_viewer_inputs.push_back(*input);
            return true;  // no key plays a pad in the viewer
        }
        case SDL_KEYUP:
            return true;
        case SDL_CONTROLLERBUTTONDOWN: {
            if (event.cbutton.button >= static_cast<int>(PadControl::kButtonCount)) return true;
            const auto input = viewer_input_for_pad(static_cast<PadControl>(event.cbutton.button));
            if (input) m_viewer_inputs.push_back(*input);
            return true;
        }
        case SDL_CONTROLLERBUTTONUP:
            return true;
        case SDL_MOUSEBUTTONDOWN:
        case SDL_MOUSEMOTION: {
            // A click on the bar, or a drag along it with the left button held: that moment.
            const bool held = event.type == SDL_MOUSEBUTTONDOWN
                                  ? event.button.button == SDL_BUTTON_LEFT
                                  : (event.motion.state & SDL_BUTTON_LMASK) != 0;
            const auto& bar = m_overlay_renderer->timeline();
            if (!held || !bar || bar->w <= 0) return true;
            // Window coordinates to the renderer's pixels (a HiDPI window has more of them).
            int win_w = 0, win_h = 0;
            SDL_GetWindowSize(m_video->window(), &win_w, &win_h);
            const auto [out_w, out_h] = m_video->output_size();
            const int mx = event.type == SDL_MOUSEBUTTONDOWN ? event.button.x : event.motion.x;
            const int my = event.type == SDL_MOUSEBUTTONDOWN ? event.button.y : event.motion.y;
            const double x = win_w > 0 ? mx * static_cast<double>(out_w) / win_w : mx;
            const double y = win_h > 0 ? my * static_cast<double>(out_h) / win_h : my;
            constexpr int kSlop = 6;  // a bar a few pixels high is hard to hit exactly
            if (y < bar->y - kSlop || y > bar->y + bar->h + kSlop) return true;
            m_viewer_inputs.push_back(
                {ViewerCommand::kSeekTo, std::clamp((x - bar->x) / bar->w, 0.0, 1.0)});
            return true;
        }
        default:
            // Device and window events go on to their usual handlers.
            return false;
    }
}

std::vector<MenuEvent> SdlPlayerWindow::take_menu_events() {
    return std::exchange(m_menu_events, {});
}

bool menu_event_for(const SDL_Event& event, bool text_input, std::vector<MenuEvent>& out) {
    const auto push = [&](BrowserKey key, std::string text = {}) {
        out.push_back({key, std::move(text)});
        return true;
    };
    switch (event.type) {
        case SDL_KEYDOWN: {
            const SDL_Scancode scancode = event.key.keysym.scancode;
            const auto* menu_key =
                std::find_if(std::begin(kMenuKeys), std::end(kMenuKeys),
                             [&](const MenuKey& k) { return k.scancode == scancode; });
            // Other keys are letters while typing (R among them: it arrives as
            // SDL_TEXTINPUT), else the hotkeys (fullscreen, screenshot) still work over the menu.
            if (menu_key == std::end(kMenuKeys) || (text_input && scancode == SDL_SCANCODE_R))
                return text_input;
            if (event.key.repeat && !menu_key->repeats) return true;
            return push(menu_key->key);
        }
        case SDL_KEYUP:
            return text_input;
        case SDL_TEXTINPUT:
            if (!text_input) return true;
            return push(BrowserKey::kText, event.text.text);
        case SDL_CONTROLLERBUTTONDOWN:
            for (const auto& [button, key] : kMenuButtons) {
                if (event.cbutton.button == button) return push(key);
            }
            return true;
        default:
            // Device and window events go on to their usual handlers.
            return false;
    }
}

void SdlPlayerWindow::hotkey_screenshot(netplay::Micros now) {
    std::string dir = m_config.screenshot_dir.empty() ? "." : m_config.screenshot_dir;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string path =
        fmt::format("{}/framelock-{}-{}.png", dir, timestamp_name(), ++m_screenshots);
    capture_next_show(path);
    m_overlay.messages().post("screenshot: " + path, Tone::kNormal, now, kNoticeUs);
}

void SdlPlayerWindow::draw(netplay::Micros now) {
    m_last_now = now;
    m_video->draw_picture();
    const auto [w, h] = m_video->output_size();
    m_overlay_renderer->draw(m_overlay, now, w, h);
    if (!m_captures.empty()) {
        auto image = m_video->read_window();
        // What the chat's rows say, beside their pixels: a screenshot of a chat can be read
        // back (the tests, a bug report).
        if (image && m_overlay.chat_on()) {
            std::string rows;
            for (const auto& row : m_overlay.chat().rows(now)) rows += row.text + "\n";
            image.value().text.emplace_back(kChatTextKey, rows);
        }
        if (image && m_overlay.replay() && m_overlay.visible()) {
            std::string rows;
            for (const auto& row : m_overlay.replay()->lines) rows += row.text + "\n";
            image.value().text.emplace_back(kReplayTextKey, rows);
        }
        for (const auto& path : m_captures) {
            Status written = image ? write_png(path, image.value()) : Status(image.error());
            if (written) {
                log_info("window picture written to {}", path);
            } else {
                log_error("{}", written.error().message);
                if (m_capture_status) m_capture_status = written;
            }
        }
        m_captures.clear();
    }
    // Hand the drawing to the renderer now, so present() only has to show it.
    m_video->finish();
}

void SdlPlayerWindow::set_geometry(unsigned base_width, unsigned base_height, double aspect) {
    m_video->set_geometry(base_width, base_height, aspect);
}

std::optional<AudioReport> SdlPlayerWindow::audio_report() const {
    if (!m_audio) return std::nullopt;
    return m_audio->report();
}

std::string SdlPlayerWindow::describe() const {
    std::string text = m_video->describe();
    if (m_audio) {
        const AudioReport a = m_audio->report();
        text += fmt::format("; {} sound at {} Hz, {}-frame device buffer, {:.0f} ms queue",
                            a.driver, a.device_rate, a.device_buffer_frames, a.target_fill_ms);
    } else {
        text += "; no sound";
    }
    return text;
}

}  // namespace framelock::frontend
