// Input scripts (frontend/host/input_script.h): any text either parses or fails with a message
// naming the source. What parses is checked against its own events: written back as a
// script it parses to the same events, and input_for() holds each port's latest buttons.
#include <string>
#include <string_view>

#include "frontend/host/input_script.h"
#include "tests/fuzz/fuzz_targets.h"

namespace framelock::fuzz {

int fuzz_input_script(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto script = frontend::InputScript::parse(text, "fuzz.txt");
    if (!script) {
        FUZZ_CHECK(script.error().message.find("fuzz.txt") != std::string::npos);
        return 0;
    }
    const auto& events = script.value().events();
    std::string written;
    netplay::InputFrame held;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        FUZZ_CHECK(e.port < static_cast<unsigned>(netplay::kMaxPlayers));
        FUZZ_CHECK(i == 0 || events[i - 1].frame <= e.frame);
        const auto buttons = frontend::parse_buttons(frontend::format_buttons(e.buttons));
        FUZZ_CHECK(buttons.ok() && buttons.value() == e.buttons);
        written += std::to_string(e.frame) + " " + std::to_string(e.port + 1) + " " +
                   frontend::format_buttons(e.buttons) + "\n";
        held.pads[e.port] = e.buttons;
        // After the last event of a frame, the script gives exactly the pads held so far.
        if (i + 1 == events.size() || events[i + 1].frame != e.frame)
            FUZZ_CHECK(script.value().input_for(e.frame) == held);
    }
    const auto again = frontend::InputScript::parse(written, "written.txt");
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(again.value().events().size() == events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        FUZZ_CHECK(again.value().events()[i].frame == events[i].frame);
        FUZZ_CHECK(again.value().events()[i].port == events[i].port);
        FUZZ_CHECK(again.value().events()[i].buttons == events[i].buttons);
    }
    return 0;
}

}  // namespace framelock::fuzz
