#include "frontend/player/player_settings_toml.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

namespace framelock::frontend {

Error config_error(const std::string& source, const toml::source_region& where,
                   const std::string& why) {
    return make_error(ErrorCode::kConfig, fmt::format("config {} line {}, column {}: {}", source,
                                                      where.begin.line, where.begin.column, why));
}

namespace {

// Reads one section, remembering where each value came from for later messages.
class SectionReader {
  public:
    SectionReader(const std::string& source, std::string section)
        : m_source(source), m_section(std::move(section)) {}

    Error error(const toml::node& node, const std::string& why) const {
        return config_error(m_source, node.source(), why);
    }
    std::string name(std::string_view key) const { return m_section + "." + std::string(key); }

    Result<bool> boolean(const toml::node& node, std::string_view key) const {
        if (auto value = node.value_exact<bool>()) return *value;
        return error(node, name(key) + " must be true or false");
    }
    Result<std::string> text(const toml::node& node, std::string_view key) const {
        if (auto value = node.value_exact<std::string>()) return *value;
        return error(node, name(key) + " must be a string");
    }
    Result<int> integer(const toml::node& node, std::string_view key, int lo, int hi) const {
        const auto value = node.value_exact<std::int64_t>();
        if (!value || *value < lo || *value > hi)
            return error(node,
                         fmt::format("{} must be a whole number from {} to {}", name(key), lo, hi));
        return static_cast<int>(*value);
    }
    Result<double> real(const toml::node& node, std::string_view key, double lo, double hi) const {
        std::optional<double> value;
        if (node.is_floating_point()) value = node.value_exact<double>();
        if (node.is_integer()) value = static_cast<double>(*node.value_exact<std::int64_t>());
        if (!value || *value < lo || *value > hi)
            return error(node, fmt::format("{} must be a number from {} to {}", name(key), lo, hi));
        return *value;
    }
    // A name or a list of names ("none" or [] for nothing), each with its own position.
    Result<std::vector<std::pair<std::string, const toml::node*>>> names(
        const toml::node& node, std::string_view key) const {
        std::vector<std::pair<std::string, const toml::node*>> out;
        if (auto single = node.value_exact<std::string>()) {
            if (*single != "none") out.emplace_back(*single, &node);
            return out;
        }
        if (const toml::array* list = node.as_array()) {
            for (const toml::node& item : *list) {
                auto value = item.value_exact<std::string>();
                if (!value) return error(item, name(key) + " must list names as strings");
                out.emplace_back(*value, &item);
            }
            return out;
        }
        return error(node,
                     name(key) + " must be a name or a list of names, e.g. [\"X\", \"Space\"]");
    }

    const std::string& source() const { return m_source; }

