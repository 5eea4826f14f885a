#include "frontend/player/sdl/sdl_video.h"

#include <dlfcn.h>
#include <fmt/core.h>
#include <link.h>

#include <cstring>

#include "common/log.h"

namespace framelock::frontend {
namespace {

// The aspect the picture is shown at: the setting's, else the core's.
double shown_aspect(const VideoSettings& settings, double core_aspect) {
    if (settings.aspect > 0) return settings.aspect;
    if (settings.aspect < 0) return 0;  // square pixels
    return core_aspect;
}

// Mesa's OpenGL drivers (.../dri/*_dri.so) are loaded by libGL and unloaded with the last
// context, leaving what they allocated without an owner and LeakSanitizer without a name
// for the code that did it. Pinned (RTLD_NODELETE) they stay mapped until the process
// ends, as they would in any process that keeps a window: nothing changes for a player,
// and the sanitizer build sees the driver's memory as still referenced.
void pin_gl_drivers() {
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void*) {
            if (info->dlpi_name && std::strstr(info->dlpi_name, "/dri/"))
                dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
            return 0;
        },
        nullptr);
}

}  // namespace

Result<std::unique_ptr<SdlVideo>> SdlVideo::create(const std::string& title,
                                                   const VideoSettings& settings,
                                                   unsigned base_width, unsigned base_height,
                                                   double aspect) {
    std::unique_ptr<SdlVideo> video(new SdlVideo(settings));
    video->m_pic_w = base_width;
    video->m_pic_h = base_height;
    video->m_aspect = shown_aspect(settings, aspect);
    const auto [w, h] =
        window_size_for(base_width, base_height,
                        display_aspect(base_width, base_height, video->m_aspect), settings.scale);
    Uint32 flags = SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI;
    int create_w = w, create_h = h;
    SDL_DisplayMode desktop{};
    if (settings.fullscreen && SDL_GetDesktopDisplayMode(0, &desktop) == 0) {
        // Created at the desktop's size straight away: Mesa's software OpenGL (Xvfb, no
        // window manager) keeps drawing into a buffer of a window's first size.
        flags |= SDL_WINDOW_FULLSCREEN_DESKTOP;
        create_w = desktop.w;
        create_h = desktop.h;
        video->m_fullscreen = true;
    }
    video->m_window = SDL_CreateWindow(title.c_str(), SDL_WINDOWPOS_CENTERED,
                                       SDL_WINDOWPOS_CENTERED, create_w, create_h, flags);
    if (!video->m_window)
        return make_error(ErrorCode::kUsage,
                          std::string("cannot open a window: ") + SDL_GetError());
    // The texture filter is read when a texture is created.
    SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, settings.smooth ? "linear" : "nearest");
    // Frames are paced by the core's clock, never by the monitor's.
    SDL_SetHint(SDL_HINT_RENDER_VSYNC, "0");
    video->m_renderer = SDL_CreateRenderer(video->m_window, -1, 0);
    if (!video->m_renderer) {
        // No accelerated renderer (no GL driver): SDL's software one always works.
        video->m_renderer = SDL_CreateRenderer(video->m_window, -1, SDL_RENDERER_SOFTWARE);
    }
    if (!video->m_renderer)
        return make_error(ErrorCode::kUsage,
                          std::string("cannot draw in the window: ") + SDL_GetError());
    pin_gl_drivers();
    SDL_RendererInfo info{};
    if (SDL_GetRendererInfo(video->m_renderer, &info) == 0 && info.name &&
        std::strcmp(info.name, "opengl") == 0) {
        video->m_gl_finish = reinterpret_cast<void (*)()>(SDL_GL_GetProcAddress("glFinish"));
    }
    SDL_SetRenderDrawColor(video->m_renderer, 0, 0, 0, 255);
    SDL_RenderClear(video->m_renderer);
    SDL_RenderPresent(video->m_renderer);
    return video;
}

SdlVideo::~SdlVideo() {
    if (m_texture) SDL_DestroyTexture(m_texture);
    if (m_renderer) SDL_DestroyRenderer(m_renderer);
    if (m_window) SDL_DestroyWindow(m_window);
}

