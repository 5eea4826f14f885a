#include <catch2/catch.hpp>

#include "frontend/player/viewport.h"

using namespace framelock::frontend;

TEST_CASE("Viewport: aspect-correct fit, centred, letterboxed or pillarboxed",
          "[frontend][viewport]") {
    // 320x224 with square pixels in a 1280x1024 screen: full width, bars above and below.
    CHECK(fit_picture(1280, 1024, 320, 224, 320.0 / 224, false) == Rect{0, 64, 1280, 896});
    // The same picture at 4:3 (the arcade core's aspect): full height would be 1365 wide,
    // too wide: full width, 960 high.
    CHECK(fit_picture(1280, 1024, 320, 224, 4.0 / 3, false) == Rect{0, 32, 1280, 960});
    // A wide window: pillarbox.
    CHECK(fit_picture(1920, 1080, 256, 240, 4.0 / 3, false) == Rect{240, 0, 1440, 1080});
    // Non-integer scale: 1000x800 holds 320x224 at 3.125x.
    CHECK(fit_picture(1000, 800, 320, 224, 320.0 / 224, false) == Rect{0, 50, 1000, 700});
}

TEST_CASE("Viewport: integer scaling takes the largest whole multiple that fits",
          "[frontend][viewport]") {
    // 1000x800: 3x (960x672) fits, 4x does not.
    CHECK(fit_picture(1000, 800, 320, 224, 320.0 / 224, true) == Rect{20, 64, 960, 672});
    // Height limits: 4x of 224 is 896 > 800.
    CHECK(fit_picture(1920, 800, 320, 224, 320.0 / 224, true) == Rect{480, 64, 960, 672});
    // Width limits with a 4:3 aspect: 4x height (896) would need 1195 columns.
    CHECK(fit_picture(1100, 1024, 320, 224, 4.0 / 3, true) == Rect{102, 176, 896, 672});
    // Smaller than 1x: the plain fit instead of nothing.
    CHECK(fit_picture(200, 100, 320, 224, 320.0 / 224, true) == Rect{28, 0, 143, 100});
}

TEST_CASE("Viewport: window sizes and degenerate input", "[frontend][viewport]") {
    CHECK(window_size_for(320, 224, 320.0 / 224, 3) == std::pair{960, 672});
    CHECK(window_size_for(320, 224, 4.0 / 3, 3) == std::pair{896, 672});
    CHECK(window_size_for(256, 240, 4.0 / 3, 2) == std::pair{640, 480});
    CHECK(window_size_for(320, 224, 320.0 / 224, 0) == std::pair{320, 224});
    CHECK(display_aspect(320, 224, 0) == Approx(320.0 / 224));
    CHECK(display_aspect(320, 224, 4.0f / 3) == Approx(4.0 / 3));
    CHECK(fit_picture(0, 100, 320, 224, 1.0, false) == Rect{});
    CHECK(fit_picture(100, 100, 0, 224, 1.0, false) == Rect{});
}
