#include "frontend/player/viewer_keys.h"

#include <array>

namespace framelock::frontend {
namespace {

// HID usage ids (input_bindings.h): the keyboard's keys in the viewer.
constexpr KeyCode kSpace = 44, kRight = 79, kLeft = 80, kDown = 81, kUp = 82;
constexpr KeyCode kPageUp = 75, kPageDown = 78, kHome = 74, kEnd = 77;
constexpr KeyCode kComma = 54, kPeriod = 55, kKeyP = 19, kKeyH = 11, kKeyK = 14;
constexpr KeyCode kDigit1 = 30, kDigit0 = 39;

struct Binding {
    ViewerCommand command;
    std::array<KeyCode, 2> keys;  // 0: none
    std::array<std::optional<PadControl>, 2> pad;
    const char* keys_text;
    const char* what;
};

using P = PadControl;
constexpr std::nullopt_t kNoPad = std::nullopt;

constexpr Binding kBindings[] = {
    {ViewerCommand::kPlayPause,
     {kSpace, kKeyK},
     {P::kA, P::kStart},
     "Space or K, pad A or Start",
     "play / pause"},
    {ViewerCommand::kStepBack,
     {kLeft, kComma},
     {P::kDpadLeft, kNoPad},
     "Left or comma, pad left",
     "one frame back (pauses)"},
    {ViewerCommand::kStepForward,
     {kRight, kPeriod},
     {P::kDpadRight, kNoPad},
     "Right or period, pad right",
     "one frame on (pauses)"},
    {ViewerCommand::kSeekBack,
     {kPageUp, 0},
     {P::kLeftShoulder, kNoPad},
     "Page Up, pad L",
     "10 seconds back"},
    {ViewerCommand::kSeekForward,
     {kPageDown, 0},
     {P::kRightShoulder, kNoPad},
     "Page Down, pad R",
     "10 seconds on"},
    {ViewerCommand::kFaster, {kUp, 0}, {P::kDpadUp, kNoPad}, "Up, pad up", "faster (up to 4x)"},
    {ViewerCommand::kSlower,
     {kDown, 0},
     {P::kDpadDown, kNoPad},
     "Down, pad down",
     "slower (down to 1/4x)"},
    {ViewerCommand::kStart, {kHome, 0}, {P::kBack, kNoPad}, "Home, pad Select", "the first frame"},
    {ViewerCommand::kEnd, {kEnd, 0}, {kNoPad, kNoPad}, "End", "the last frame"},
    {ViewerCommand::kPads,
     {kKeyP, 0},
     {P::kX, kNoPad},
     "P, pad X",
     "the players' pads shown or hidden"},
    {ViewerCommand::kHelp, {kKeyH, 0}, {P::kY, kNoPad}, "H, pad Y", "these keys shown or hidden"},
};

}  // namespace

std::optional<ViewerInput> viewer_input_for_key(KeyCode key) {
    if (key <= 0) return std::nullopt;
    if (key >= kDigit1 && key <= kDigit0) {
        // 1..9 then 0 (HID order): 10 % .. 90 %, and the start.
        const int digit = key == kDigit0 ? 0 : key - kDigit1 + 1;
        return ViewerInput{ViewerCommand::kSeekTo, digit / 10.0};
    }
    for (const Binding& b : kBindings) {
        for (const KeyCode k : b.keys) {
            if (k != 0 && k == key) return ViewerInput{b.command, 0};
        }
    }
    return std::nullopt;
}

std::optional<ViewerInput> viewer_input_for_pad(PadControl control) {
    for (const Binding& b : kBindings) {
        for (const auto& pad : b.pad) {
            if (pad == control) return ViewerInput{b.command, 0};
        }
    }
    return std::nullopt;
}

bool viewer_key_repeats(ViewerCommand command) {
    switch (command) {
        case ViewerCommand::kStepBack:
        case ViewerCommand::kStepForward:
        case ViewerCommand::kSeekBack:
        case ViewerCommand::kSeekForward:
            return true;
        default:
            return false;
    }
}

std::vector<std::string> viewer_help_lines() {
    std::vector<std::string> lines;
    for (const Binding& b : kBindings) lines.push_back(std::string(b.keys_text) + ": " + b.what);
    lines.push_back("1 .. 9, 0: 10 % .. 90 % of the replay, the start");
    lines.push_back("a click on the bar: that moment");
    lines.push_back("Esc: quit; F1 this panel; F11 fullscreen; F12 screenshot");
    return lines;
}

}  // namespace framelock::frontend
