// The SDL input source against SDL's own virtual controllers (SDL 2.24+): real
// SDL_CONTROLLERDEVICEADDED/REMOVED, button and axis events through SDL's event queue,
// folded into RetroPad words. No display needed.
#include <catch2/catch.hpp>

#include <SDL.h>

#include <cstdio>
#include <string>
#include <vector>

#include "frontend/player/sdl/sdl_input.h"
#include "frontend/player/sdl/sdl_player_window.h"

using namespace framelock::frontend;

namespace {

constexpr int kB = 0, kStart = 3, kUp = 4, kRight = 7, kA = 8;
constexpr std::uint16_t bit(int button) {
    return static_cast<std::uint16_t>(1u << button);
}

// A virtual game controller with every standard button and axis.
class VirtualPad {
  public:
    VirtualPad() {
        SDL_VirtualJoystickDesc desc{};
        desc.version = SDL_VIRTUAL_JOYSTICK_DESC_VERSION;
        desc.type = SDL_JOYSTICK_TYPE_GAMECONTROLLER;
        desc.naxes = SDL_CONTROLLER_AXIS_MAX;
        desc.nbuttons = SDL_CONTROLLER_BUTTON_MAX;
        desc.name = "framelock test pad";
        m_index = SDL_JoystickAttachVirtualEx(&desc);
        REQUIRE(m_index >= 0);
    }
    ~VirtualPad() { detach(); }
    // Opened by SdlInput on its ADDED event; this handle sets its state.
    void open() {
        m_joystick = SDL_JoystickOpen(m_index);
        REQUIRE(m_joystick);
    }
    void button(SDL_GameControllerButton b, bool down) {
        REQUIRE(SDL_JoystickSetVirtualButton(m_joystick, b, down ? 1 : 0) == 0);
    }
    void axis(SDL_GameControllerAxis a, Sint16 value) {
        REQUIRE(SDL_JoystickSetVirtualAxis(m_joystick, a, value) == 0);
    }
    void detach() {
        if (m_joystick) SDL_JoystickClose(m_joystick);
        m_joystick = nullptr;
        if (m_index >= 0) SDL_JoystickDetachVirtual(m_index);
        m_index = -1;
    }

  private:
    int m_index = -1;
    SDL_Joystick* m_joystick = nullptr;
};

// Runs SDL's event loop into `input` as the player window does.
void pump(SdlInput& input, std::uint64_t frame) {
    SDL_Event event;
    SDL_PumpEvents();
    while (SDL_PollEvent(&event)) input.handle_event(event, frame);
}

}  // namespace

TEST_CASE(
    "SDL input: a controller is found, drives port 1, and unplugged mid-game leaves the "
    "port neutral",
    "[sdl][input]") {
    SdlSubsystems sdl(SDL_INIT_GAMECONTROLLER);
    REQUIRE(sdl.ok());
    auto made = SdlInput::create(InputBindings::defaults());
    REQUIRE(made.ok());
    SdlInput& input = *made.value();

    VirtualPad pad;
    pump(input, 0);
    REQUIRE(input.controllers() == 1);
    auto notices = input.take_notices();
    REQUIRE(notices.size() == 1);
    CHECK_THAT(notices[0], Catch::Contains("controller 1 connected") &&
                               Catch::Contains("framelock test pad") && Catch::Contains("port 1"));

    pad.open();
    pad.button(SDL_CONTROLLER_BUTTON_A, true);      // bottom face button: RetroPad B
    pad.button(SDL_CONTROLLER_BUTTON_START, true);  // START
    pad.axis(SDL_CONTROLLER_AXIS_LEFTX, 32767);     // stick right: RIGHT
    pump(input, 1);
    CHECK(input.input_for(1).pads[0] == (bit(kB) | bit(kStart) | bit(kRight)));
    CHECK(input.input_for(1).pads[1] == 0);

    pad.button(SDL_CONTROLLER_BUTTON_A, false);
    pad.button(SDL_CONTROLLER_BUTTON_B, true);  // right face button: RetroPad A
    pad.axis(SDL_CONTROLLER_AXIS_LEFTX, 0);
    pad.button(SDL_CONTROLLER_BUTTON_DPAD_UP, true);
    pump(input, 2);
    CHECK(input.input_for(2).pads[0] == (bit(kA) | bit(kStart) | bit(kUp)));

    // The cable comes out with buttons held: the port is neutral from the next frame on,
    // and nothing of the pad lingers.
    pad.detach();
    pump(input, 3);
    CHECK(input.controllers() == 0);
    CHECK(input.input_for(3).pads[0] == 0);
    CHECK(input.input_for(4).pads[0] == 0);
    notices = input.take_notices();
    REQUIRE(notices.size() == 1);
    CHECK_THAT(notices[0], Catch::Contains("controller 1 unplugged") && Catch::Contains("neutral"));

    // A new pad plugged in takes number 1 again and works.
    VirtualPad second;
    pump(input, 5);
    REQUIRE(input.controllers() == 1);
    second.open();
    second.button(SDL_CONTROLLER_BUTTON_B, true);
    pump(input, 6);
    CHECK(input.input_for(6).pads[0] == bit(kA));
}

