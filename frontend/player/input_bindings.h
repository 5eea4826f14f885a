// Which keys and controller buttons press which RetroPad button on which port, and the
// InputMapper that folds key and controller events into each port's pad word. Pure: keys
// are USB HID usage ids (SDL's scancodes are the same numbers, so bindings follow the
// key's place on the keyboard, not the layout's letter), controller controls are named as
// in SDL's GameController mapping strings. The SDL input source only translates events.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netplay/base/types.h"

namespace framelock::frontend {

inline constexpr int kRetroButtons = 16;  // RETRO_DEVICE_ID_JOYPAD_B .. R3
inline constexpr int kMaxLocalPorts = netplay::kMaxPlayers;
inline constexpr int kMaxPads = 8;  // controllers given a number at once

// A physical key: USB HID keyboard usage id, 4 ("A") .. 231 ("Right GUI"). 0: none.
using KeyCode = int;
inline constexpr int kKeyCodeLimit = 512;

// "Up", "z", "Return", "Right Shift", "F11", "Keypad 4": case, spaces, '_' and '-' are
// ignored ("right_shift", "RightShift"). nullopt for an unknown name.
std::optional<KeyCode> key_from_name(std::string_view name);
// The canonical name ("Right Shift"), or "" for a code without one.
std::string key_name(KeyCode key);

// Controller controls, named as in SDL's GameController mappings ("a", "dpup",
// "leftshoulder", "lefttrigger"); a stick direction is "leftx-", "leftx+", "lefty-"
// (up), "lefty+" (down), and the same for "rightx"/"righty".
enum class PadControl : std::uint8_t {
    kA,
    kB,
    kX,
    kY,
    kBack,
    kGuide,
    kStart,
    kLeftStick,
    kRightStick,
    kLeftShoulder,
    kRightShoulder,
    kDpadUp,
    kDpadDown,
    kDpadLeft,
    kDpadRight,
    kMisc1,
    kButtonCount,  // the controls above are buttons (SDL_GameControllerButton order)
    kLeftXMinus = kButtonCount,
    kLeftXPlus,
    kLeftYMinus,
    kLeftYPlus,
    kRightXMinus,
    kRightXPlus,
    kRightYMinus,
    kRightYPlus,
    kLeftTrigger,
    kRightTrigger,
    kCount
};

// The six analog axes, in SDL_GameControllerAxis order.
enum class PadAxis : std::uint8_t { kLeftX, kLeftY, kRightX, kRightY, kLeftTrigger, kRightTrigger };
inline constexpr int kPadAxes = 6;

std::optional<PadControl> pad_control_from_name(std::string_view name);
std::string_view pad_control_name(PadControl control);

// "B", "Y", "SELECT", ... "R3" (input scripts' names), any case. nullopt when unknown.
std::optional<int> retro_button_from_name(std::string_view name);
std::string_view retro_button_name(int button);

struct PortBindings {
    std::array<std::vector<KeyCode>, kRetroButtons> keys;  // any of these holds the button
    int pad = 0;  // the controller (1..8, numbered in plug order) that drives this port; 0: none
};

struct InputBindings {
    std::array<PortBindings, kMaxLocalPorts> ports;
    // How every controller's controls press RetroPad buttons.
    std::array<std::vector<PadControl>, kRetroButtons> pad;
    double axis_threshold = 0.5;  // of full deflection: a stick or trigger past it presses
    std::string mapping_db;       // extra SDL_GameControllerDB lines to load; empty: none

    // Port 1 on the arrow keys, Z/X/A/S (B/A/Y/X), Q/W (L/R), Return (START), Right Shift
    // (SELECT); controller N drives port N with SNES-style positions (the bottom face
    // button is B, the right one A) and the left stick doubling the d-pad.
    static InputBindings defaults();
};

struct Hotkeys {
    KeyCode fullscreen = 68;  // F11
    KeyCode screenshot = 69;  // F12
    KeyCode overlay = 58;     // F1
    KeyCode quit = 41;        // Escape
    KeyCode chat = 23;        // T: opens the chat line in a netplay session
};

enum class HotkeyAction { kNone, kFullscreen, kScreenshot, kOverlay, kQuit, kChat };
HotkeyAction hotkey_for(const Hotkeys& hotkeys, KeyCode key);

// Folds key and controller events into the pad words of every port. Controllers get the
// lowest free number (1..8) when plugged in and lose it when unplugged; a port driven by a
// controller that is unplugged mid-game goes neutral at once (nothing stays held).
//
// A button pressed and released between two samples still shows in the next sample: a tap
// shorter than a frame is never lost. Not thread-safe (the event loop's thread).
class InputMapper {
  public:
    explicit InputMapper(InputBindings bindings);

    void key(KeyCode key, bool down);
    // A controller appeared: returns the number it got (1..8), or 0 when all are taken.
    int pad_added(std::int32_t instance);
    // A controller went away: its buttons are released, its number freed.
    void pad_removed(std::int32_t instance);
    void pad_button(std::int32_t instance, PadControl button, bool down);
    // `value` in -1..1 (triggers 0..1).
    void pad_axis(std::int32_t instance, PadAxis axis, double value);
    // Every key and button released (the window lost focus).
    void release_all();
    // Every key released, the controllers left as they are (the keyboard types chat).
    void release_keys();

    // The pads for the next frame: what is held, plus whatever went down since the last
    // sample (a tap already released). A release counts at once. Starts a new period.
    netplay::InputFrame sample();
    // Only the buttons that went down since the last sample (or take_presses()); starts a
    // new period like sample().
    netplay::InputFrame take_presses();
    // What is held right now.
    const netplay::InputFrame& held() const { return m_held; }
    // The number of a connected controller (1..8), 0 when unknown.
    int pad_number(std::int32_t instance) const;
    int pads_connected() const;
    const InputBindings& bindings() const { return m_bindings; }

  private:
    struct Pad {
        std::int32_t instance = -1;  // -1: free
        std::uint32_t buttons = 0;   // bit per PadControl button
        std::array<double, kPadAxes> axes{};
    };

    bool control_active(const Pad& pad, PadControl control) const;
    netplay::InputWord pad_word(const Pad& pad) const;
    void refresh_port(int port);
    void refresh_ports_of_pad(int number);
    Pad* find_pad(std::int32_t instance);

    InputBindings m_bindings;
    std::bitset<kKeyCodeLimit> m_keys;
    std::array<Pad, kMaxPads> m_pads{};
    netplay::InputFrame m_held;
    netplay::InputFrame m_pressed_since;  // buttons that went down since the last sample
};

}  // namespace framelock::frontend
