// A line of text the window draws over the game (the overlay panel, the chat, a menu), and
// its tone: the SDL overlay gives each tone its colour.
#pragma once

#include <string>

namespace framelock::frontend {

enum class Tone { kNormal, kGood, kWarning, kError, kDim };

struct OverlayLine {
    std::string text;
    Tone tone = Tone::kNormal;
};

}  // namespace framelock::frontend
