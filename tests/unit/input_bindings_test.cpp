#include <catch2/catch.hpp>

#include "frontend/player/input_bindings.h"

using namespace framelock::frontend;

namespace {
constexpr int kB = 0, kY = 1, kStart = 3, kUp = 4, kLeft = 6, kRight = 7, kA = 8, kL2 = 12;
constexpr std::uint16_t bit(int button) {
    return static_cast<std::uint16_t>(1u << button);
}
}  // namespace

TEST_CASE("Key names: HID usage ids, any spelling", "[frontend][input]") {
    CHECK(key_from_name("A") == 4);
    CHECK(key_from_name("z") == 29);
    CHECK(key_from_name("1") == 30);
    CHECK(key_from_name("0") == 39);
    CHECK(key_from_name("Return") == 40);
    CHECK(key_from_name("enter") == 40);
    CHECK(key_from_name("Escape") == 41);
    CHECK(key_from_name("Space") == 44);
    CHECK(key_from_name("F1") == 58);
    CHECK(key_from_name("f12") == 69);
    CHECK(key_from_name("F13") == 104);
    CHECK(key_from_name("Up") == 82);
    CHECK(key_from_name("Right Shift") == 229);
    CHECK(key_from_name("right_shift") == 229);
    CHECK(key_from_name("RightShift") == 229);
    CHECK(key_from_name("Keypad 4") == 92);
    CHECK_FALSE(key_from_name("Jump"));
    CHECK_FALSE(key_from_name("F25"));
    CHECK(key_from_name("F") == 9);  // the letter
    CHECK_FALSE(key_from_name(""));
    // Every name comes back as it is written in docs/config.md.
    for (const char* name : {"A", "Z", "5", "F11", "Return", "Left Shift", "Keypad Enter", "Up"})
        CHECK(key_name(*key_from_name(name)) == name);
}

TEST_CASE("Controller and RetroPad names", "[frontend][input]") {
    CHECK(pad_control_from_name("a") == PadControl::kA);
    CHECK(pad_control_from_name("DPUP") == PadControl::kDpadUp);
    CHECK(pad_control_from_name("leftx-") == PadControl::kLeftXMinus);
    CHECK(pad_control_from_name("righttrigger") == PadControl::kRightTrigger);
    CHECK_FALSE(pad_control_from_name("jump"));
    CHECK(pad_control_name(PadControl::kLeftShoulder) == "leftshoulder");
    CHECK(retro_button_from_name("start") == kStart);
    CHECK(retro_button_from_name("L2") == kL2);
    CHECK_FALSE(retro_button_from_name("turbo"));
    CHECK(retro_button_name(kA) == "A");
}

TEST_CASE("InputMapper: default keyboard on port 1", "[frontend][input]") {
    InputMapper mapper(InputBindings::defaults());
    mapper.key(*key_from_name("X"), true);   // A
    mapper.key(*key_from_name("Up"), true);  // UP
    CHECK(mapper.sample().pads[0] == (bit(kA) | bit(kUp)));
    mapper.key(*key_from_name("X"), false);
    CHECK(mapper.sample().pads[0] == bit(kUp));
    CHECK(mapper.held().pads[1] == 0);
    mapper.key(*key_from_name("F11"), true);  // unbound: nothing
    CHECK(mapper.sample().pads[0] == bit(kUp));
}

TEST_CASE("InputMapper: a tap shorter than a frame lands in the next sample", "[frontend][input]") {
    InputMapper mapper(InputBindings::defaults());
    CHECK(mapper.sample().pads[0] == 0);
    mapper.key(*key_from_name("Z"), true);  // B down and up between two samples
    mapper.key(*key_from_name("Z"), false);
    CHECK(mapper.held().pads[0] == 0);
    CHECK(mapper.sample().pads[0] == bit(kB));  // seen once ...
    CHECK(mapper.sample().pads[0] == 0);        // ... and only once
}

