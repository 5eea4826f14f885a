// Draws an OverlayModel over the game picture with SDL's renderer: the netplay panel with
// its RTT/delay graph, on-screen messages and the progress bar. Text comes from a TrueType
// font (SDL_ttf, DejaVu Sans Mono by default) at its own pixel size whatever the window's
// scale, so it stays readable over a 1x picture.
#pragma once

#include <SDL.h>
#include <SDL_ttf.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "frontend/player/overlay_model.h"
#include "frontend/player/player_settings.h"

namespace framelock::frontend {

// Debian's fonts-dejavu-core.
inline constexpr const char* kDefaultFont = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf";

class SdlOverlay {
  public:
    // Never fails: without a usable font it warns once and draws no text (the panel, graph
    // and bars still show).
    SdlOverlay(SDL_Renderer* renderer, const VideoSettings& settings);
    ~SdlOverlay();
    SdlOverlay(const SdlOverlay&) = delete;
    SdlOverlay& operator=(const SdlOverlay&) = delete;

    void draw(const OverlayModel& model, netplay::Micros now, int win_w, int win_h);
    bool has_font() const { return m_font != nullptr; }
    // The replay panel's bar as last drawn (a click on it seeks), nullopt when none was.
    const std::optional<Rect>& timeline() const { return m_timeline; }

  private:
    struct Text {
        SDL_Texture* texture = nullptr;
        int w = 0, h = 0;
    };
    const Text* text(const std::string& text, Tone tone);
    int draw_text(const std::string& text, Tone tone, int x, int y);  // returns the width
    void fill(const Rect& r, SDL_Color color);
    void draw_panel(const OverlayModel& model, const OverlayLayout& layout,
                    const std::vector<OverlayLine>& lines);
    void draw_menu(const OverlayModel::Menu& menu, int win_w, int win_h);
    void draw_replay(const ReplayPanel& replay, const OverlayLayout& layout);
    void draw_progress(const Progress& progress, const OverlayLayout& layout, netplay::Micros now);

    SDL_Renderer* m_renderer;
    TTF_Font* m_font = nullptr;
    bool m_ttf_started = false;
    int m_line_h = 16, m_char_w = 8;
    std::optional<Rect> m_timeline;
    std::map<std::pair<std::string, Tone>, Text> m_cache;
};

}  // namespace framelock::frontend
