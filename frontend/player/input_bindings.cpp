#include "frontend/player/input_bindings.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

namespace framelock::frontend {
namespace {

struct NamedKey {
    const char* name;
    KeyCode code;
};

// USB HID keyboard usage ids (HID Usage Tables, page 0x07). Letters, digits and F1-F24
// are generated in key_from_name(); these are the rest, canonical name first when a
// code has several.
constexpr NamedKey kNamedKeys[] = {
    {"Return", 40},
    {"Enter", 40},
    {"Escape", 41},
    {"Esc", 41},
    {"Backspace", 42},
    {"Tab", 43},
    {"Space", 44},
    {"Minus", 45},
    {"Equals", 46},
    {"Left Bracket", 47},
    {"Right Bracket", 48},
    {"Backslash", 49},
    {"Semicolon", 51},
    {"Apostrophe", 52},
    {"Grave", 53},
    {"Comma", 54},
    {"Period", 55},
    {"Slash", 56},
    {"Caps Lock", 57},
    {"Print Screen", 70},
    {"Scroll Lock", 71},
    {"Pause", 72},
    {"Insert", 73},
    {"Home", 74},
    {"Page Up", 75},
    {"Delete", 76},
    {"End", 77},
    {"Page Down", 78},
    {"Right", 79},
    {"Left", 80},
    {"Down", 81},
    {"Up", 82},
    {"Num Lock", 83},
    {"Keypad Divide", 84},
    {"Keypad Multiply", 85},
    {"Keypad Minus", 86},
    {"Keypad Plus", 87},
    {"Keypad Enter", 88},
    {"Keypad 1", 89},
    {"Keypad 2", 90},
    {"Keypad 3", 91},
    {"Keypad 4", 92},
    {"Keypad 5", 93},
    {"Keypad 6", 94},
    {"Keypad 7", 95},
    {"Keypad 8", 96},
    {"Keypad 9", 97},
    {"Keypad 0", 98},
    {"Keypad Period", 99},
    {"Left Ctrl", 224},
    {"Left Shift", 225},
    {"Left Alt", 226},
    {"Left GUI", 227},
    {"Right Ctrl", 228},
    {"Right Shift", 229},
    {"Right Alt", 230},
    {"Right GUI", 231},
};

// Lower case without spaces, '_' and '-': "Right Shift" == "right_shift" == "RightShift".
std::string fold(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == ' ' || c == '_' || c == '-') continue;
        out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return out;
}

constexpr const char* kPadControlNames[] = {"a",
                                            "b",
                                            "x",
                                            "y",
                                            "back",
                                            "guide",
                                            "start",
                                            "leftstick",
                                            "rightstick",
                                            "leftshoulder",
                                            "rightshoulder",
                                            "dpup",
                                            "dpdown",
                                            "dpleft",
                                            "dpright",
                                            "misc1",
                                            "leftx-",
                                            "leftx+",
                                            "lefty-",
                                            "lefty+",
                                            "rightx-",
                                            "rightx+",
                                            "righty-",
                                            "righty+",
                                            "lefttrigger",
                                            "righttrigger"};
static_assert(std::size(kPadControlNames) == static_cast<std::size_t>(PadControl::kCount));

// The controls after the buttons, in PadControl order: the axis each reads, and whether it
// is held past minus the threshold (a stick pushed left or up) rather than past it.
struct PadAxisControl {
    PadAxis axis;
    bool negative;
};
constexpr std::size_t kPadButtonControls = static_cast<std::size_t>(PadControl::kButtonCount);
constexpr PadAxisControl kPadAxisControls[] = {
    {PadAxis::kLeftX, true},          // leftx-
    {PadAxis::kLeftX, false},         // leftx+
    {PadAxis::kLeftY, true},          // lefty-
    {PadAxis::kLeftY, false},         // lefty+
    {PadAxis::kRightX, true},         // rightx-
    {PadAxis::kRightX, false},        // rightx+
    {PadAxis::kRightY, true},         // righty-
    {PadAxis::kRightY, false},        // righty+
    {PadAxis::kLeftTrigger, false},   // lefttrigger
    {PadAxis::kRightTrigger, false},  // righttrigger
};
static_assert(kPadButtonControls + std::size(kPadAxisControls) ==
              static_cast<std::size_t>(PadControl::kCount));

constexpr const char* kRetroButtonNames[kRetroButtons] = {
    "B", "Y", "SELECT", "START", "UP", "DOWN", "LEFT", "RIGHT",
    "A", "X", "L",      "R",     "L2", "R2",   "L3",   "R3"};

}  // namespace

