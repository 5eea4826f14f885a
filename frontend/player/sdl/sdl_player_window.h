// PlayerWindow with SDL2: one window (SdlVideo) with the overlay (SdlOverlay) drawn over
// the picture, the sound device (SdlAudio), the keyboard and controllers (SdlInput), and
// the hotkeys: fullscreen, screenshot (PNG of the window), overlay on/off, quit, and in a
// netplay session the chat line (T).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/player/player_window.h"
#include "frontend/player/sdl/sdl_audio.h"
#include "frontend/player/sdl/sdl_input.h"
#include "frontend/player/sdl/sdl_overlay.h"
#include "frontend/player/sdl/sdl_video.h"

namespace framelock::frontend {

// SDL_Init for the subsystems asked for, SDL_QuitSubSystem when done. SDL's own signal
// handlers stay off: SIGINT/SIGTERM belong to framelock's stop_signal.
class SdlSubsystems {
  public:
    explicit SdlSubsystems(Uint32 flags);
    ~SdlSubsystems();
    SdlSubsystems(const SdlSubsystems&) = delete;
    SdlSubsystems& operator=(const SdlSubsystems&) = delete;
    bool ok() const { return m_ok; }
    const std::string& error() const { return m_error; }

  private:
    Uint32 m_flags;
    bool m_ok = false;
    std::string m_error;
};

// Menu mode's keys: appends to `out` the menu key `event` is (keyboard or controller,
// typed text while `text_input`), and returns true when the event is the menu's (then it
// goes nowhere else: not to the pads, not to the hotkeys).
bool menu_event_for(const SDL_Event& event, bool text_input, std::vector<MenuEvent>& out);

class SdlPlayerWindow final : public PlayerWindow {
  public:
    static Result<std::unique_ptr<SdlPlayerWindow>> open(const PlayerWindowConfig& config);
    ~SdlPlayerWindow() override;

    VideoSink& video() override { return *m_video; }
    AudioSink* audio() override { return m_audio.get(); }
    InputSource& input() override { return *m_input; }
    void pump_events() override;
    bool quit_requested() const override { return m_quit; }
    void set_next_frame(std::uint64_t frame) override { m_next_frame = frame; }
    bool picture_pending() const override { return m_video->picture_pending(); }
    void draw(netplay::Micros now) override;
    void present() override { m_video->flip(); }
    void capture_next_show(const std::string& path) override { m_captures.push_back(path); }
    Status capture_status() const override { return m_capture_status; }
    void set_geometry(unsigned base_width, unsigned base_height, double aspect) override;
    void set_sample_rate(double rate) override {
        if (m_audio) m_audio->set_core_rate(rate);
    }
    OverlayModel& overlay() override { return m_overlay; }
    void set_menu_mode(bool on, bool text_input) override;
    std::vector<MenuEvent> take_menu_events() override;
    void set_chat(bool on) override;
    std::vector<std::string> take_chat_lines() override { return std::exchange(m_chat_out, {}); }
    void set_viewer_mode(bool on) override { m_viewer_mode = on; }
    std::vector<ViewerInput> take_viewer_inputs() override {
        return std::exchange(m_viewer_inputs, {});
    }
    void set_title(const std::string& title) override {
        SDL_SetWindowTitle(m_video->window(), title.c_str());
    }
    std::optional<AudioReport> audio_report() const override;
    std::string describe() const override;

    SdlInput& sdl_input() { return *m_input; }
    SdlVideo& sdl_video() { return *m_video; }

  private:
    explicit SdlPlayerWindow(const PlayerWindowConfig& config);
    void hotkey_screenshot(netplay::Micros now);
    // While the chat line is open: the keyboard's and text events go to it (true: taken).
    bool chat_event(const SDL_Event& event);
    // Viewer mode: true when `event` was the viewer's (a key, a button, a click on the bar).
    bool viewer_event(const SDL_Event& event);
    void set_text_input(bool on);

    PlayerWindowConfig m_config;
    std::unique_ptr<SdlSubsystems> m_sdl;  // first in, last out
    std::unique_ptr<SdlSubsystems> m_sdl_audio;
    std::unique_ptr<SdlVideo> m_video;
    std::unique_ptr<SdlOverlay> m_overlay_renderer;
    std::unique_ptr<SdlAudio> m_audio;
    std::unique_ptr<SdlInput> m_input;
    OverlayModel m_overlay;
    bool m_quit = false;
    std::uint64_t m_next_frame = 0;
    std::vector<std::string> m_captures;
    Status m_capture_status;
    int m_screenshots = 0;
    netplay::Micros m_last_now = 0;
    bool m_menu_mode = false, m_text_input = false;
    std::vector<MenuEvent> m_menu_events;
    std::vector<std::string> m_chat_out;  // lines sent with Enter, not yet taken
    bool m_viewer_mode = false;
    std::vector<ViewerInput> m_viewer_inputs;  // not yet taken
};

}  // namespace framelock::frontend
