#include "core_options.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

namespace framelock::cores::arcade {
namespace {

constexpr const char* kPlayersKey = "farcade_players";
constexpr const char* kSeedKey = "farcade_seed";
constexpr const char* kDifficultyKey = "farcade_difficulty";

struct OptionValue {
    const char* value;
    const char* label;  // null: the frontend shows the value itself
};

constexpr OptionValue kPlayerValues[] = {{"2", nullptr}, {"3", nullptr}, {"4", nullptr},
                                         {"5", nullptr}, {"6", nullptr}, {"7", nullptr},
                                         {"8", nullptr}};
constexpr OptionValue kSeedValues[] = {
    {"1", nullptr},    {"2", nullptr},  {"3", nullptr},    {"4", nullptr},    {"5", nullptr},
    {"6", nullptr},    {"7", nullptr},  {"8", nullptr},    {"9", nullptr},    {"10", nullptr},
    {"11", nullptr},   {"12", nullptr}, {"13", nullptr},   {"14", nullptr},   {"15", nullptr},
    {"16", nullptr},   {"42", nullptr}, {"1941", nullptr}, {"1999", nullptr}, {"2024", nullptr},
    {"65535", nullptr}};
constexpr OptionValue kDifficultyValues[] = {
    {"normal", "Normal"}, {"easy", "Easy"}, {"hard", "Hard"}};

struct OptionSpec {
    const char* key;
    const char* desc;
    const char* info;
    const OptionValue* values;
    size_t count;
    const char* default_value;  // always values[0], which the v0 interface requires
};

constexpr OptionSpec kOptions[] = {
    {kPlayersKey, "Players",
     "Ships in play (2-8). Takes effect at the next power-on (reset or reload).", kPlayerValues,
     std::size(kPlayerValues), "2"},
    {kSeedKey, "Random seed",
     "Seeds the enemy waves; content bytes, when loaded, are mixed in. Takes effect at the next "
     "power-on.",
     kSeedValues, std::size(kSeedValues), "1"},
    {kDifficultyKey, "Difficulty",
     "Wave rate, enemy fire and starting lives. Applies immediately (lives at the next run).",
     kDifficultyValues, std::size(kDifficultyValues), "normal"},
};
constexpr size_t kOptionCount = std::size(kOptions);

// All peers of a netplay session must agree on these, hence one category saying so.
retro_core_option_v2_category g_categories[] = {
    {"game", "Game", "Rules of the game. Every player of a session must use the same values."},
    {nullptr, nullptr, nullptr},
};
retro_core_option_v2_definition g_definitions_v2[kOptionCount + 1];
retro_core_options_v2 g_options_v2{g_categories, g_definitions_v2};
retro_core_option_definition g_definitions_v1[kOptionCount + 1];
char g_variable_text[kOptionCount][256];  // "Desc; default|other|..."
retro_variable g_variables[kOptionCount + 1];

// Appends to a g_variable_text entry; the option texts are far shorter than the buffer.
void append(char* text, const char* more) {
    const size_t used = std::strlen(text);
    std::snprintf(text + used, sizeof(g_variable_text[0]) - used, "%s", more);
}

// Filled once; the arrays are static because the frontend may keep pointers into them.
void build_tables() {
    static bool built = false;
    if (built) return;
    built = true;
    std::memset(g_definitions_v2, 0, sizeof(g_definitions_v2));
    std::memset(g_definitions_v1, 0, sizeof(g_definitions_v1));
    std::memset(g_variables, 0, sizeof(g_variables));
    for (size_t i = 0; i < kOptionCount; ++i) {
        const OptionSpec& spec = kOptions[i];
        retro_core_option_v2_definition& v2 = g_definitions_v2[i];
        v2.key = spec.key;
        v2.desc = spec.desc;
        v2.info = spec.info;
        v2.category_key = "game";
        v2.default_value = spec.default_value;
        retro_core_option_definition& v1 = g_definitions_v1[i];
        v1.key = spec.key;
        v1.desc = spec.desc;
        v1.info = spec.info;
        v1.default_value = spec.default_value;
        char* text = g_variable_text[i];
        append(text, spec.desc);
        append(text, "; ");
        for (size_t k = 0; k < spec.count; ++k) {
            v2.values[k] = {spec.values[k].value, spec.values[k].label};
            v1.values[k] = {spec.values[k].value, spec.values[k].label};
            if (k > 0) append(text, "|");
            append(text, spec.values[k].value);
        }
        g_variables[i] = {spec.key, text};
    }
}

// Null when the option is unknown to the frontend.
const char* get_variable(retro_environment_t environment, const char* key) {
    retro_variable var{key, nullptr};
    if (!environment(RETRO_ENVIRONMENT_GET_VARIABLE, &var)) return nullptr;
    return var.value;
}

bool parse_int(const char* text, long low, long high, long& out) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < low || value > high) return false;
    out = value;
    return true;
}

}  // namespace

unsigned register_core_options(retro_environment_t environment) {
    build_tables();
    unsigned version = 0;
    if (!environment(RETRO_ENVIRONMENT_GET_CORE_OPTIONS_VERSION, &version)) version = 0;
    if (version >= 2) {
        // The return value only says whether categories are shown, not whether it worked.
        environment(RETRO_ENVIRONMENT_SET_CORE_OPTIONS_V2, &g_options_v2);
        return 2;
    }
    if (version >= 1 && environment(RETRO_ENVIRONMENT_SET_CORE_OPTIONS, g_definitions_v1)) {
        return 1;
    }
    environment(RETRO_ENVIRONMENT_SET_VARIABLES, g_variables);
    return 0;
}

Config read_core_options(retro_environment_t environment, retro_log_printf_t log) {
    Config config;
    long value = 0;
    if (const char* text = get_variable(environment, kPlayersKey)) {
        if (parse_int(text, 2, kMaxPlayers, value)) {
            config.players = static_cast<uint8_t>(value);
        } else {
            log(RETRO_LOG_WARN, "%s: ignoring '%s', using 2\n", kPlayersKey, text);
        }
    }
    if (const char* text = get_variable(environment, kSeedKey)) {
        if (parse_int(text, 0, UINT16_MAX, value)) {
            config.seed = static_cast<uint16_t>(value);
        } else {
            log(RETRO_LOG_WARN, "%s: ignoring '%s', using 1\n", kSeedKey, text);
        }
    }
    if (const char* text = get_variable(environment, kDifficultyKey)) {
        if (std::strcmp(text, "easy") == 0) {
            config.difficulty = kDifficultyEasy;
        } else if (std::strcmp(text, "hard") == 0) {
            config.difficulty = kDifficultyHard;
        } else if (std::strcmp(text, "normal") == 0) {
            config.difficulty = kDifficultyNormal;
        } else {
            log(RETRO_LOG_WARN, "%s: ignoring '%s', using normal\n", kDifficultyKey, text);
        }
    }
    return config;
}

}  // namespace framelock::cores::arcade
