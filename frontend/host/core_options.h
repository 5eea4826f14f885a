// A core's options, whichever libretro interface declared them (v0 SET_VARIABLES,
// v1 SET_CORE_OPTIONS[_INTL], v2 SET_CORE_OPTIONS_V2[_INTL]), with the user's
// overrides applied and a hash that netplay peers compare.
#pragma once

#include <libretro.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace framelock::frontend {

struct CoreOption {
    std::string key;
    std::string description;
    std::vector<std::string> values;  // allowed values, in the core's order
    std::string default_value;
    std::string value;  // current value
    bool visible = true;
};

class CoreOptions {
  public:
    // User overrides (config file, command line), applied when the core declares the
    // key. Keys the core never declares are reported by unknown_overrides().
    void set_overrides(std::map<std::string, std::string> overrides);

    // Declarations from the core. Each replaces all previous declarations.
    void declare_v0(const retro_variable* variables);
    void declare_v1(const retro_core_option_definition* definitions);
    void declare_v2(const retro_core_options_v2* options);

    // GET_VARIABLE: pointer to the current value (stable until the value changes), or
    // nullptr for an unknown key.
    const char* get(const std::string& key) const;
    // SET_VARIABLE from the core, or a runtime change by the user. False if the key is
    // unknown or the value is not one of the option's values.
    bool set(const std::string& key, const std::string& value);
    void set_visible(const std::string& key, bool visible);

    // GET_VARIABLE_UPDATE: true once after any value changed; reading clears it.
    bool take_updated();

    const std::vector<CoreOption>& options() const { return m_options; }
    std::vector<std::string> unknown_overrides() const;

    // Hash of every "key=value" in key order: equal on two peers iff the core runs with
    // the same settings.
    std::uint64_t hash() const;

  private:
    void add(CoreOption option);
    CoreOption* find(const std::string& key);
    const CoreOption* find(const std::string& key) const;

    std::vector<CoreOption> m_options;
    std::map<std::string, std::string> m_overrides;
    bool m_updated = false;
};

}  // namespace framelock::frontend