TEST_CASE(
    "SDL input: the netplay client asks for a frame until it samples it: a tap between "
    "two asks still counts, a release does not linger",
    "[sdl][input]") {
    SdlSubsystems sdl(SDL_INIT_GAMECONTROLLER);
    REQUIRE(sdl.ok());
    auto made = SdlInput::create(InputBindings::defaults());
    REQUIRE(made.ok());
    SdlInput& input = *made.value();
    VirtualPad pad;
    pump(input, 0);
    pad.open();

    pad.button(SDL_CONTROLLER_BUTTON_Y, true);  // RetroPad X, held across frames
    pump(input, 10);
    CHECK(input.input_for(10).pads[0] == bit(9));
    // Frame 11 is asked for several times. X is released: gone at once. B is tapped
    // between two asks: it shows until frame 11 is done with.
    pad.button(SDL_CONTROLLER_BUTTON_Y, false);
    pump(input, 11);
    CHECK(input.input_for(11).pads[0] == 0);
    // (A virtual pad is polled: each state change needs its own pump to become an event.)
    pad.button(SDL_CONTROLLER_BUTTON_A, true);
    pump(input, 11);
    pad.button(SDL_CONTROLLER_BUTTON_A, false);
    pump(input, 11);
    CHECK(input.input_for(11).pads[0] == bit(kB));
    CHECK(input.input_for(11).pads[0] == bit(kB));
    CHECK(input.input_for(12).pads[0] == 0);
}

TEST_CASE("SDL input: a mapping file that cannot be read is a config error", "[sdl][input]") {
    SdlSubsystems sdl(SDL_INIT_GAMECONTROLLER);
    REQUIRE(sdl.ok());
    InputBindings b = InputBindings::defaults();
    b.mapping_db = "/nonexistent/gamecontrollerdb.txt";
    auto made = SdlInput::create(b);
    REQUIRE_FALSE(made.ok());
    CHECK(made.error().code == framelock::ErrorCode::kConfig);
    CHECK_THAT(made.error().message, Catch::Contains("/nonexistent/gamecontrollerdb.txt"));
}

namespace {

SDL_Event key_down(SDL_Scancode code, bool repeat = false) {
    SDL_Event e{};
    e.type = SDL_KEYDOWN;
    e.key.keysym.scancode = code;
    e.key.repeat = repeat ? 1 : 0;
    return e;
}

SDL_Event pad_down(SDL_GameControllerButton button) {
    SDL_Event e{};
    e.type = SDL_CONTROLLERBUTTONDOWN;
    e.cbutton.button = static_cast<Uint8>(button);
    return e;
}

}  // namespace

TEST_CASE("SDL menu keys: arrows, Enter, Esc, R and the pad's D-pad, A, B, Y", "[sdl][browser]") {
    std::vector<MenuEvent> out;
    const auto keys = [&] {
        std::vector<BrowserKey> k;
        for (const auto& e : out) k.push_back(e.key);
        out.clear();
        return k;
    };
    for (const auto& e :
         {key_down(SDL_SCANCODE_DOWN), key_down(SDL_SCANCODE_DOWN, true), key_down(SDL_SCANCODE_UP),
          key_down(SDL_SCANCODE_RETURN), key_down(SDL_SCANCODE_RETURN, true),
          key_down(SDL_SCANCODE_R), key_down(SDL_SCANCODE_ESCAPE)})
        CHECK(menu_event_for(e, false, out));
    // A held arrow repeats; a held Enter joins once.
    CHECK(keys() == std::vector{BrowserKey::kDown, BrowserKey::kDown, BrowserKey::kUp,
                                BrowserKey::kAccept, BrowserKey::kRefresh, BrowserKey::kBack});
    for (const auto b : {SDL_CONTROLLER_BUTTON_DPAD_DOWN, SDL_CONTROLLER_BUTTON_DPAD_UP,
                         SDL_CONTROLLER_BUTTON_A, SDL_CONTROLLER_BUTTON_Y, SDL_CONTROLLER_BUTTON_B})
        CHECK(menu_event_for(pad_down(b), false, out));
    CHECK(keys() == std::vector{BrowserKey::kDown, BrowserKey::kUp, BrowserKey::kAccept,
                                BrowserKey::kRefresh, BrowserKey::kBack});
    // Other keys stay hotkeys (F12 still saves a screenshot over the menu); device events
    // still reach the input source.
    CHECK_FALSE(menu_event_for(key_down(SDL_SCANCODE_F12), false, out));
    SDL_Event added{};
    added.type = SDL_CONTROLLERDEVICEADDED;
    CHECK_FALSE(menu_event_for(added, false, out));
    CHECK(out.empty());
}

TEST_CASE("SDL menu keys: at a prompt, letters are text and R is one of them", "[sdl][browser]") {
    std::vector<MenuEvent> out;
    SDL_Event text{};
    text.type = SDL_TEXTINPUT;
    std::snprintf(text.text.text, sizeof text.text.text, "%s", "r\xc3\xa9");
    CHECK(menu_event_for(key_down(SDL_SCANCODE_R), true, out));
    CHECK(menu_event_for(text, true, out));
    CHECK(menu_event_for(key_down(SDL_SCANCODE_BACKSPACE), true, out));
    CHECK(menu_event_for(key_down(SDL_SCANCODE_F12), true, out));  // a key, not a hotkey
    REQUIRE(out.size() == 2);
    CHECK(out[0].key == BrowserKey::kText);
    CHECK(out[0].text == "r\xc3\xa9");
    CHECK(out[1].key == BrowserKey::kBackspace);
    // Outside a prompt, stray text events are dropped.
    out.clear();
    CHECK(menu_event_for(text, false, out));
    CHECK(out.empty());
}
