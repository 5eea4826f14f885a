#include "frontend/player/viewport.h"

#include <algorithm>
#include <cmath>

namespace framelock::frontend {
namespace {

// Width of a picture `height` pixels high at `aspect`. With square pixels the multiple of
// the picture's own width is taken exactly, so 3x of 320x224 is 960, never 959.
int width_for(int height, unsigned pic_w, unsigned pic_h, double aspect) {
    const double square = static_cast<double>(pic_w) / pic_h;
    if (std::abs(aspect - square) < 1e-4 && height % static_cast<int>(pic_h) == 0)
        return height / static_cast<int>(pic_h) * static_cast<int>(pic_w);
    return static_cast<int>(std::lround(height * aspect));
}

}  // namespace

double display_aspect(unsigned width, unsigned height, double core_aspect) {
    if (core_aspect > 0) return core_aspect;
    if (width == 0 || height == 0) return 4.0 / 3.0;
    return static_cast<double>(width) / height;
}

Rect fit_picture(int out_w, int out_h, unsigned pic_w, unsigned pic_h, double aspect,
                 bool integer_scale) {
    if (out_w <= 0 || out_h <= 0 || pic_w == 0 || pic_h == 0 || !(aspect > 0)) return {};
    int w = 0, h = 0;
    if (integer_scale) {
        for (int k = out_h / static_cast<int>(pic_h); k >= 1; --k) {
            const int kh = k * static_cast<int>(pic_h);
            const int kw = width_for(kh, pic_w, pic_h, aspect);
            if (kw <= out_w) {
                w = kw;
                h = kh;
                break;
            }
        }
    }
    if (h == 0) {
        if (static_cast<double>(out_w) / out_h > aspect) {
            h = out_h;
            w = std::min(out_w, width_for(h, pic_w, pic_h, aspect));
        } else {
            w = out_w;
            h = std::min(out_h, static_cast<int>(std::lround(out_w / aspect)));
        }
    }
    return Rect{(out_w - w) / 2, (out_h - h) / 2, w, h};
}

std::pair<int, int> window_size_for(unsigned pic_w, unsigned pic_h, double aspect, int scale) {
    const int h = static_cast<int>(pic_h) * std::max(scale, 1);
    return {width_for(h, pic_w, pic_h, aspect), h};
}

}  // namespace framelock::frontend