  private:
    const std::string& m_source;
    std::string m_section;
};

std::string retro_button_list() {
    std::string list;
    for (int b = 0; b < kRetroButtons; ++b) {
        std::string name(retro_button_name(b));
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        list += (b ? ", " : "") + name;
    }
    return list;
}

// Calls parse_key(key, node) for each key of `table` in turn; the first error ends it.
template <class ParseKey>
Status for_each_key(const toml::table& table, ParseKey parse_key) {
    for (const auto& [key, node] : table) {
        if (Status s = parse_key(std::string(key.str()), node); !s) return s;
    }
    return {};
}

// Stores a value the reader accepted in `field`; hands on the reader's error otherwise.
template <class T, class Field>
Status store(Result<T> value, Field& field) {
    if (!value) return value.error();
    field = std::move(value).value();
    return {};
}

Status parse_video(const toml::table& table, const SectionReader& r, VideoSettings& v) {
    return for_each_key(table, [&](const std::string& k, const toml::node& node) -> Status {
        if (k == "scale") return store(r.integer(node, k, 1, 16), v.scale);
        if (k == "integer_scale") return store(r.boolean(node, k), v.integer_scale);
        if (k == "fullscreen") return store(r.boolean(node, k), v.fullscreen);
        if (k == "overlay") return store(r.boolean(node, k), v.overlay);
        if (k == "aspect") {
            if (auto name = node.value_exact<std::string>()) {
                if (*name != "core" && *name != "square")
                    return r.error(node,
                                   "video.aspect must be \"core\", \"square\" or a number "
                                   "such as 1.333");
                v.aspect = *name == "core" ? 0.0 : -1.0;
                return {};
            }
            return store(r.real(node, k, 0.25, 4.0), v.aspect);
        }
        if (k == "filter") {
            auto value = r.text(node, k);
            if (!value) return value.error();
            if (value.value() != "nearest" && value.value() != "linear")
                return r.error(node, "video.filter must be \"nearest\" or \"linear\"");
            v.smooth = value.value() == "linear";
            return {};
        }
        if (k == "font") return store(r.text(node, k), v.font);
        if (k == "screenshot_dir") return store(r.text(node, k), v.screenshot_dir);
        if (k == "font_size") return store(r.integer(node, k, 6, 72), v.font_size);
        return r.error(node, "unknown key video." + k +
                                 " (known: scale, integer_scale, aspect, fullscreen, filter, "
                                 "overlay, font, font_size, screenshot_dir)");
    });
}

Status parse_audio(const toml::table& table, const SectionReader& r, AudioSettings& a) {
    return for_each_key(table, [&](const std::string& k, const toml::node& node) -> Status {
        if (k == "enabled") return store(r.boolean(node, k), a.enabled);
        if (k == "latency_ms") return store(r.integer(node, k, 8, 1000), a.latency_ms);
        if (k == "rate") return store(r.integer(node, k, 8000, 192000), a.rate);
        if (k == "rate_control_percent")
            return store(r.real(node, k, 0.0, 2.0), a.rate_control_pct);
        return r.error(node, "unknown key audio." + k +
                                 " (known: enabled, latency_ms, rate, rate_control_percent)");
    });
}

// Where a user binding came from, for the messages about conflicts: 0 = a default.
struct Origin {
    const toml::node* node = nullptr;
};

struct InputOrigins {
    std::map<std::pair<int, int>, Origin> keys;  // (port, button) -> where it was set
    std::map<int, Origin> pad;                   // button -> where it was set
    std::map<std::string, Origin> hotkeys;
};

Result<KeyCode> key_named(const SectionReader& r, const std::string& name, const toml::node& node,
                          const std::string& what) {
    if (auto key = key_from_name(name)) return *key;
    return r.error(node, fmt::format("unknown key name \"{}\" for {} (letters, digits, F1-F24, Up, "
                                     "Down, Left, Right, Space, Return, Escape, Tab, Backspace, "
                                     "Left Shift, Right Ctrl, Keypad 0-9, ...: see docs/config.md)",
                                     name, what));
}

Status parse_port(const toml::table& table, int port, const SectionReader& r, InputBindings& in,
                  InputOrigins& origins) {
    for (const auto& [key, node] : table) {
        const std::string k(key.str());
        if (k == "pad") {
            if (Status s = store(r.integer(node, k, 0, kMaxPads), in.ports[port].pad); !s) return s;
            continue;
        }
        const auto button = retro_button_from_name(k);
        if (!button) {
            return r.error(node, fmt::format("unknown key {} (known: pad and the RetroPad buttons "
                                             "{})",
                                             r.name(k), retro_button_list()));
        }
        auto names = r.names(node, k);
        if (!names) return names.error();
        std::vector<KeyCode> keys;
        for (const auto& [name, where] : names.value()) {
            auto code = key_named(r, name, *where, r.name(k));
            if (!code) return code.error();
            keys.push_back(code.value());
        }
        in.ports[port].keys[*button] = keys;
        origins.keys[{port, *button}] = Origin{&node};
    }
    return {};
}

Status parse_pad(const toml::table& table, const SectionReader& r, InputBindings& in,
                 InputOrigins& origins) {
    for (const auto& [key, node] : table) {
        const std::string k(key.str());
        const auto button = retro_button_from_name(k);
        if (!button) {
            return r.error(node, fmt::format("unknown key {} (known: the RetroPad buttons {})",
                                             r.name(k), retro_button_list()));
        }
        auto names = r.names(node, k);
        if (!names) return names.error();
        std::vector<PadControl> controls;
        for (const auto& [name, where] : names.value()) {
            const auto control = pad_control_from_name(name);
            if (!control) {
                return r.error(*where,
                               fmt::format("unknown controller control \"{}\" for {} (a, b, x, y, "
                                           "back, guide, start, leftstick, rightstick, "
                                           "leftshoulder, rightshoulder, dpup, dpdown, dpleft, "
                                           "dpright, misc1, lefttrigger, righttrigger, leftx-, "
                                           "leftx+, lefty-, lefty+, rightx-, rightx+, righty-, "
                                           "righty+)",
                                           name, r.name(k)));
            }
            controls.push_back(*control);
        }
        in.pad[*button] = controls;
        origins.pad[*button] = Origin{&node};
    }
    return {};
}

Status parse_input(const toml::table& table, const SectionReader& r, InputBindings& in,
                   InputOrigins& origins) {
    for (const auto& [key, node] : table) {
        const std::string k(key.str());
        if (k == "axis_threshold") {
            if (Status s = store(r.real(node, k, 0.05, 0.95), in.axis_threshold); !s) return s;
        } else if (k == "mapping_db") {
            if (Status s = store(r.text(node, k), in.mapping_db); !s) return s;
        } else if (k.size() == 5 && k.compare(0, 4, "port") == 0 && k[4] >= '1' &&
                   k[4] <= '0' + kMaxLocalPorts) {
            const toml::table* port = node.as_table();
            if (!port) return r.error(node, "[input." + k + "] must be a table");
            Status s =
                parse_port(*port, k[4] - '1', SectionReader(r.source(), "input." + k), in, origins);
            if (!s) return s;
        } else if (k == "pad") {
            const toml::table* pad = node.as_table();
            if (!pad) return r.error(node, "[input.pad] must be a table");
            Status s = parse_pad(*pad, SectionReader(r.source(), "input.pad"), in, origins);
            if (!s) return s;
        } else {
            return r.error(node, "unknown key input." + k +
                                     " (known: axis_threshold, mapping_db, [input.port1] .. "
                                     "[input.port8], [input.pad])");
        }
    }
    return {};
}

Status parse_hotkeys(const toml::table& table, const SectionReader& r, Hotkeys& h,
                     InputOrigins& origins) {
    for (const auto& [key, node] : table) {
        const std::string k(key.str());
        KeyCode* target = k == "fullscreen"   ? &h.fullscreen
                          : k == "screenshot" ? &h.screenshot
                          : k == "overlay"    ? &h.overlay
                          : k == "quit"       ? &h.quit
                          : k == "chat"       ? &h.chat
                                              : nullptr;
        if (!target) {
            return r.error(node, "unknown key hotkeys." + k +
                                     " (known: fullscreen, screenshot, overlay, quit, chat)");
        }
        auto name = r.text(node, k);
        if (!name) return name.error();
        if (name.value() == "none") {
            *target = 0;
        } else {
            auto code = key_named(r, name.value(), node, "hotkeys." + k);
            if (!code) return code.error();
            *target = code.value();
        }
        origins.hotkeys[k] = Origin{&node};
    }
    return {};
}

// A key may do one thing: press one button of one port, or be one hotkey.
Status check_conflicts(const PlayerSettings& s, const InputOrigins& origins,
                       const std::string& source) {
    struct Use {
        std::string what;
        const toml::node* node;
    };
    std::map<KeyCode, Use> uses;
    auto claim = [&](KeyCode key, std::string what, const toml::node* node) -> Status {
        if (key == 0) return {};
        auto [it, fresh] = uses.emplace(key, Use{what, node});
        if (fresh) return {};
        const Use& first = it->second;
        // Report at the user's line: the later one, or whichever of the two has a line.
        const toml::node* at = node ? node : first.node;
        const std::string message = fmt::format(
            "key \"{}\" is bound to both {}{} and {}{}; bind one of them to another "
            "key or \"none\"",
            key_name(key), first.what, first.node ? "" : " (default)", what,
            node ? "" : " (default)");
        if (!at) return make_error(ErrorCode::kConfig, "config " + source + ": " + message);
        return config_error(source, at->source(), message);
    };
    const std::pair<const char*, KeyCode> hotkeys[] = {{"fullscreen", s.hotkeys.fullscreen},
                                                       {"screenshot", s.hotkeys.screenshot},
                                                       {"overlay", s.hotkeys.overlay},
                                                       {"quit", s.hotkeys.quit},
                                                       {"chat", s.hotkeys.chat}};
    for (const auto& [name, key] : hotkeys) {
        const auto origin = origins.hotkeys.find(name);
        Status st = claim(key, std::string("hotkeys.") + name,
                          origin == origins.hotkeys.end() ? nullptr : origin->second.node);
        if (!st) return st;
    }
    for (int port = 0; port < kMaxLocalPorts; ++port) {
        for (int button = 0; button < kRetroButtons; ++button) {
            const auto origin = origins.keys.find({port, button});
            for (const KeyCode key : s.input.ports[port].keys[button]) {
                Status st =
                    claim(key, fmt::format("port {} {}", port + 1, retro_button_name(button)),
                          origin == origins.keys.end() ? nullptr : origin->second.node);
                if (!st) return st;
            }
        }
    }
    // A controller control pressing two RetroPad buttons is as surprising as a key doing so.
    std::map<PadControl, std::pair<int, const toml::node*>> controls;
    for (int button = 0; button < kRetroButtons; ++button) {
        const auto origin = origins.pad.find(button);
        const toml::node* node = origin == origins.pad.end() ? nullptr : origin->second.node;
        for (const PadControl control : s.input.pad[button]) {
            auto [it, fresh] = controls.emplace(control, std::make_pair(button, node));
            if (fresh) continue;
            const toml::node* at = node ? node : it->second.second;
            const std::string message = fmt::format(
                "controller control \"{}\" is bound to both input.pad.{} and input.pad.{}",
                pad_control_name(control), retro_button_name(it->second.first),
                retro_button_name(button));
            if (!at) return make_error(ErrorCode::kConfig, "config " + source + ": " + message);
            return config_error(source, at->source(), message);
        }
    }
    return {};
}

}  // namespace

bool is_player_section(std::string_view name) {
    return name == "video" || name == "audio" || name == "input" || name == "hotkeys";
}

Status parse_player_settings(const toml::table& root, const std::string& source,
                             PlayerSettings& out) {
    InputOrigins origins;
    for (const char* section : {"video", "audio", "input", "hotkeys"}) {
        const toml::node* node = root.get(section);
        if (!node) continue;
        const toml::table* table = node->as_table();
        if (!table)
            return config_error(source, node->source(),
                                fmt::format("[{}] must be a table", section));
        const SectionReader reader(source, section);
        Status s;
        if (std::string_view(section) == "video") s = parse_video(*table, reader, out.video);
        if (std::string_view(section) == "audio") s = parse_audio(*table, reader, out.audio);
        if (std::string_view(section) == "input")
            s = parse_input(*table, reader, out.input, origins);
        if (std::string_view(section) == "hotkeys")
            s = parse_hotkeys(*table, reader, out.hotkeys, origins);
        if (!s) return s;
    }
    // The chat key came after configs that bind its key (T) to a button or another hotkey:
    // there, the key keeps what it did and chat has none until hotkeys.chat names one
    // (docs/config.md).
    if (!origins.hotkeys.count("chat")) {
        for (const auto& [where, origin] : origins.keys) {
            const auto& keys = out.input.ports[where.first].keys[where.second];
            if (std::find(keys.begin(), keys.end(), out.hotkeys.chat) != keys.end())
                out.hotkeys.chat = 0;
        }
        const Hotkeys& h = out.hotkeys;
        for (const KeyCode other : {h.fullscreen, h.screenshot, h.overlay, h.quit}) {
            if (other == out.hotkeys.chat) out.hotkeys.chat = 0;
        }
    }
    return check_conflicts(out, origins, source);
}

}  // namespace framelock::frontend
