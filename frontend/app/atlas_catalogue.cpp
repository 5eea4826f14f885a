#include "frontend/app/atlas_catalogue.h"

#include <toml++/toml.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace framelock::frontend {
namespace {

Error catalogue_error(const std::string& path, const toml::source_region& where,
                      const std::string& what) {
    return make_error(ErrorCode::kConfig, path + ":" + std::to_string(where.begin.line) + ": " +
                                              what + " (the core atlas's catalogue)");
}

std::string text_of(const toml::table& entry, const char* key) {
    if (const auto* node = entry.get(key)) {
        if (const auto* text = node->as_string()) return text->get();
    }
    return {};
}

}  // namespace

Result<std::vector<AtlasCore>> load_atlas_catalogue(const std::string& path) {
    std::ifstream in(path);
    if (!in) return make_error(ErrorCode::kIo, "cannot read the atlas's catalogue " + path);
    std::stringstream text;
    text << in.rdbuf();
    toml::table root;
    try {
        root = toml::parse(text.str(), path);
    } catch (const toml::parse_error& e) {
        return catalogue_error(path, e.source(), std::string(e.description()));
    }
    const toml::array* entries = root["core"].as_array();
    if (!entries || entries->empty())
        return make_error(ErrorCode::kConfig, path + ": no [[core]] entries");
    std::vector<AtlasCore> cores;
    std::set<std::string> names;
    for (const auto& node : *entries) {
        const toml::table* entry = node.as_table();
        if (!entry) return catalogue_error(path, node.source(), "a [[core]] must be a table");
        AtlasCore core;
        core.name = text_of(*entry, "name");
        core.core = text_of(*entry, "core");
        core.package = text_of(*entry, "package");
        core.system = text_of(*entry, "system");
        core.content = text_of(*entry, "content");
        core.unavailable = text_of(*entry, "unavailable");
        if (core.name.empty() || core.core.empty() || core.system.empty())
            return catalogue_error(path, entry->source(),
                                   "every [[core]] needs name, core and system (strings)");
        if (!names.insert(core.name).second)
            return catalogue_error(path, entry->source(), "the name " + core.name + " twice");
        const auto ports = (*entry)["ports"].value<std::int64_t>().value_or(1);
        if (ports < 1 || ports > 8)
            return catalogue_error(path, entry->source(), core.name + ": ports must be 1-8");
        core.ports = static_cast<unsigned>(ports);
        if (const toml::array* options = (*entry)["options"].as_array()) {
            for (const auto& option : *options) {
                const auto* value = option.as_string();
                if (!value || value->get().find('=') == std::string::npos)
                    return catalogue_error(path, option.source(),
                                           core.name + ": options are \"KEY=VALUE\" strings");
                core.options.push_back(value->get());
            }
        }
        cores.push_back(std::move(core));
    }
    return cores;
}

std::string declared_savestate_features(const std::string& info_dir, const std::string& core_path) {
    std::string stem = std::filesystem::path(core_path).stem().string();
    std::ifstream in(std::filesystem::path(info_dir) / (stem + ".info"));
    for (std::string line; std::getline(in, line);) {
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        std::string key = line.substr(0, eq);
        key.erase(key.find_last_not_of(" \t") + 1);
        if (key != "savestate_features") continue;
        std::string value = line.substr(eq + 1);
        const auto first = value.find('"'), last = value.rfind('"');
        if (first != std::string::npos && last > first)
            return value.substr(first + 1, last - first - 1);
    }
    return {};
}

}  // namespace framelock::frontend
