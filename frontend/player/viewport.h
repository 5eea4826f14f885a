// Where the core's picture goes in a window: aspect-correct, centred, optionally at a whole
// multiple of its height. Pure arithmetic, shared by the SDL window and the tests that
// check its screenshots.
#pragma once

#include <utility>

namespace framelock::frontend {

struct Rect {
    int x = 0, y = 0, w = 0, h = 0;
    friend bool operator==(const Rect&, const Rect&) = default;
};

// The display aspect ratio of a `width` x `height` picture: the core's own
// (retro_game_geometry::aspect_ratio) when it gives one (> 0), else square pixels.
double display_aspect(unsigned width, unsigned height, double core_aspect);

// The largest rectangle of aspect `aspect` that fits `out_w` x `out_h`, centred.
// With `integer_scale`, its height is the largest whole multiple of `pic_h` that fits (the
// width follows the aspect, and is the same multiple of `pic_w` when pixels are square);
// when not even 1x fits, it falls back to the plain fit. Empty output or picture: {0,0,0,0}.
Rect fit_picture(int out_w, int out_h, unsigned pic_w, unsigned pic_h, double aspect,
                 bool integer_scale);

// A window that shows the picture at `scale` times its height, aspect-correct.
std::pair<int, int> window_size_for(unsigned pic_w, unsigned pic_h, double aspect, int scale);

}  // namespace framelock::frontend