std::optional<KeyCode> key_from_name(std::string_view name) {
    const std::string folded = fold(name);
    if (folded.size() == 1) {
        const char c = folded[0];
        if (c >= 'a' && c <= 'z') return 4 + (c - 'a');
        if (c >= '1' && c <= '9') return 30 + (c - '1');
        if (c == '0') return 39;
    }
    if (folded.size() >= 2 && folded[0] == 'f') {
        int n = 0;
        for (std::size_t i = 1; i < folded.size(); ++i) {
            if (!std::isdigit(static_cast<unsigned char>(folded[i]))) {
                n = -1;
                break;
            }
            n = n * 10 + (folded[i] - '0');
            if (n > 24) break;
        }
        if (n >= 1 && n <= 12) return 58 + (n - 1);
        if (n >= 13 && n <= 24) return 104 + (n - 13);
    }
    for (const auto& key : kNamedKeys) {
        if (fold(key.name) == folded) return key.code;
    }
    return std::nullopt;
}

std::string key_name(KeyCode key) {
    if (key >= 4 && key <= 29) return std::string(1, static_cast<char>('A' + (key - 4)));
    if (key >= 30 && key <= 38) return std::string(1, static_cast<char>('1' + (key - 30)));
    if (key == 39) return "0";
    if (key >= 58 && key <= 69) return "F" + std::to_string(key - 57);
    if (key >= 104 && key <= 115) return "F" + std::to_string(key - 91);
    for (const auto& named : kNamedKeys) {
        if (named.code == key) return named.name;
    }
    return "";
}

std::optional<PadControl> pad_control_from_name(std::string_view name) {
    std::string lower;
    for (const char c : name)
        lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    for (std::size_t i = 0; i < std::size(kPadControlNames); ++i) {
        if (lower == kPadControlNames[i]) return static_cast<PadControl>(i);
    }
    return std::nullopt;
}

std::string_view pad_control_name(PadControl control) {
    const auto i = static_cast<std::size_t>(control);
    return i < std::size(kPadControlNames) ? kPadControlNames[i] : "";
}

std::optional<int> retro_button_from_name(std::string_view name) {
    std::string upper;
    for (const char c : name)
        upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    for (int i = 0; i < kRetroButtons; ++i) {
        if (upper == kRetroButtonNames[i]) return i;
    }
    return std::nullopt;
}

std::string_view retro_button_name(int button) {
    return button >= 0 && button < kRetroButtons ? kRetroButtonNames[button] : "";
}

