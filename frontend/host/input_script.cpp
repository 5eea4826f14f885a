#include "frontend/host/input_script.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>

namespace framelock::frontend {
namespace {

constexpr const char* kButtonNames[16] = {"B",    "Y",     "SELECT", "START", "UP", "DOWN",
                                          "LEFT", "RIGHT", "A",      "X",     "L",  "R",
                                          "L2",   "R2",    "L3",     "R3"};

std::string upper(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return std::toupper(c); });
    return out;
}

template <class T>
bool parse_number(std::string_view text, T& out) {
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        text.remove_prefix(2);
        base = 16;
    }
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
    return ec == std::errc() && ptr == text.data() + text.size();
}

std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

Result<netplay::InputWord> parse_buttons(std::string_view text) {
    if (text.empty()) return make_error(ErrorCode::kInputScript, "empty button list");
    if (upper(text) == "NONE") return netplay::InputWord{0};
    if (std::isdigit(static_cast<unsigned char>(text[0]))) {
        unsigned value = 0;
        if (!parse_number(text, value) || value > 0xffff) {
            return make_error(ErrorCode::kInputScript,
                              "'" + std::string(text) + "' is not a pad word 0..0xffff");
        }
        return static_cast<netplay::InputWord>(value);
    }
    netplay::InputWord word = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t plus = text.find('+', start);
        const std::string name =
            upper(text.substr(start, plus == std::string_view::npos ? plus : plus - start));
        const auto* found = std::find(std::begin(kButtonNames), std::end(kButtonNames), name);
        if (found == std::end(kButtonNames)) {
            return make_error(
                ErrorCode::kInputScript,
                "unknown button '" + name +
                    "' (known: B Y SELECT START UP DOWN LEFT RIGHT A X L R L2 R2 L3 R3, none, or a "
                    "number)");
        }
        word |= static_cast<netplay::InputWord>(1u << (found - std::begin(kButtonNames)));
        if (plus == std::string_view::npos) break;
        start = plus + 1;
    }
    return word;
}

std::string format_buttons(netplay::InputWord word) {
    if (word == 0) return "none";
    std::string out;
    for (int bit = 0; bit < 16; ++bit) {
        if (word & (1u << bit)) out += (out.empty() ? "" : "+") + std::string(kButtonNames[bit]);
    }
    return out;
}

Result<InputScript> InputScript::parse(std::string_view text, const std::string& source_name) {
    InputScript script;
    std::istringstream lines{std::string(text)};
    std::string line;
    int line_number = 0;
    while (std::getline(lines, line)) {
        ++line_number;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream fields(line);
        std::string frame_text, port_text, buttons_text, extra;
        if (!(fields >> frame_text)) continue;  // blank or comment-only line
        const auto fail = [&](const std::string& why) {
            return make_error(ErrorCode::kInputScript,
                              "input script " + source_name + " line " +
                                  std::to_string(line_number) + ": " + why +
                                  " (expected: FRAME PORT BUTTONS, e.g. '120 1 A+RIGHT')");
        };
        if (!(fields >> port_text >> buttons_text)) return fail("needs three fields");
        if (fields >> extra) return fail("unexpected '" + extra + "' after the buttons");
        InputEvent event;
        if (!parse_number(std::string_view(frame_text), event.frame))
            return fail("'" + frame_text + "' is not a frame number");
        unsigned port = 0;
        if (!parse_number(std::string_view(port_text), port) || port < 1 ||
            port > netplay::kMaxPlayers) {
            return fail("port '" + port_text + "' is not 1..8");
        }
        event.port = port - 1;
        auto buttons = parse_buttons(buttons_text);
        if (!buttons) return fail(buttons.error().message);
        event.buttons = buttons.value();
        script.m_events.push_back(event);
    }
    // Stable: of two events for one port and frame, the later line wins.
    std::stable_sort(script.m_events.begin(), script.m_events.end(),
                     [](const InputEvent& a, const InputEvent& b) { return a.frame < b.frame; });
    return script;
}

Result<InputScript> InputScript::load(const std::string& path) {
    std::ifstream in(path);
    if (!in) return make_error(ErrorCode::kInputScript, "cannot open input script '" + path + "'");
    std::stringstream text;
    text << in.rdbuf();
    return parse(text.str(), "'" + path + "'");
}

netplay::InputFrame InputScript::input_for(std::uint64_t frame) {
    if (frame < m_cursor_frame) {  // asked to go back: replay from the start
        m_cursor = 0;
        m_current = {};
    }
    m_cursor_frame = frame;
    while (m_cursor < m_events.size() && m_events[m_cursor].frame <= frame) {
        m_current.pads[m_events[m_cursor].port] = m_events[m_cursor].buttons;
        ++m_cursor;
    }
    return m_current;
}

RandomInput::RandomInput(std::uint64_t seed, unsigned ports)
    : m_seed(seed), m_state(seed), m_ports(std::min<unsigned>(ports, netplay::kMaxPlayers)) {}

void RandomInput::restart() {
    m_state = m_seed;
    m_next_frame = 0;
    std::fill(std::begin(m_hold_until), std::end(m_hold_until), 0);
    m_current = {};
}

std::uint64_t RandomInput::next() {
    return splitmix64(m_state);
}

netplay::InputFrame RandomInput::input_for(std::uint64_t frame) {
    // The stream is a pure function of (seed, frame): going back replays from the seed.
    if (frame + 1 < m_next_frame) restart();
    while (m_next_frame <= frame) {
        for (unsigned port = 0; port < m_ports; ++port) {
            if (m_next_frame >= m_hold_until[port]) {
                const std::uint64_t r = next();
                // Mostly directions and face buttons, rarely START/SELECT (they pause games).
                netplay::InputWord word = static_cast<netplay::InputWord>(r & 0xfff3);
                if ((r >> 20) % 16 == 0) word |= static_cast<netplay::InputWord>(r >> 32 & 0x000c);
                m_current.pads[port] = word;
                m_hold_until[port] = m_next_frame + 1 + (r >> 40) % 8;
            }
        }
        ++m_next_frame;
    }
    return m_current;
}

Result<std::unique_ptr<InputSource>> make_input_source(const std::string& script,
                                                       std::optional<std::uint64_t> random_seed,
                                                       unsigned ports) {
    if (!script.empty()) {
        auto loaded = InputScript::load(script);
        if (!loaded) return loaded.error();
        return std::unique_ptr<InputSource>(
            std::make_unique<InputScript>(std::move(loaded).value()));
    }
    if (random_seed) {
        return std::unique_ptr<InputSource>(std::make_unique<RandomInput>(*random_seed, ports));
    }
    return std::unique_ptr<InputSource>(
        std::make_unique<InputScript>(InputScript::parse("", "(none)").value()));
}

}  // namespace framelock::frontend