TEST_CASE("InputMapper: controllers get numbers in plug order and drive their ports",
          "[frontend][input]") {
    InputMapper mapper(InputBindings::defaults());
    CHECK(mapper.pad_added(100) == 1);
    CHECK(mapper.pad_added(200) == 2);
    CHECK(mapper.pad_added(100) == 1);                 // reported twice: same number
    mapper.pad_button(100, PadControl::kA, true);      // bottom face button: RetroPad B
    mapper.pad_button(200, PadControl::kB, true);      // right face button: RetroPad A
    mapper.pad_axis(200, PadAxis::kLeftX, -0.8);       // stick left past the threshold
    mapper.pad_axis(200, PadAxis::kLeftTrigger, 0.3);  // trigger not far enough
    auto pads = mapper.sample();
    CHECK(pads.pads[0] == bit(kB));
    CHECK(pads.pads[1] == (bit(kA) | bit(kLeft)));
    // The keyboard adds to port 1.
    mapper.key(*key_from_name("Right"), true);
    CHECK(mapper.sample().pads[0] == (bit(kB) | bit(kRight)));
    // Unplugging pad 1 frees its number; the next pad takes it.
    mapper.pad_removed(100);
    CHECK(mapper.pads_connected() == 1);
    CHECK(mapper.pad_added(300) == 1);
    CHECK(mapper.pad_number(300) == 1);
}

TEST_CASE("InputMapper: a pad unplugged with buttons held leaves its port neutral at once",
          "[frontend][input]") {
    InputMapper mapper(InputBindings::defaults());
    mapper.pad_added(7);
    mapper.pad_button(7, PadControl::kY, true);  // RetroPad X
    mapper.pad_button(7, PadControl::kX, true);  // RetroPad Y
    mapper.pad_axis(7, PadAxis::kLeftY, -1.0);   // UP
    CHECK(mapper.sample().pads[0] == (bit(9) | bit(kY) | bit(kUp)));
    mapper.pad_button(7, PadControl::kStart, true);  // pressed, then the cable goes
    mapper.pad_removed(7);
    CHECK(mapper.held().pads[0] == 0);
    CHECK(mapper.sample().pads[0] == 0);
    // Events from the gone pad change nothing.
    mapper.pad_button(7, PadControl::kA, true);
    CHECK(mapper.sample().pads[0] == 0);
}

TEST_CASE("InputMapper: custom bindings, several keys per button, release on focus loss",
          "[frontend][input]") {
    InputBindings b = InputBindings::defaults();
    b.ports[1].keys[kA] = {*key_from_name("K"), *key_from_name("Space")};
    b.ports[1].pad = 0;  // port 2: keyboard only
    b.ports[0].pad = 2;  // port 1: the second pad
    InputMapper mapper(b);
    mapper.key(*key_from_name("Space"), true);
    CHECK(mapper.sample().pads[1] == bit(kA));
    mapper.pad_added(1);
    mapper.pad_added(2);
    mapper.pad_button(1, PadControl::kA, true);  // pad 1 drives nothing now
    mapper.pad_button(2, PadControl::kStart, true);
    auto pads = mapper.sample();
    CHECK(pads.pads[0] == bit(kStart));
    CHECK(pads.pads[1] == bit(kA));
    mapper.release_all();
    CHECK(mapper.held() == framelock::netplay::InputFrame{});
}

TEST_CASE("Hotkeys map keys to actions", "[frontend][input]") {
    Hotkeys h;
    CHECK(hotkey_for(h, *key_from_name("F11")) == HotkeyAction::kFullscreen);
    CHECK(hotkey_for(h, *key_from_name("F12")) == HotkeyAction::kScreenshot);
    CHECK(hotkey_for(h, *key_from_name("F1")) == HotkeyAction::kOverlay);
    CHECK(hotkey_for(h, *key_from_name("Escape")) == HotkeyAction::kQuit);
    CHECK(hotkey_for(h, *key_from_name("X")) == HotkeyAction::kNone);
    h.quit = 0;  // "none"
    CHECK(hotkey_for(h, *key_from_name("Escape")) == HotkeyAction::kNone);
    CHECK(hotkey_for(h, 0) == HotkeyAction::kNone);
}
