// Scripted input for headless runs, bots and tests.
//
// Script format, one event per line ('#' starts a comment):
//     FRAME PORT BUTTONS
// From FRAME (0-based) on, PORT (1..8) holds BUTTONS until the next event for that
// port. BUTTONS is "none", a number (0x0101, 257), or RetroPad names joined by '+':
// B Y SELECT START UP DOWN LEFT RIGHT A X L R L2 R2 L3 R3. A one-frame tap is two
// lines: "120 1 A" then "121 1 none".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/host/io.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

struct InputEvent {
    std::uint64_t frame = 0;
    unsigned port = 0;  // 0-based
    netplay::InputWord buttons = 0;
};

class InputScript final : public InputSource {
  public:
    // `source_name` appears in error messages ("script.txt line 12: ...").
    static Result<InputScript> parse(std::string_view text, const std::string& source_name);
    static Result<InputScript> load(const std::string& path);

    netplay::InputFrame input_for(std::uint64_t frame) override;
    const std::vector<InputEvent>& events() const { return m_events; }

  private:
    std::vector<InputEvent> m_events;  // sorted by frame
    std::size_t m_cursor = 0;
    std::uint64_t m_cursor_frame = 0;
    netplay::InputFrame m_current;
};

// A bot that mashes buttons: a fresh random pad word on each of `ports` ports, held for
// 1 to 8 frames (so one-frame taps happen too). Same seed, same inputs, on any machine.
class RandomInput final : public InputSource {
  public:
    RandomInput(std::uint64_t seed, unsigned ports);
    netplay::InputFrame input_for(std::uint64_t frame) override;

  private:
    std::uint64_t next();
    void restart();

    std::uint64_t m_seed;
    std::uint64_t m_state;
    unsigned m_ports;
    std::uint64_t m_next_frame = 0;
    std::uint64_t m_hold_until[netplay::kMaxPlayers] = {};
    netplay::InputFrame m_current;
};

// Parses "A+B", "none", "0x0101"; empty optional-like error text on failure.
Result<netplay::InputWord> parse_buttons(std::string_view text);
std::string format_buttons(netplay::InputWord word);

// The local pads: the script at `script`, else a seeded bot on `ports` ports, else nothing
// pressed.
Result<std::unique_ptr<InputSource>> make_input_source(const std::string& script,
                                                       std::optional<std::uint64_t> random_seed,
                                                       unsigned ports);

}  // namespace framelock::frontend