InputBindings InputBindings::defaults() {
    InputBindings b;
    auto& keys = b.ports[0].keys;
    keys[0] = {*key_from_name("Z")};            // B
    keys[1] = {*key_from_name("A")};            // Y
    keys[2] = {*key_from_name("Right Shift")};  // SELECT
    keys[3] = {*key_from_name("Return")};       // START
    keys[4] = {*key_from_name("Up")};
    keys[5] = {*key_from_name("Down")};
    keys[6] = {*key_from_name("Left")};
    keys[7] = {*key_from_name("Right")};
    keys[8] = {*key_from_name("X")};   // A
    keys[9] = {*key_from_name("S")};   // X
    keys[10] = {*key_from_name("Q")};  // L
    keys[11] = {*key_from_name("W")};  // R
    for (int p = 0; p < kMaxLocalPorts; ++p) b.ports[p].pad = p + 1;
    // The RetroPad is laid out like a SNES pad; SDL names controller buttons by their
    // place on an Xbox pad: bottom "a" is the RetroPad's B, right "b" its A.
    b.pad[0] = {PadControl::kA};
    b.pad[1] = {PadControl::kX};
    b.pad[2] = {PadControl::kBack};
    b.pad[3] = {PadControl::kStart};
    b.pad[4] = {PadControl::kDpadUp, PadControl::kLeftYMinus};
    b.pad[5] = {PadControl::kDpadDown, PadControl::kLeftYPlus};
    b.pad[6] = {PadControl::kDpadLeft, PadControl::kLeftXMinus};
    b.pad[7] = {PadControl::kDpadRight, PadControl::kLeftXPlus};
    b.pad[8] = {PadControl::kB};
    b.pad[9] = {PadControl::kY};
    b.pad[10] = {PadControl::kLeftShoulder};
    b.pad[11] = {PadControl::kRightShoulder};
    b.pad[12] = {PadControl::kLeftTrigger};
    b.pad[13] = {PadControl::kRightTrigger};
    b.pad[14] = {PadControl::kLeftStick};
    b.pad[15] = {PadControl::kRightStick};
    return b;
}

HotkeyAction hotkey_for(const Hotkeys& hotkeys, KeyCode key) {
    if (key == 0) return HotkeyAction::kNone;
    if (key == hotkeys.fullscreen) return HotkeyAction::kFullscreen;
    if (key == hotkeys.screenshot) return HotkeyAction::kScreenshot;
    if (key == hotkeys.overlay) return HotkeyAction::kOverlay;
    if (key == hotkeys.quit) return HotkeyAction::kQuit;
    if (key == hotkeys.chat) return HotkeyAction::kChat;
    return HotkeyAction::kNone;
}

// ---------------------------------------------------------------------------------------

InputMapper::InputMapper(InputBindings bindings) : m_bindings(std::move(bindings)) {}

void InputMapper::key(KeyCode key, bool down) {
    if (key <= 0 || key >= kKeyCodeLimit) return;
    if (m_keys.test(static_cast<std::size_t>(key)) == down) return;  // key repeat
    m_keys.set(static_cast<std::size_t>(key), down);
    for (int port = 0; port < kMaxLocalPorts; ++port) {
        const auto& keys = m_bindings.ports[port].keys;
        const bool bound = std::any_of(keys.begin(), keys.end(), [&](const auto& list) {
            return std::find(list.begin(), list.end(), key) != list.end();
        });
        if (bound) refresh_port(port);
    }
}

int InputMapper::pad_added(std::int32_t instance) {
    if (const Pad* known = find_pad(instance)) return static_cast<int>(known - m_pads.data()) + 1;
    for (int i = 0; i < kMaxPads; ++i) {
        if (m_pads[i].instance < 0) {
            m_pads[i] = Pad{};
            m_pads[i].instance = instance;
            return i + 1;
        }
    }
    return 0;
}

void InputMapper::pad_removed(std::int32_t instance) {
    Pad* pad = find_pad(instance);
    if (!pad) return;
    const int number = static_cast<int>(pad - m_pads.data()) + 1;
    *pad = Pad{};
    refresh_ports_of_pad(number);
    // A press the pad made since the last sample must not reach the next frame either:
    // nothing is pressed on an unplugged pad.
    for (int port = 0; port < kMaxLocalPorts; ++port) {
        if (m_bindings.ports[port].pad == number) m_pressed_since.pads[port] = 0;
    }
}

void InputMapper::pad_button(std::int32_t instance, PadControl button, bool down) {
    Pad* pad = find_pad(instance);
    const auto bit = static_cast<unsigned>(button);
    if (!pad || bit >= static_cast<unsigned>(PadControl::kButtonCount)) return;
    if (down)
        pad->buttons |= 1u << bit;
    else
        pad->buttons &= ~(1u << bit);
    refresh_ports_of_pad(static_cast<int>(pad - m_pads.data()) + 1);
}

