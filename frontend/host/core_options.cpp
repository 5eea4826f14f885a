#include "frontend/host/core_options.h"

#include <algorithm>

#include "common/log.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {
namespace {

std::string trim(std::string text) {
    const auto not_space = [](unsigned char c) { return !std::isspace(c); };
    text.erase(text.begin(), std::find_if(text.begin(), text.end(), not_space));
    text.erase(std::find_if(text.rbegin(), text.rend(), not_space).base(), text.end());
    return text;
}

template <class Definition>
CoreOption from_definition(const Definition& def) {
    CoreOption option;
    option.key = def.key;
    option.description = def.desc ? def.desc : "";
    for (const auto& value : def.values) {
        if (!value.value) break;  // the values array ends with a {NULL, NULL} entry
        option.values.emplace_back(value.value);
    }
    option.default_value = def.default_value ? def.default_value : "";
    return option;
}

}  // namespace

void CoreOptions::set_overrides(std::map<std::string, std::string> overrides) {
    m_overrides = std::move(overrides);
}

void CoreOptions::add(CoreOption option) {
    if (option.values.empty()) {
        log_warn("core option '{}' declares no values; ignored", option.key);
        return;
    }
    // libretro: a missing or unknown default means the first value.
    if (std::find(option.values.begin(), option.values.end(), option.default_value) ==
        option.values.end()) {
        option.default_value = option.values.front();
    }
    option.value = option.default_value;
    if (auto it = m_overrides.find(option.key); it != m_overrides.end()) {
        if (std::find(option.values.begin(), option.values.end(), it->second) !=
            option.values.end()) {
            option.value = it->second;
        } else {
            std::string allowed;
            for (const auto& v : option.values) allowed += (allowed.empty() ? "" : "|") + v;
            log_warn("option {}={} is not one of the core's values ({}); using the default '{}'",
                     option.key, it->second, allowed, option.default_value);
        }
    }
    if (CoreOption* existing = find(option.key)) {
        *existing = std::move(option);
    } else {
        m_options.push_back(std::move(option));
    }
}

void CoreOptions::declare_v0(const retro_variable* variables) {
    m_options.clear();
    for (; variables && variables->key; ++variables) {
        // v0 form: "Description; value1|value2|value3", the first value is the default.
        CoreOption option;
        option.key = variables->key;
        const std::string spec = variables->value ? variables->value : "";
        const auto semicolon = spec.find(';');
        option.description = trim(spec.substr(0, semicolon));
        if (semicolon != std::string::npos) {
            std::string list = spec.substr(semicolon + 1);
            std::size_t start = 0;
            while (start <= list.size()) {
                const auto bar = list.find('|', start);
                std::string value = trim(list.substr(start, bar - start));
                if (!value.empty()) option.values.push_back(value);
                if (bar == std::string::npos) break;
                start = bar + 1;
            }
        }
        if (!option.values.empty()) option.default_value = option.values.front();
        add(std::move(option));
    }
    m_updated = true;
}

void CoreOptions::declare_v1(const retro_core_option_definition* definitions) {
    m_options.clear();
    for (; definitions && definitions->key; ++definitions) add(from_definition(*definitions));
    m_updated = true;
}

void CoreOptions::declare_v2(const retro_core_options_v2* options) {
    m_options.clear();
    if (options) {
        for (auto* def = options->definitions; def && def->key; ++def) add(from_definition(*def));
    }
    m_updated = true;
}

CoreOption* CoreOptions::find(const std::string& key) {
    auto it = std::find_if(m_options.begin(), m_options.end(),
                           [&](const CoreOption& o) { return o.key == key; });
    return it == m_options.end() ? nullptr : &*it;
}

const CoreOption* CoreOptions::find(const std::string& key) const {
    return const_cast<CoreOptions*>(this)->find(key);
}

const char* CoreOptions::get(const std::string& key) const {
    const CoreOption* option = find(key);
    return option ? option->value.c_str() : nullptr;
}

bool CoreOptions::set(const std::string& key, const std::string& value) {
    CoreOption* option = find(key);
    if (!option) return false;
    if (std::find(option->values.begin(), option->values.end(), value) == option->values.end())
        return false;
    if (option->value != value) {
        option->value = value;
        m_updated = true;
    }
    return true;
}

void CoreOptions::set_visible(const std::string& key, bool visible) {
    if (CoreOption* option = find(key)) option->visible = visible;
}

bool CoreOptions::take_updated() {
    const bool updated = m_updated;
    m_updated = false;
    return updated;
}

std::vector<std::string> CoreOptions::unknown_overrides() const {
    std::vector<std::string> unknown;
    for (const auto& [key, value] : m_overrides) {
        if (!find(key)) unknown.push_back(key);
    }
    return unknown;
}

std::uint64_t CoreOptions::hash() const {
    std::vector<const CoreOption*> sorted;
    for (const auto& option : m_options) sorted.push_back(&option);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->key < b->key; });
    std::string text;
    for (const auto* option : sorted) text += option->key + "=" + option->value + "\n";
    return netplay::hash_bytes({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

}  // namespace framelock::frontend