void SdlVideo::present(const VideoFrame& frame) {
    if (!frame.data || frame.width == 0 || frame.height == 0) {
        m_pending = m_texture != nullptr;  // a dupe: show the same picture again
        return;
    }
    // 16-bit pictures are widened here, by the same rule as screenshots and reports
    // (frontend/host/image.h: the high bits repeated), not by whatever the renderer does: the
    // window then shows exactly the colours every PNG of the same frame has.
    const void* pixels = frame.data;
    int pitch = static_cast<int>(frame.pitch);
    if (frame.format != PixelFormat::kXRGB8888) {
        m_converted = to_image(frame);
        pixels = m_converted.pixels.data();
        pitch = static_cast<int>(frame.width * 4);
    }
    if (!m_texture || frame.width != m_tex_w || frame.height != m_tex_h) {
        if (m_texture) SDL_DestroyTexture(m_texture);
        m_texture =
            SDL_CreateTexture(m_renderer, SDL_PIXELFORMAT_RGB888, SDL_TEXTUREACCESS_STREAMING,
                              static_cast<int>(frame.width), static_cast<int>(frame.height));
        if (!m_texture) {
            log_error("cannot create a {}x{} texture: {}", frame.width, frame.height,
                      SDL_GetError());
            m_tex_w = m_tex_h = 0;
            return;
        }
        m_tex_w = frame.width;
        m_tex_h = frame.height;
    }
    SDL_UpdateTexture(m_texture, nullptr, pixels, pitch);
    m_pic_w = frame.width;
    m_pic_h = frame.height;
    m_pending = true;
}

std::pair<int, int> SdlVideo::output_size() const {
    int w = 0, h = 0;
    SDL_GetRendererOutputSize(m_renderer, &w, &h);
    return {w, h};
}

Rect SdlVideo::picture_rect() const {
    const auto [w, h] = output_size();
    return fit_picture(w, h, m_pic_w, m_pic_h, display_aspect(m_pic_w, m_pic_h, m_aspect),
                       m_settings.integer_scale);
}

void SdlVideo::draw_picture() {
    SDL_SetRenderDrawColor(m_renderer, 0, 0, 0, 255);
    SDL_RenderClear(m_renderer);
    if (m_texture) {
        const Rect r = picture_rect();
        const SDL_Rect dst{r.x, r.y, r.w, r.h};
        SDL_RenderCopy(m_renderer, m_texture, nullptr, &dst);
    }
    m_pending = false;
}

void SdlVideo::finish() {
    SDL_RenderFlush(m_renderer);
    // A software OpenGL (Mesa's llvmpipe) rasterises only when made to: here, ahead of the
    // frame's due time, instead of inside the present call at the due time.
    if (m_gl_finish) m_gl_finish();
}

void SdlVideo::flip() {
    SDL_RenderPresent(m_renderer);
}

Result<Image> SdlVideo::read_window() {
    const auto [w, h] = output_size();
    Image image{static_cast<unsigned>(w), static_cast<unsigned>(h), {}};
    image.pixels.resize(static_cast<std::size_t>(w) * h);
    if (SDL_RenderReadPixels(m_renderer, nullptr, SDL_PIXELFORMAT_RGB888, image.pixels.data(),
                             w * 4) != 0) {
        return make_error(ErrorCode::kIo,
                          std::string("cannot read the window's pixels: ") + SDL_GetError());
    }
    for (auto& p : image.pixels) p &= 0xffffff;
    return image;
}

void SdlVideo::set_geometry(unsigned base_width, unsigned base_height, double aspect) {
    m_aspect = shown_aspect(m_settings, aspect);
    if (!m_texture) {
        m_pic_w = base_width;
        m_pic_h = base_height;
    }
}

void SdlVideo::toggle_fullscreen() {
    if (!m_fullscreen) SDL_GetWindowSize(m_window, &m_windowed_w, &m_windowed_h);
    m_fullscreen = !m_fullscreen;
    if (SDL_SetWindowFullscreen(m_window, m_fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0) != 0) {
        log_warn("cannot switch fullscreen: {}", SDL_GetError());
        m_fullscreen = !m_fullscreen;
        return;
    }
    // Without a window manager (a kiosk, Xvfb) nothing restores the windowed size.
    if (!m_fullscreen && m_windowed_w > 0) SDL_SetWindowSize(m_window, m_windowed_w, m_windowed_h);
}

std::string SdlVideo::describe() const {
    SDL_RendererInfo info{};
    SDL_GetRendererInfo(m_renderer, &info);
    const auto [w, h] = output_size();
    return fmt::format("{} video, {} renderer, window {}x{}{}", SDL_GetCurrentVideoDriver(),
                       info.name ? info.name : "?", w, h, m_fullscreen ? " (fullscreen)" : "");
}

}  // namespace framelock::frontend
