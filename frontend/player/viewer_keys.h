// The replay viewer's keys and controller buttons: one table, read by the window (which key
// does what), by the viewer's help in the window (H) and by the README's list. Pure: keys
// are USB HID usage ids as in input_bindings.h (SDL's scancodes), controller buttons
// PadControls.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontend/player/input_bindings.h"

namespace framelock::frontend {

enum class ViewerCommand {
    kPlayPause,
    kStepBack,     // one frame back (and pause)
    kStepForward,  // one frame on (and pause)
    kSeekBack,     // 10 s back
    kSeekForward,  // 10 s on
    kSlower,       // a speed down: 4x, 2x, 1x, 1/2x, 1/4x
    kFaster,
    kStart,
    kEnd,
    kSeekTo,  // to ViewerInput::fraction of the replay (the number keys, a click on the bar)
    kPads,    // the players' pads shown or not
    kHelp,    // this list shown or not
};

struct ViewerInput {
    ViewerCommand command = ViewerCommand::kPlayPause;
    double fraction = 0;  // kSeekTo: 0 the first frame .. 1 the last
};

// What a key does in the viewer (nullopt: nothing; the window's hotkeys, Esc among them,
// keep theirs). The number keys 1..9 go to 10 %..90 %, 0 to the start.
std::optional<ViewerInput> viewer_input_for_key(KeyCode key);
std::optional<ViewerInput> viewer_input_for_pad(PadControl control);
// Whether holding the key repeats it (steps and seeks do; play/pause does not).
bool viewer_key_repeats(ViewerCommand command);

// The keys as the help shows them: "Space, A button: play / pause", a line each.
std::vector<std::string> viewer_help_lines();

}  // namespace framelock::frontend
