// The overlay as SDL draws it, read back from a software renderer (no display needed): a
// peer's name and a message with new lines, terminal escapes and bidi overrides, as a hostile
// peer or server would send them, come out as the picture of their escaped text, pixel for
// pixel (netplay/base/safe_text.h; the strings themselves: overlay_model_test.cpp).
#include <catch2/catch.hpp>

#include <SDL.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "frontend/player/overlay_model.h"
#include "frontend/player/sdl/sdl_overlay.h"
#include "support/skip.h"

using namespace framelock::frontend;

namespace {

constexpr int kWidth = 640, kHeight = 360;

// A session of two players in which peer 2 is called `name`, and `message` on screen.
OverlayModel overlay_of(const std::string& name, const std::string& message) {
    OverlayModel model;
    model.set_has_session(true);
    SessionStatus s;
    s.slot = 1;
    s.players = 2;
    s.running = true;
    s.peers = {{1, "alice", PeerStatus::State::kYou, -1},
               {2, name, PeerStatus::State::kPlaying, 40}};
    model.set_status(s);
    if (!message.empty()) model.messages().post(message, Tone::kNormal, 0, 1'000'000);
    return model;
}

// The overlay drawn over black by SDL's software renderer, as ARGB8888 bytes row by row.
std::vector<std::uint8_t> screenshot(const OverlayModel& model) {
    SDL_Surface* surface =
        SDL_CreateRGBSurfaceWithFormat(0, kWidth, kHeight, 32, SDL_PIXELFORMAT_ARGB8888);
    REQUIRE(surface);
    SDL_Renderer* renderer = SDL_CreateSoftwareRenderer(surface);
    REQUIRE(renderer);
    SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255);
    SDL_RenderClear(renderer);
    {
        SdlOverlay overlay(renderer, VideoSettings{});
        REQUIRE(overlay.has_font());
        overlay.draw(model, 0, kWidth, kHeight);
    }
    SDL_RenderFlush(renderer);
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(kWidth) * kHeight * 4);
    const auto* pixels = static_cast<const std::uint8_t*>(surface->pixels);
    for (int y = 0; y < kHeight; ++y)
        std::memcpy(bytes.data() + static_cast<std::size_t>(y) * kWidth * 4,
                    pixels + static_cast<std::size_t>(y) * surface->pitch, kWidth * 4);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    return bytes;
}

}  // namespace

TEST_CASE("Overlay: a hostile peer's name and message are drawn as their escapes, pixel for pixel",
          "[sdl][overlay][hostile]") {
    FRAMELOCK_SKIP_UNLESS_FILE(kDefaultFont, "apt-get install fonts-dejavu-core");
    // The forged log line and terminal title, and a bidi override that would reverse
    // what follows it.
    const std::string name =
        "\xe2\x80\xae"
        "b\x1b";
    const std::string message =
        "player 2 left: x\n[warn] forged\x1b]0;PWN\a \xe2\x80\xae"
        "evil";
    // The same, as the text a reader should see: each control written out.
    const std::string name_escaped = "\\u202eb\\x1b";
    const std::string message_escaped =
        "player 2 left: x\\x0a[warn] forged\\x1b]0;PWN\\x07 \\u202eevil";

    const auto hostile = screenshot(overlay_of(name, message));
    const auto escaped = screenshot(overlay_of(name_escaped, message_escaped));
    // Something was drawn for them: without the message, and with another name, the picture
    // differs.
    CHECK(hostile != screenshot(overlay_of(name, "")));
    CHECK(hostile != screenshot(overlay_of("bob", message)));
    std::size_t differing = 0;
    for (std::size_t i = 0; i < hostile.size(); ++i) differing += hostile[i] != escaped[i];
    INFO(differing << " of " << hostile.size() << " bytes differ");
    CHECK(hostile == escaped);
}
