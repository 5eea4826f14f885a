// The player's window: an SDL window and renderer showing the core's picture in any of the
// three libretro pixel formats (16-bit ones widened like every screenshot), aspect-correct
// (frontend/player/viewport.h), nearest-neighbour or smooth, optionally at whole multiples,
// windowed or fullscreen. No vsync: the frame pacer or the netplay timeline decides when a frame is
// shown, not the monitor.
#pragma once

#include <SDL.h>

#include <memory>
#include <string>

#include "frontend/host/image.h"
#include "frontend/host/io.h"
#include "frontend/player/player_settings.h"
#include "frontend/player/viewport.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

class SdlVideo final : public VideoSink {
  public:
    // Needs SDL's video subsystem initialised. The window starts at settings.scale times
    // the picture's height; kUsage error with SDL's message when it cannot be created.
    static Result<std::unique_ptr<SdlVideo>> create(const std::string& title,
                                                    const VideoSettings& settings,
                                                    unsigned base_width, unsigned base_height,
                                                    double aspect);
    ~SdlVideo() override;
    SdlVideo(const SdlVideo&) = delete;
    SdlVideo& operator=(const SdlVideo&) = delete;

    // VideoSink: uploads the picture to the texture (a dupe keeps the last one).
    void present(const VideoFrame& frame) override;

    bool picture_pending() const { return m_pending; }
    // Clears the window and draws the latest picture into its viewport.
    void draw_picture();
    // Finishes what was drawn (on an OpenGL renderer: the GPU work too), so flip() only
    // has to show it.
    void finish();
    // Shows what was drawn.
    void flip();
    // The drawn window as RGB pixels (before flip()).
    Result<Image> read_window();

    void set_geometry(unsigned base_width, unsigned base_height, double aspect);
    void toggle_fullscreen();
    bool fullscreen() const { return m_fullscreen; }

    SDL_Renderer* renderer() const { return m_renderer; }
    SDL_Window* window() const { return m_window; }
    // The window's drawable size in pixels, and where the picture goes in it.
    std::pair<int, int> output_size() const;
    Rect picture_rect() const;
    std::string describe() const;

  private:
    explicit SdlVideo(const VideoSettings& settings) : m_settings(settings) {}

    VideoSettings m_settings;
    SDL_Window* m_window = nullptr;
    SDL_Renderer* m_renderer = nullptr;
    SDL_Texture* m_texture = nullptr;
    unsigned m_tex_w = 0, m_tex_h = 0;  // the texture is always XRGB8888
    Image m_converted;                  // a 16-bit picture, widened
    unsigned m_pic_w = 0, m_pic_h = 0;  // the latest picture's size
    double m_aspect = 0;                // geometry aspect (<= 0: square pixels)
    bool m_pending = false;
    bool m_fullscreen = false;
    int m_windowed_w = 0, m_windowed_h = 0;  // the size to return to from fullscreen
    void (*m_gl_finish)() = nullptr;         // glFinish, with an OpenGL renderer
};

}  // namespace framelock::frontend
