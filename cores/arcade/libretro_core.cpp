// libretro glue for Star Lanes: the retro_* entry points, input, options, save RAM, memory
// maps and savestates. The game itself (game.h, render.h, sound.h) knows nothing of libretro.
#include <libretro.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "core_options.h"
#include "game.h"
#include "high_scores.h"
#include "ram.h"
#include "render.h"
#include "sound.h"
#include "state_codec.h"

namespace framelock::cores::arcade {
namespace {

static_assert(
    kPadB == 1u << RETRO_DEVICE_ID_JOYPAD_B && kPadY == 1u << RETRO_DEVICE_ID_JOYPAD_Y &&
        kPadSelect == 1u << RETRO_DEVICE_ID_JOYPAD_SELECT &&
        kPadStart == 1u << RETRO_DEVICE_ID_JOYPAD_START &&
        kPadUp == 1u << RETRO_DEVICE_ID_JOYPAD_UP &&
        kPadDown == 1u << RETRO_DEVICE_ID_JOYPAD_DOWN &&
        kPadLeft == 1u << RETRO_DEVICE_ID_JOYPAD_LEFT &&
        kPadRight == 1u << RETRO_DEVICE_ID_JOYPAD_RIGHT &&
        kPadA == 1u << RETRO_DEVICE_ID_JOYPAD_A && kPadX == 1u << RETRO_DEVICE_ID_JOYPAD_X &&
        kPadL == 1u << RETRO_DEVICE_ID_JOYPAD_L && kPadR == 1u << RETRO_DEVICE_ID_JOYPAD_R &&
        kPadL2 == 1u << RETRO_DEVICE_ID_JOYPAD_L2 && kPadR2 == 1u << RETRO_DEVICE_ID_JOYPAD_R2 &&
        kPadL3 == 1u << RETRO_DEVICE_ID_JOYPAD_L3 && kPadR3 == 1u << RETRO_DEVICE_ID_JOYPAD_R3,
    "pad bits must match RETRO_DEVICE_ID_JOYPAD_*");

constexpr const char* kLibraryName = "framelock-arcade";
constexpr size_t kMaxContentBytes = 64 * 1024;
constexpr int kButtons = 16;
constexpr const char* kDifficultyNames[] = {"easy", "normal", "hard"};

// Indexed by RETRO_DEVICE_ID_JOYPAD_*.
constexpr const char* kButtonNames[kButtons] = {
    "Missile",
    "Bomb",
    "Shot pattern (twin/spread)",
    "Beacon / continue",
    "Up",
    "Down",
    "Left",
    "Right",
    "Fire",
    "Shield",
    "Focus (slow, shows hitbox)",
    "Boost (fast)",
    "Side shot left",
    "Side shot right",
    "Guide line",
    "Horn",
};

// libretro callbacks carry no user pointer, so the core's state is one process-wide object.
struct Core {
    retro_environment_t environment = nullptr;
    retro_video_refresh_t video = nullptr;
    retro_audio_sample_batch_t audio_batch = nullptr;
    retro_input_poll_t input_poll = nullptr;
    retro_input_state_t input_state = nullptr;
    retro_log_printf_t frontend_log = nullptr;
    bool loaded = false;
    bool input_bitmasks = false;
    bool can_dupe = false;
    unsigned port_device[kMaxPlayers] = {};
    Config config;  // the latest option values; the next power-on uses them
    Ram ram;
    uint8_t save_ram[kHighScoreBytes] = {};
    uint32_t frame_buffer[kScreenWidth * kScreenHeight] = {};
    int16_t audio_buffer[kSamplesPerFrame * 2] = {};
    retro_memory_descriptor memory_descriptors[4] = {};
    retro_input_descriptor input_descriptors[kMaxPlayers * kButtons + 1] = {};
};

Core g_core;

__attribute__((format(printf, 2, 3))) void core_log(retro_log_level level, const char* fmt, ...) {
    char message[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(message, sizeof(message), fmt, args);
    va_end(args);
    if (g_core.frontend_log != nullptr) {
        g_core.frontend_log(level, "[%s] %s", kLibraryName, message);
    } else if (level >= RETRO_LOG_WARN) {
        std::fprintf(stderr, "[%s] %s", kLibraryName, message);
    }
}

void set_controller_info(retro_environment_t environment) {
    static const retro_controller_description kPad[] = {{"RetroPad", RETRO_DEVICE_JOYPAD}};
    static retro_controller_info ports[kMaxPlayers + 1] = {};
    for (int i = 0; i < kMaxPlayers; ++i) ports[i] = {kPad, 1};
    environment(RETRO_ENVIRONMENT_SET_CONTROLLER_INFO, ports);
}

void set_input_descriptors() {
    retro_input_descriptor* d = g_core.input_descriptors;
    for (unsigned port = 0; port < kMaxPlayers; ++port) {
        for (unsigned id = 0; id < kButtons; ++id) {
            *d++ = {port, RETRO_DEVICE_JOYPAD, 0, id, kButtonNames[id]};
        }
    }
    *d = {0, 0, 0, 0, nullptr};
    g_core.environment(RETRO_ENVIRONMENT_SET_INPUT_DESCRIPTORS, g_core.input_descriptors);
}

// Separate regions so a desync report can name the part of Ram that diverged. The addresses
// are a made-up 16-bit map; `select` keeps each region inside its own 4 or 8 KiB window.
void set_memory_maps() {
    Ram& ram = g_core.ram;
    struct Region {
        void* ptr;
        size_t start, select, len;
        const char* name;
    };
    const Region regions[] = {
        {&ram.sys, 0x0000, 0xF000, sizeof(ram.sys), "SYSTEM"},
        {ram.ships, 0x1000, 0xF000, sizeof(ram.ships), "PLAYERS"},
        {&ram.objects, 0x2000, 0xE000, sizeof(ram.objects), "OBJECTS"},
        {&ram.audio, 0x4000, 0xF000, sizeof(ram.audio), "AUDIO"},
    };
    static_assert(sizeof(Ram::objects) <= 0x2000 && sizeof(Ram::ships) <= 0x1000);
    for (size_t i = 0; i < std::size(regions); ++i) {
        retro_memory_descriptor& d = g_core.memory_descriptors[i];
        d = {};
        d.flags = RETRO_MEMDESC_SYSTEM_RAM;
        d.ptr = regions[i].ptr;
        d.offset = 0;
        d.start = regions[i].start;
        d.select = regions[i].select;
        d.disconnect = 0;
        d.len = regions[i].len;
        d.addrspace = regions[i].name;
    }
    retro_memory_map map{g_core.memory_descriptors,
                         static_cast<unsigned>(std::size(g_core.memory_descriptors))};
    g_core.environment(RETRO_ENVIRONMENT_SET_MEMORY_MAPS, &map);
}

uint16_t read_pad(unsigned port) {
    if (g_core.input_state == nullptr || g_core.port_device[port] == RETRO_DEVICE_NONE) return 0;
    if (g_core.input_bitmasks) {
        return static_cast<uint16_t>(
            g_core.input_state(port, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_MASK));
    }
    uint16_t pad = 0;
    for (unsigned id = 0; id < kButtons; ++id) {
        if (g_core.input_state(port, RETRO_DEVICE_JOYPAD, 0, id) != 0) pad |= 1u << id;
    }
    return pad;
}

// The frontend fills save RAM between retro_load_game and the first retro_run, so the table is
// read at the first frame after each power-on. A savestate carries hs_latched = 1 and is never
// re-latched, so loading one does not depend on this machine's save RAM.
void latch_save_ram() {
    HighScores table;
    if (!decode_high_scores(g_core.save_ram, table)) {
        core_log(RETRO_LOG_INFO, "save RAM holds no valid high-score table; starting a new one\n");
        table = HighScores{};
    }
    ++table.session;
    encode_high_scores(table, g_core.save_ram);
    latch_high_score(g_core.ram, table.entries[0].score, table.session);
}

// Live update: a running score raises its own entry as soon as it counts, so nothing is lost if
// the frontend saves and quits mid-game. Writes only ever raise entries, so frames re-run after
// a rollback cannot lower anything.
void record_high_scores() {
    const Ram& ram = g_core.ram;
    HighScores table;
    if (!decode_high_scores(g_core.save_ram, table)) table = HighScores{};
    bool changed = false;
    for (int i = 0; i < ram.sys.players; ++i) {
        const Ship& ship = ram.ships[i];
        if (ship.state == kShipInactive) continue;
        changed |= submit_high_score(table, ship.score, ram.sys.hs_session,
                                     static_cast<uint8_t>(i + 1), ship.continues);
    }
    if (changed) encode_high_scores(table, g_core.save_ram);
}

// Only difficulty changes a running game; players and seed wait for the next power-on, since
// changing them mid-game would mean a different game (and a desync between peers).
void apply_option_update() {
    Config next = read_core_options(g_core.environment, core_log);
    next.content_hash = g_core.config.content_hash;
    if (next.difficulty != g_core.ram.sys.difficulty) {
        set_difficulty(g_core.ram, next.difficulty);
        core_log(RETRO_LOG_INFO, "difficulty now %s\n", kDifficultyNames[next.difficulty]);
    }
    if (next.players != g_core.config.players || next.seed != g_core.config.seed) {
        core_log(RETRO_LOG_INFO, "players %u, seed %u take effect at the next reset\n",
                 unsigned{next.players}, unsigned{next.seed});
    }
    g_core.config = next;
}

}  // namespace
}  // namespace framelock::cores::arcade

using namespace framelock::cores::arcade;

RETRO_API void retro_set_environment(retro_environment_t cb) {
    g_core.environment = cb;
    bool no_game = true;
    cb(RETRO_ENVIRONMENT_SET_SUPPORT_NO_GAME, &no_game);
    retro_log_callback logging{};
    if (cb(RETRO_ENVIRONMENT_GET_LOG_INTERFACE, &logging)) g_core.frontend_log = logging.log;
    register_core_options(cb);
    set_controller_info(cb);
}

RETRO_API void retro_set_video_refresh(retro_video_refresh_t cb) {
    g_core.video = cb;
}
RETRO_API void retro_set_audio_sample(retro_audio_sample_t) {}  // the batch call is used
RETRO_API void retro_set_audio_sample_batch(retro_audio_sample_batch_t cb) {
    g_core.audio_batch = cb;
}
RETRO_API void retro_set_input_poll(retro_input_poll_t cb) {
    g_core.input_poll = cb;
}
RETRO_API void retro_set_input_state(retro_input_state_t cb) {
    g_core.input_state = cb;
}

RETRO_API void retro_init(void) {
    for (unsigned& device : g_core.port_device) device = RETRO_DEVICE_JOYPAD;
}

RETRO_API void retro_deinit(void) {
    g_core.loaded = false;
}

RETRO_API unsigned retro_api_version(void) {
    return RETRO_API_VERSION;
}

RETRO_API void retro_get_system_info(retro_system_info* info) {
    std::memset(info, 0, sizeof(*info));
    info->library_name = kLibraryName;
    info->library_version = "1.0";
    info->valid_extensions = "flarc";
    info->need_fullpath = false;
    info->block_extract = false;
}

RETRO_API void retro_get_system_av_info(retro_system_av_info* info) {
    std::memset(info, 0, sizeof(*info));
    info->geometry.base_width = kScreenWidth;
    info->geometry.base_height = kScreenHeight;
    info->geometry.max_width = kScreenWidth;
    info->geometry.max_height = kScreenHeight;
    info->geometry.aspect_ratio = 4.0f / 3.0f;  // an arcade monitor
    info->timing.fps = kFramesPerSecond;
    info->timing.sample_rate = kSampleRate;
}

RETRO_API void retro_set_controller_port_device(unsigned port, unsigned device) {
    if (port < kMaxPlayers) g_core.port_device[port] = device;
}

RETRO_API void retro_reset(void) {
    power_on(g_core.ram, g_core.config);
}

RETRO_API void retro_run(void) {
    if (!g_core.loaded) return;
    bool updated = false;
    if (g_core.environment(RETRO_ENVIRONMENT_GET_VARIABLE_UPDATE, &updated) && updated) {
        apply_option_update();
    }

    if (g_core.input_poll != nullptr) g_core.input_poll();
    uint16_t pads[kMaxPlayers];
    for (unsigned port = 0; port < kMaxPlayers; ++port) pads[port] = read_pad(port);

    if (!g_core.ram.sys.hs_latched) latch_save_ram();
    step(g_core.ram, pads);
    record_high_scores();

    int av = 0;
    if (!g_core.environment(RETRO_ENVIRONMENT_GET_AUDIO_VIDEO_ENABLE, &av)) av = 1 | 2;
    const bool video = (av & 1) != 0;
    const bool audio = (av & 2) != 0 && (av & 8) == 0;

    constexpr size_t kPitch = kScreenWidth * sizeof(uint32_t);
    if (video || !g_core.can_dupe) {
        render(g_core.ram, g_core.frame_buffer);
        if (g_core.video != nullptr) {
            g_core.video(g_core.frame_buffer, kScreenWidth, kScreenHeight, kPitch);
        }
    } else if (g_core.video != nullptr) {
        g_core.video(nullptr, kScreenWidth, kScreenHeight, kPitch);  // video off: dupe
    }

    // The audio state advances whether or not anyone listens, so muted runs stay in sync.
    mix_audio(g_core.ram, audio ? g_core.audio_buffer : nullptr, kSamplesPerFrame);
    if (audio && g_core.audio_batch != nullptr) {
        g_core.audio_batch(g_core.audio_buffer, kSamplesPerFrame);
    }
}

RETRO_API size_t retro_serialize_size(void) {
    return kStateBytes;
}

RETRO_API bool retro_serialize(void* data, size_t size) {
    if (data == nullptr || size < kStateBytes) return false;
    encode_state(g_core.ram, static_cast<uint8_t*>(data));
    return true;
}

RETRO_API bool retro_unserialize(const void* data, size_t size) {
    if (!decode_state(static_cast<const uint8_t*>(data), size, g_core.ram)) {
        core_log(
            RETRO_LOG_WARN,
            "rejected a savestate of %zu bytes: want %zu bytes of FLARC v1 with a valid game\n",
            size, kStateBytes);
        return false;
    }
    return true;
}

RETRO_API void retro_cheat_reset(void) {}
RETRO_API void retro_cheat_set(unsigned, bool, const char*) {}

RETRO_API bool retro_load_game(const retro_game_info* game) {
    if (g_core.environment == nullptr) return false;
    retro_pixel_format format = RETRO_PIXEL_FORMAT_XRGB8888;
    if (!g_core.environment(RETRO_ENVIRONMENT_SET_PIXEL_FORMAT, &format)) {
        core_log(RETRO_LOG_ERROR, "frontend refused XRGB8888\n");
        return false;
    }
    uint64_t content_hash = 0;
    if (game != nullptr && game->size > 0) {
        if (game->size > kMaxContentBytes) {
            core_log(RETRO_LOG_ERROR, "content is %zu bytes; the limit is %zu\n", game->size,
                     kMaxContentBytes);
            return false;
        }
        if (game->data == nullptr) {
            core_log(RETRO_LOG_ERROR, "content has a size but no data\n");
            return false;
        }
        content_hash = fnv1a64(static_cast<const uint8_t*>(game->data), game->size);
    }

    set_input_descriptors();
    bool bitmasks = false;
    g_core.input_bitmasks = g_core.environment(RETRO_ENVIRONMENT_GET_INPUT_BITMASKS, &bitmasks);
    bool can_dupe = false;
    g_core.can_dupe = g_core.environment(RETRO_ENVIRONMENT_GET_CAN_DUPE, &can_dupe) && can_dupe;

    g_core.config = read_core_options(g_core.environment, core_log);
    g_core.config.content_hash = content_hash;
    power_on(g_core.ram, g_core.config);
    // A valid empty table until the frontend loads the saved one over it.
    encode_high_scores(HighScores{}, g_core.save_ram);
    set_memory_maps();
    g_core.loaded = true;
    core_log(RETRO_LOG_INFO, "players %u, seed %u, difficulty %s, %s\n",
             unsigned{g_core.config.players}, unsigned{g_core.config.seed},
             kDifficultyNames[g_core.config.difficulty],
             content_hash != 0 ? "content mixed into the seed" : "no content");
    return true;
}

RETRO_API bool retro_load_game_special(unsigned, const retro_game_info*, size_t) {
    return false;
}

RETRO_API void retro_unload_game(void) {
    g_core.loaded = false;
}

RETRO_API unsigned retro_get_region(void) {
    return RETRO_REGION_NTSC;
}

RETRO_API void* retro_get_memory_data(unsigned id) {
    switch (id) {
        case RETRO_MEMORY_SAVE_RAM:
            return g_core.save_ram;
        case RETRO_MEMORY_SYSTEM_RAM:
            return &g_core.ram;
        default:
            return nullptr;
    }
}

RETRO_API size_t retro_get_memory_size(unsigned id) {
    switch (id) {
        case RETRO_MEMORY_SAVE_RAM:
            return sizeof(g_core.save_ram);
        case RETRO_MEMORY_SYSTEM_RAM:
            return sizeof(g_core.ram);
        default:
            return 0;
    }
}