void InputMapper::pad_axis(std::int32_t instance, PadAxis axis, double value) {
    Pad* pad = find_pad(instance);
    if (!pad) return;
    pad->axes[static_cast<std::size_t>(axis)] = value;
    refresh_ports_of_pad(static_cast<int>(pad - m_pads.data()) + 1);
}

void InputMapper::release_all() {
    m_keys.reset();
    for (auto& pad : m_pads) {
        pad.buttons = 0;
        pad.axes = {};
    }
    for (int port = 0; port < kMaxLocalPorts; ++port) refresh_port(port);
}

void InputMapper::release_keys() {
    m_keys.reset();
    for (int port = 0; port < kMaxLocalPorts; ++port) refresh_port(port);
}

netplay::InputFrame InputMapper::take_presses() {
    const netplay::InputFrame presses = m_pressed_since;
    m_pressed_since = {};
    return presses;
}

netplay::InputFrame InputMapper::sample() {
    netplay::InputFrame out = take_presses();
    for (int port = 0; port < kMaxLocalPorts; ++port)
        out.pads[port] = static_cast<netplay::InputWord>(out.pads[port] | m_held.pads[port]);
    return out;
}

int InputMapper::pad_number(std::int32_t instance) const {
    for (int i = 0; i < kMaxPads; ++i) {
        if (m_pads[i].instance == instance && instance >= 0) return i + 1;
    }
    return 0;
}

int InputMapper::pads_connected() const {
    return static_cast<int>(
        std::count_if(m_pads.begin(), m_pads.end(), [](const Pad& p) { return p.instance >= 0; }));
}

InputMapper::Pad* InputMapper::find_pad(std::int32_t instance) {
    if (instance < 0) return nullptr;
    for (auto& pad : m_pads) {
        if (pad.instance == instance) return &pad;
    }
    return nullptr;
}

bool InputMapper::control_active(const Pad& pad, PadControl control) const {
    const auto c = static_cast<std::size_t>(control);
    if (c < kPadButtonControls) return (pad.buttons >> c) & 1u;
    if (c >= static_cast<std::size_t>(PadControl::kCount)) return false;
    const auto [axis, negative] = kPadAxisControls[c - kPadButtonControls];
    const double value = pad.axes[static_cast<std::size_t>(axis)];
    const double t = m_bindings.axis_threshold;
    return negative ? value <= -t : value >= t;
}

netplay::InputWord InputMapper::pad_word(const Pad& pad) const {
    netplay::InputWord word = 0;
    for (int button = 0; button < kRetroButtons; ++button) {
        for (const PadControl control : m_bindings.pad[button]) {
            if (control_active(pad, control)) {
                word |= static_cast<netplay::InputWord>(1u << button);
                break;
            }
        }
    }
    return word;
}

void InputMapper::refresh_port(int port) {
    const PortBindings& bindings = m_bindings.ports[port];
    netplay::InputWord word = 0;
    for (int button = 0; button < kRetroButtons; ++button) {
        for (const KeyCode key : bindings.keys[button]) {
            if (key > 0 && key < kKeyCodeLimit && m_keys.test(static_cast<std::size_t>(key))) {
                word |= static_cast<netplay::InputWord>(1u << button);
                break;
            }
        }
    }
    if (bindings.pad >= 1 && bindings.pad <= kMaxPads) {
        const Pad& pad = m_pads[bindings.pad - 1];
        if (pad.instance >= 0) word |= pad_word(pad);
    }
    m_pressed_since.pads[port] |= static_cast<netplay::InputWord>(word & ~m_held.pads[port]);
    m_held.pads[port] = word;
}

void InputMapper::refresh_ports_of_pad(int number) {
    for (int port = 0; port < kMaxLocalPorts; ++port) {
        if (m_bindings.ports[port].pad == number) refresh_port(port);
    }
}

}  // namespace framelock::frontend
