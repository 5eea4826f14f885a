#include "frontend/player/sdl/sdl_overlay.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "common/log.h"

namespace framelock::frontend {
namespace {

constexpr std::size_t kTextCacheLimit = 256;
constexpr SDL_Color kPanel{0, 0, 0, 176};
constexpr SDL_Color kGraphBack{24, 24, 32, 220};
constexpr SDL_Color kGrid{80, 80, 96, 255};
constexpr SDL_Color kRttColor{90, 200, 255, 255};
constexpr SDL_Color kDelayColor{250, 210, 80, 255};
constexpr SDL_Color kBarBack{40, 40, 48, 230};
constexpr SDL_Color kBarFill{90, 200, 255, 255};
constexpr SDL_Color kMenuBack{16, 18, 28, 255};
constexpr SDL_Color kMenuHighlight{40, 60, 90, 255};
constexpr SDL_Color kChatBack{12, 12, 20, 255};

SDL_Color tone_color(Tone tone) {
    switch (tone) {
        case Tone::kNormal:
            return {235, 235, 235, 255};
        case Tone::kGood:
            return {130, 230, 130, 255};
        case Tone::kWarning:
            return {250, 210, 80, 255};
        case Tone::kError:
            return {255, 96, 96, 255};
        case Tone::kDim:
            return {170, 170, 170, 255};
    }
    return {255, 255, 255, 255};
}

}  // namespace

SdlOverlay::SdlOverlay(SDL_Renderer* renderer, const VideoSettings& settings)
    : m_renderer(renderer) {
    if (TTF_Init() != 0) {
        log_warn("overlay: no text (SDL_ttf: {})", TTF_GetError());
        return;
    }
    m_ttf_started = true;
    const std::string path = settings.font.empty() ? kDefaultFont : settings.font;
    m_font = TTF_OpenFont(path.c_str(), settings.font_size);
    if (!m_font) {
        log_warn(
            "overlay: no text: cannot open font '{}' ({}); install fonts-dejavu-core or set "
            "video.font",
            path, TTF_GetError());
        return;
    }
    // Grey-level antialiasing without hinting tricks: crisp at small sizes.
    TTF_SetFontHinting(m_font, TTF_HINTING_LIGHT);
    m_line_h = TTF_FontLineSkip(m_font);
    int w = 0, h = 0;
    if (TTF_SizeUTF8(m_font, "M", &w, &h) == 0 && w > 0) m_char_w = w;
}

SdlOverlay::~SdlOverlay() {
    for (auto& [key, text] : m_cache) SDL_DestroyTexture(text.texture);
    if (m_font) TTF_CloseFont(m_font);
    if (m_ttf_started) TTF_Quit();
}

const SdlOverlay::Text* SdlOverlay::text(const std::string& text, Tone tone) {
    if (!m_font || text.empty()) return nullptr;
    const auto key = std::make_pair(text, tone);
    if (const auto it = m_cache.find(key); it != m_cache.end()) return &it->second;
    if (m_cache.size() >= kTextCacheLimit) {
        for (auto& [k, t] : m_cache) SDL_DestroyTexture(t.texture);
        m_cache.clear();
    }
    SDL_Surface* surface = TTF_RenderUTF8_Blended(m_font, text.c_str(), tone_color(tone));
    if (!surface) return nullptr;
    Text made;
    made.texture = SDL_CreateTextureFromSurface(m_renderer, surface);
    made.w = surface->w;
    made.h = surface->h;
    SDL_FreeSurface(surface);
    if (!made.texture) return nullptr;
    return &m_cache.emplace(key, made).first->second;
}

int SdlOverlay::draw_text(const std::string& line, Tone tone, int x, int y) {
    const Text* t = text(line, tone);
    if (!t) return 0;
    const SDL_Rect dst{x, y, t->w, t->h};
    SDL_RenderCopy(m_renderer, t->texture, nullptr, &dst);
    return t->w;
}

void SdlOverlay::fill(const Rect& r, SDL_Color c) {
    SDL_SetRenderDrawColor(m_renderer, c.r, c.g, c.b, c.a);
    const SDL_Rect rect{r.x, r.y, r.w, r.h};
    SDL_RenderFillRect(m_renderer, &rect);
}

void SdlOverlay::draw_panel(const OverlayModel& model, const OverlayLayout& layout,
                            const std::vector<OverlayLine>& lines) {
    fill(layout.panel, kPanel);
    for (std::size_t i = 0; i < lines.size(); ++i)
        draw_text(lines[i].text, lines[i].tone, layout.lines[i].x, layout.lines[i].y);

    // Legend: which colour is which, and the scale.
    const double top = model.graph_top();
    int x = layout.graph_legend.x;
    x += draw_text("rtt", Tone::kNormal, x, layout.graph_legend.y);
    fill({x + 4, layout.graph_legend.y + m_line_h / 2 - 1, 14, 3}, kRttColor);
    x += 24;
    x += draw_text("delay", Tone::kNormal, x, layout.graph_legend.y);
    fill({x + 4, layout.graph_legend.y + m_line_h / 2 - 1, 14, 3}, kDelayColor);
    x += 24;
    draw_text(fmt::format("0-{:.0f} ms, last 60 s", top), Tone::kDim, x, layout.graph_legend.y);

    const Rect& g = layout.graph;
    fill(g, kGraphBack);
    SDL_SetRenderDrawColor(m_renderer, kGrid.r, kGrid.g, kGrid.b, kGrid.a);
    for (int q = 1; q < 4; ++q) {
        const int y = g.y + g.h * q / 4;
        SDL_RenderDrawLine(m_renderer, g.x, y, g.x + g.w - 1, y);
    }
    const std::pair<const GraphSeries*, SDL_Color> series[] = {{&model.delay_ms(), kDelayColor},
                                                               {&model.rtt_ms(), kRttColor}};
    for (const auto& [data, color] : series) {
        const auto points = graph_points(*data, g, top);
        if (points.size() < 2) continue;
        std::vector<SDL_Point> sdl_points;
        for (const auto& p : points) sdl_points.push_back({p.x, p.y});
        SDL_SetRenderDrawColor(m_renderer, color.r, color.g, color.b, color.a);
        SDL_RenderDrawLines(m_renderer, sdl_points.data(), static_cast<int>(sdl_points.size()));
        // Twice as thick: one pixel lines vanish on a busy picture.
        for (auto& p : sdl_points) p.y = std::max(g.y, p.y - 1);
        SDL_RenderDrawLines(m_renderer, sdl_points.data(), static_cast<int>(sdl_points.size()));
    }
}

void SdlOverlay::draw_progress(const Progress& progress, const OverlayLayout& layout,
                               netplay::Micros now) {
    const Rect& bar = layout.progress_bar;
    const Text* label = text(progress.label, Tone::kNormal);
    const int label_w = label ? label->w : 0;
    const int box_w = std::max(bar.w, label_w) + 16;
    fill({bar.x + bar.w / 2 - box_w / 2, layout.progress_label.y - 8, box_w,
          bar.y + bar.h - layout.progress_label.y + 16},
         kPanel);
    draw_text(progress.label, Tone::kNormal, bar.x + bar.w / 2 - label_w / 2,
              layout.progress_label.y);
    fill(bar, kBarBack);
    if (progress.fraction >= 0) {
        fill({bar.x, bar.y, static_cast<int>(bar.w * std::clamp(progress.fraction, 0.0, 1.0)),
              bar.h},
             kBarFill);
    } else {
        // No known end: a block sweeping back and forth once every two seconds.
        const double phase = std::fmod(static_cast<double>(now) / 2e6, 1.0);
        const double pos = phase < 0.5 ? phase * 2 : 2 - phase * 2;
        const int block = bar.w / 5;
        fill({bar.x + static_cast<int>(pos * (bar.w - block)), bar.y, block, bar.h}, kBarFill);
    }
}

void SdlOverlay::draw_menu(const OverlayModel::Menu& menu, int win_w, int win_h) {
    constexpr int kMargin = 16;
    fill({0, 0, win_w, win_h}, kMenuBack);
    int y = kMargin;
    for (std::size_t i = 0; i < menu.lines.size(); ++i, y += m_line_h) {
        if (static_cast<int>(i) == menu.highlight)
            fill({kMargin / 2, y, win_w - kMargin, m_line_h}, kMenuHighlight);
        draw_text(menu.lines[i].text, menu.lines[i].tone, kMargin, y);
    }
}

void SdlOverlay::draw_replay(const ReplayPanel& replay, const OverlayLayout& layout) {
    fill(layout.replay_panel, kChatBack);
    for (std::size_t i = 0; i < replay.lines.size(); ++i)
        draw_text(replay.lines[i].text, replay.lines[i].tone, layout.replay[i].x,
                  layout.replay[i].y);
    const Rect& bar = layout.timeline;
    fill(bar, kBarBack);
    const int filled = static_cast<int>(bar.w * std::clamp(replay.position, 0.0, 1.0));
    fill({bar.x, bar.y, filled, bar.h}, kBarFill);
    // Where the frame is, a mark taller than the bar.
    fill({bar.x + std::max(0, filled - 2), bar.y - 3, 4, bar.h + 6}, kDelayColor);
}

void SdlOverlay::draw(const OverlayModel& model, netplay::Micros now, int win_w, int win_h) {
    SDL_SetRenderDrawBlendMode(m_renderer, SDL_BLENDMODE_BLEND);
    if (model.menu()) {
        // A menu covers the window: nothing else is running under it yet.
        draw_menu(*model.menu(), win_w, win_h);
        const auto messages = model.messages().visible(now);
        const OverlayLayout layout =
            layout_overlay(win_w, win_h, m_line_h, m_char_w, {}, messages.size());
        for (std::size_t i = 0; i < messages.size(); ++i)
            draw_text(messages[i].text, messages[i].tone, layout.messages[i].x,
                      layout.messages[i].y);
        SDL_SetRenderDrawBlendMode(m_renderer, SDL_BLENDMODE_NONE);
        return;
    }
    const bool panel = model.visible() && model.has_session();
    const std::vector<OverlayLine> lines =
        panel ? overlay_lines(model.status()) : std::vector<OverlayLine>{};
    const auto messages = model.messages().visible(now);
    const std::vector<OverlayLine> chat =
        model.chat_on() ? model.chat().rows(now) : std::vector<OverlayLine>{};
    // The replay viewer's panel (hidden with the overlay, F1, to watch the picture alone).
    const ReplayPanel* replay = model.visible() && model.replay() ? &*model.replay() : nullptr;
    const OverlayLayout layout =
        layout_overlay(win_w, win_h, m_line_h, m_char_w, lines, messages.size(), chat.size(),
                       replay ? replay->lines.size() : 0);
    m_timeline = replay ? std::optional<Rect>(layout.timeline) : std::nullopt;
    if (panel) draw_panel(model, layout, lines);
    if (replay) draw_replay(*replay, layout);
    // The chat on an opaque backdrop: readable over any picture.
    for (std::size_t i = 0; i < chat.size(); ++i) {
        const Text* t = text(chat[i].text, chat[i].tone);
        if (!t) continue;
        fill({layout.chat[i].x - 4, layout.chat[i].y, t->w + 8, m_line_h}, kChatBack);
        draw_text(chat[i].text, chat[i].tone, layout.chat[i].x, layout.chat[i].y);
    }
    if (model.progress()) draw_progress(*model.progress(), layout, now);
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const Text* t = text(messages[i].text, messages[i].tone);
        if (!t) continue;
        fill({layout.messages[i].x - 4, layout.messages[i].y - 2, t->w + 8, t->h + 4}, kPanel);
        draw_text(messages[i].text, messages[i].tone, layout.messages[i].x, layout.messages[i].y);
    }
    SDL_SetRenderDrawBlendMode(m_renderer, SDL_BLENDMODE_NONE);
}

}  // namespace framelock::frontend
