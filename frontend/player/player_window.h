// The player's window, speakers and pads around a running core, as the run and netplay
// loops see them. frontend/player/sdl implements it with SDL2 (FRAMELOCK_SDL=ON); without SDL,
// open_player_window() says so and display_available() is false. Headless runs use
// HeadlessVideo/HeadlessAudio and scripts instead.
//
// Threading: everything on the thread that opened it (SDL's event and video calls must
// stay on one thread); only the sound device runs on its own.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/host/io.h"
#include "frontend/player/overlay_model.h"
#include "frontend/player/player_settings.h"
#include "frontend/player/room_browser_model.h"
#include "frontend/player/viewer_keys.h"
#include "netplay/base/result.h"
#include "netplay/interfaces/clock.h"

namespace framelock::frontend {

// What --video and --audio ask for.
enum class VideoMode { kAuto, kSdl, kNone };
enum class AudioMode { kAuto, kSdl, kNone };

struct PlayerWindowConfig {
    PlayerSettings settings;
    std::string title = "framelock";
    // The core's picture and sound (retro_system_av_info) at the start.
    unsigned base_width = 320, base_height = 240;
    double aspect = 0;  // retro_game_geometry::aspect_ratio (<= 0: square pixels)
    double sample_rate = 48000;
    bool audio = true;            // open a sound device ...
    bool audio_required = false;  // ... and fail without one (else: warn, play silent)
    std::string screenshot_dir;   // where the screenshot hotkey writes; created on demand
};

// A key for a menu (the room browser) rather than for the game.
struct MenuEvent {
    BrowserKey key = BrowserKey::kUp;
    std::string text;  // BrowserKey::kText: what was typed (UTF-8)
};

// How the sound went, for the console and the benchmarks.
struct AudioReport {
    std::string driver;
    int device_rate = 0;
    int device_buffer_frames = 0;
    double target_fill_ms = 0;
    std::uint64_t frames_played = 0;
    std::uint64_t underruns = 0, underruns_after_warmup = 0;
    std::uint64_t frames_dropped = 0;
    double fill_mean_ms = 0, fill_min_ms = 0, fill_max_ms = 0, fill_stddev_ms = 0;
    double ratio_factor = 1;
};

class PlayerWindow {
  public:
    virtual ~PlayerWindow() = default;

    // The sinks and the local pads the emulator uses; owned by the window.
    virtual VideoSink& video() = 0;
    virtual AudioSink* audio() = 0;  // nullptr when there is no sound device
    // Ports 1..8 from the keyboard and controllers, per the bindings. input_for(f) returns
    // what is held plus anything pressed since the last call for an earlier frame, so a
    // tap shorter than a frame always lands in one.
    virtual InputSource& input() = 0;

    // Handles pending window, keyboard and controller events (pads, hotkeys, resizing,
    // hot-plugging). Never blocks.
    virtual void pump_events() = 0;
    virtual bool quit_requested() const = 0;
    // The frame pumped events are about to be sampled for (logged with key events).
    virtual void set_next_frame(std::uint64_t frame) = 0;

    // A picture arrived since the last show().
    virtual bool picture_pending() const = 0;
    // Draws the latest picture, then the overlay, messages and progress bar, without
    // showing it yet. When a capture was asked for, the drawn window is saved.
    virtual void draw(netplay::Micros now) = 0;
    // Shows what draw() drew.
    virtual void present() = 0;
    void show(netplay::Micros now) {
        draw(now);
        present();
    }
    // Saves what the next show() draws (the whole window) as a PNG at `path`.
    virtual void capture_next_show(const std::string& path) = 0;
    // Whether the captures asked for were written; the first failure otherwise.
    virtual Status capture_status() const = 0;

    // The core changed its picture size or aspect (SET_GEOMETRY / SET_SYSTEM_AV_INFO).
    virtual void set_geometry(unsigned base_width, unsigned base_height, double aspect) = 0;
    // The core changed its sample rate (SET_SYSTEM_AV_INFO).
    virtual void set_sample_rate(double rate) = 0;

    virtual OverlayModel& overlay() = 0;

    // Menu mode: pump_events() turns the arrows, Enter, Esc, Backspace, R and the pads'
    // D-pad, A, B and Y into MenuEvents (Esc then leaves the menu instead of quitting), and
    // typed text too while `text_input` is on. Off again before a game runs in the window.
    // Windows without menus (none yet besides SDL's) never produce events.
    virtual void set_menu_mode(bool on, bool text_input) {
        (void)on;
        (void)text_input;
    }
    virtual std::vector<MenuEvent> take_menu_events() { return {}; }
    // Chat (the overlay's ChatPanel): once on, the chat key opens the chat line, and while it
    // is open the keyboard types into it (Enter sends, Escape closes, Page Up and Page Down
    // scroll the history) instead of pressing buttons; controllers still play. The lines the
    // player sent since the last call. Windows without a keyboard never produce any.
    virtual void set_chat(bool on) { (void)on; }
    virtual std::vector<std::string> take_chat_lines() { return {}; }
    // Viewer mode (the replay viewer): pump_events() turns the viewer's keys and controller
    // buttons (viewer_keys.h) and a click on the replay panel's bar into ViewerInputs instead
    // of pads; the hotkeys (quit, fullscreen, screenshot, overlay) keep theirs. The inputs
    // since the last call. Windows without a keyboard never produce any.
    virtual void set_viewer_mode(bool on) { (void)on; }
    virtual std::vector<ViewerInput> take_viewer_inputs() { return {}; }
    // A new window title (the room browser's window becomes the game's).
    virtual void set_title(const std::string& title) { (void)title; }
    virtual std::optional<AudioReport> audio_report() const = 0;
    // "x11, renderer opengl, window 960x672" for the log.
    virtual std::string describe() const = 0;
};

// The text a window's screenshot carries (Image::text) under this keyword: the chat's rows as
// the window drew them, one a line ("" when none showed).
inline constexpr const char* kChatTextKey = "framelock:chat";
// ... and the replay viewer's panel, its lines as drawn (none when it was hidden).
inline constexpr const char* kReplayTextKey = "framelock:replay";

// True when a window can be opened: $DISPLAY or $WAYLAND_DISPLAY is set and SDL's video
// starts on it. Otherwise false with the reason in *why (if given).
bool display_available(std::string* why);

// Opens the window (and the sound device when config.audio). kUsage error naming what is
// missing when there is no display or SDL was not built in.
Result<std::unique_ptr<PlayerWindow>> open_player_window(const PlayerWindowConfig& config);

}  // namespace framelock::frontend
