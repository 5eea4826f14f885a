// The player's settings from the config file's [video], [audio], [input] and [hotkeys]
// sections (docs/config.md), with their defaults. Plain values; no SDL.
#pragma once

#include <string>

#include "frontend/player/input_bindings.h"

namespace framelock::frontend {

struct VideoSettings {
    int scale = 3;               // initial window: 3x the picture's height, aspect-correct
    bool integer_scale = false;  // picture height a whole multiple of the core's
    // Display aspect ratio: 0 = the core's (retro_game_geometry::aspect_ratio), < 0 = square
    // pixels (width / height), > 0 = this ratio.
    double aspect = 0;
    bool fullscreen = false;     // start fullscreen (desktop resolution)
    bool smooth = false;         // linear filtering instead of nearest-neighbour pixels
    bool overlay = true;         // netplay overlay shown from the start (hotkey toggles)
    std::string font;            // TrueType font for text; empty: DejaVu Sans Mono
    int font_size = 14;          // pixels
    std::string screenshot_dir;  // empty: <data dir>/screenshots
};

struct AudioSettings {
    bool enabled = true;
    int latency_ms = 64;            // sound queued ahead of the device, in milliseconds
    int rate = 48000;               // device sample rate asked for, Hz
    double rate_control_pct = 0.5;  // dynamic rate control range, percent (0: off)
};

struct PlayerSettings {
    VideoSettings video;
    AudioSettings audio;
    InputBindings input = InputBindings::defaults();
    Hotkeys hotkeys;
};

}  // namespace framelock::frontend
