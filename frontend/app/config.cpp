#include "frontend/app/config.h"

#include <toml++/toml.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/player/player_settings_toml.h"

namespace framelock::frontend {
namespace {

Result<std::string> string_at(const toml::node& node, const std::string& source,
                              const std::string& what) {
    // The node's own type only: toml++'s converting value<T>() casts a float to an integer
    // without a range check (3e24 is undefined behaviour there).
    if (const auto* text = node.as_string()) return text->get();
    // Core option values are strings in libretro; accept bare integers and booleans too.
    if (const auto* number = node.as_integer()) return std::to_string(number->get());
    if (const auto* flag = node.as_boolean())
        return std::string(flag->get() ? "enabled" : "disabled");
    if (node.is_floating_point())
        return config_error(source, node.source(),
                            what +
                                " must be a string: write a fractional value in quotes "
                                "(\"0.5\"), as the core lists it");
    return config_error(source, node.source(), what + " must be a string");
}

}  // namespace

Result<Config> parse_config(std::string_view text, const std::string& source_name) {
    Config config;
    config.source = source_name;
    toml::table root;
    try {
        root = toml::parse(text, source_name);
    } catch (const toml::parse_error& e) {
        return config_error(source_name, e.source(), std::string(e.description()));
    }
    for (const auto& [key, node] : root) {
        const std::string section(key.str());
        if (section != "paths" && section != "core_options" && !is_player_section(section)) {
            return config_error(source_name, node.source(),
                                "unknown section [" + section +
                                    "] (known: [paths], [core_options.\"<core>\"], [video], "
                                    "[audio], [input], [hotkeys])");
        }
        if (!node.is_table())
            return config_error(source_name, node.source(), "[" + section + "] must be a table");
    }
    if (const toml::table* paths = root["paths"].as_table()) {
        for (const auto& [key, node] : *paths) {
            const std::string name(key.str());
            if (name == "system" || name == "saves") {
                auto value = string_at(node, source_name, "paths." + name);
                if (!value) return value.error();
                (name == "system" ? config.system_dir : config.save_dir) = value.value();
            } else if (name == "cores") {
                const toml::array* dirs = node.as_array();
                if (!dirs)
                    return config_error(source_name, node.source(),
                                        "paths.cores must be a list of directories");
                for (const auto& dir : *dirs) {
                    auto value = string_at(dir, source_name, "each entry of paths.cores");
                    if (!value) return value.error();
                    config.core_dirs.push_back(value.value());
                }
            } else {
                return config_error(source_name, node.source(),
                                    "unknown key paths." + name + " (known: system, saves, cores)");
            }
        }
    }
    if (const toml::table* cores = root["core_options"].as_table()) {
        for (const auto& [core, node] : *cores) {
            const toml::table* options = node.as_table();
            if (!options) {
                return config_error(source_name, node.source(),
                                    "core_options entries are tables: [core_options.\"" +
                                        std::string(core.str()) + "\"]");
            }
            auto& target = config.core_options[std::string(core.str())];
            for (const auto& [key, value_node] : *options) {
                auto value = string_at(value_node, source_name, "option " + std::string(key.str()));
                if (!value) return value.error();
                target[std::string(key.str())] = value.value();
            }
        }
    }
    if (Status player = parse_player_settings(root, source_name, config.player); !player)
        return player.error();
    return config;
}

Result<Config> load_config(const std::string& path, bool must_exist) {
    std::ifstream in(path);
    if (!in) {
        if (!must_exist && !std::filesystem::exists(path)) return Config{};
        return make_error(ErrorCode::kConfig, "cannot read config file '" + path + "'");
    }
    std::stringstream text;
    text << in.rdbuf();
    return parse_config(text.str(), "'" + path + "'");
}

}  // namespace framelock::frontend
