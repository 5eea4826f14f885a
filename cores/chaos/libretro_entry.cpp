// The retro_* entry points of framelock_chaos_libretro.so: adapts ChaosMachine to libretro.
//
// libretro entry points carry no user pointer, so the machine and the host's callbacks are
// globals of this shared object; two independent instances in one process need two copies of
// the .so at different paths.
#include <time.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <libretro.h>

#include "chaos_machine.h"
#include "options.h"

namespace chaos = framelock::cores::chaos;

namespace {

retro_environment_t g_environment = nullptr;
retro_video_refresh_t g_video = nullptr;
retro_audio_sample_t g_audio_sample = nullptr;
retro_audio_sample_batch_t g_audio_batch = nullptr;
retro_input_poll_t g_input_poll = nullptr;
retro_input_state_t g_input_state = nullptr;
retro_log_printf_t g_log = nullptr;

chaos::ChaosMachine g_machine;
std::uint32_t g_cpu_ms = 0;  // chaos_cpu_ms_per_frame

void log_stderr(enum retro_log_level level, const char* format, ...) {
    (void)level;
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
}

// Ensures every message reaches someone, even from a host without GET_LOG_INTERFACE.
retro_log_printf_t logger() {
    return g_log != nullptr ? g_log : log_stderr;
}

bool environment(unsigned command, void* data) {
    return g_environment != nullptr && g_environment(command, data);
}

chaos::FaultConfig read_options(const chaos::FaultConfig& current) {
    chaos::FaultConfig config = current;
    retro_variable fault{chaos::kFaultKey, nullptr};
    if (environment(RETRO_ENVIRONMENT_GET_VARIABLE, &fault) && fault.value != nullptr) {
        if (const auto parsed = chaos::parse_fault(fault.value)) {
            config.fault = *parsed;
        } else {
            logger()(RETRO_LOG_WARN, "chaos: ignoring %s=\"%s\"\n", chaos::kFaultKey, fault.value);
        }
    }
    retro_variable frame{chaos::kFaultFrameKey, nullptr};
    if (environment(RETRO_ENVIRONMENT_GET_VARIABLE, &frame) && frame.value != nullptr) {
        if (const auto parsed = chaos::parse_fault_frame(frame.value)) {
            config.frame = *parsed;
        } else {
            logger()(RETRO_LOG_WARN, "chaos: ignoring %s=\"%s\"\n", chaos::kFaultFrameKey,
                     frame.value);
        }
    }
    return config;
}

// The flip's frame from the environment (chaos::kFlipEnv): nullopt when unset or not a number.
std::optional<std::uint32_t> read_flip_frame() {
    const char* value = std::getenv(chaos::kFlipEnv);
    if (value == nullptr || *value == '\0') return std::nullopt;
    char* end = nullptr;
    const unsigned long frame = std::strtoul(value, &end, 10);
    if (*end != '\0' || frame > 0xFFFFFFFFul) {
        logger()(RETRO_LOG_WARN, "chaos: ignoring %s=\"%s\"\n", chaos::kFlipEnv, value);
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(frame);
}

// chaos_cpu_ms_per_frame, `current` when unset or not one of the offered values.
std::uint32_t read_cpu_ms(std::uint32_t current) {
    retro_variable cpu{chaos::kCpuMsKey, nullptr};
    if (!environment(RETRO_ENVIRONMENT_GET_VARIABLE, &cpu) || cpu.value == nullptr) return current;
    if (const auto parsed = chaos::parse_cpu_ms(cpu.value)) return *parsed;
    logger()(RETRO_LOG_WARN, "chaos: ignoring %s=\"%s\"\n", chaos::kCpuMsKey, cpu.value);
    return current;
}

void apply_cpu_ms(std::uint32_t ms) {
    if (ms != g_cpu_ms) logger()(RETRO_LOG_INFO, "chaos: %u ms of CPU time per frame\n", ms);
    g_cpu_ms = ms;
}

std::int64_t thread_cpu_ns() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// Busy work until this thread has spent `ms` of CPU time: a heavy core's frame. CPU time, not
// wall time, so a loaded machine makes the frame longer, as it would a real core's.
void spend_cpu(std::uint32_t ms) {
    if (ms == 0) return;
    const std::int64_t until = thread_cpu_ns() + static_cast<std::int64_t>(ms) * 1'000'000;
    volatile std::uint64_t sink = 0;
    std::uint64_t x = 0x9e3779b97f4a7c15u;
    while (thread_cpu_ns() < until) {
        for (int i = 0; i < 1000; ++i) x = x * 6364136223846793005u + 1442695040888963407u;
        sink = x;
    }
    (void)sink;
}

void apply_options(const chaos::FaultConfig& config) {
    const chaos::FaultConfig& old = g_machine.faults();
    if (config.fault != old.fault || config.frame != old.frame) {
        logger()(RETRO_LOG_INFO, "chaos: fault %s from frame %u\n", chaos::fault_name(config.fault),
                 static_cast<unsigned>(config.frame));
    }
    g_machine.set_faults(config);
}

void publish_memory_map() {
    // Descriptors must outlive the call: the host may keep pointers into the array.
    static retro_memory_descriptor descriptors[chaos::kRegions.size()];
    void* block = g_machine.memory().data();
    for (std::size_t i = 0; i < chaos::kRegions.size(); ++i) {
        const chaos::Region& region = chaos::kRegions[i];
        descriptors[i] = retro_memory_descriptor{};
        descriptors[i].flags = RETRO_MEMDESC_SYSTEM_RAM;
        descriptors[i].ptr = block;
        descriptors[i].offset = region.offset;
        descriptors[i].start = region.start;
        descriptors[i].len = region.size;
        descriptors[i].addrspace = region.name;
    }
    retro_memory_map map{descriptors, static_cast<unsigned>(chaos::kRegions.size())};
    if (!environment(RETRO_ENVIRONMENT_SET_MEMORY_MAPS, &map)) {
        logger()(RETRO_LOG_WARN, "chaos: host refused SET_MEMORY_MAPS\n");
    }
}

void publish_input_descriptors() {
    static const retro_input_descriptor descriptors[] = {
        {0, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_LEFT, "Sprite left"},
        {0, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_RIGHT, "Sprite right"},
        {0, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_UP, "Sprite up"},
        {0, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_DOWN, "Sprite down"},
        {0, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_A, "Highlight sprite"},
        {1, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_LEFT, "Sprite left"},
        {1, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_RIGHT, "Sprite right"},
        {1, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_UP, "Sprite up"},
        {1, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_DOWN, "Sprite down"},
        {1, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_A, "Highlight sprite"},
        {0, 0, 0, 0, nullptr},
    };
    environment(RETRO_ENVIRONMENT_SET_INPUT_DESCRIPTORS,
                const_cast<retro_input_descriptor*>(descriptors));
}

}  // namespace

RETRO_API unsigned retro_api_version(void) {
    return RETRO_API_VERSION;
}

RETRO_API void retro_set_environment(retro_environment_t callback) {
    g_environment = callback;
    environment(RETRO_ENVIRONMENT_SET_VARIABLES,
                const_cast<retro_variable*>(chaos::option_definitions()));
    bool no_game = true;
    environment(RETRO_ENVIRONMENT_SET_SUPPORT_NO_GAME, &no_game);
    retro_log_callback log{};
    if (environment(RETRO_ENVIRONMENT_GET_LOG_INTERFACE, &log)) g_log = log.log;
}

RETRO_API void retro_set_video_refresh(retro_video_refresh_t callback) {
    g_video = callback;
}
RETRO_API void retro_set_audio_sample(retro_audio_sample_t callback) {
    g_audio_sample = callback;
}
RETRO_API void retro_set_audio_sample_batch(retro_audio_sample_batch_t callback) {
    g_audio_batch = callback;
}
RETRO_API void retro_set_input_poll(retro_input_poll_t callback) {
    g_input_poll = callback;
}
RETRO_API void retro_set_input_state(retro_input_state_t callback) {
    g_input_state = callback;
}

RETRO_API void retro_init(void) {}
RETRO_API void retro_deinit(void) {}

RETRO_API void retro_get_system_info(struct retro_system_info* info) {
    std::memset(info, 0, sizeof(*info));
    info->library_name = "framelock-chaos";
    info->library_version = "1.0";
    info->valid_extensions = "";
    info->need_fullpath = false;
    info->block_extract = false;
}

RETRO_API void retro_get_system_av_info(struct retro_system_av_info* info) {
    std::memset(info, 0, sizeof(*info));
    info->geometry.base_width = chaos::kWidth;
    info->geometry.base_height = chaos::kHeight;
    info->geometry.max_width = chaos::kWidth;
    info->geometry.max_height = chaos::kHeight;
    info->geometry.aspect_ratio = 4.0f / 3.0f;
    info->timing.fps = chaos::kFps;
    info->timing.sample_rate = chaos::kSampleRate;
}

RETRO_API void retro_set_controller_port_device(unsigned port, unsigned device) {
    // Only the RetroPad is understood; other devices read as an idle pad.
    (void)port;
    (void)device;
}

RETRO_API void retro_reset(void) {
    g_machine.power_on();
}

RETRO_API void retro_run(void) {
    bool updated = false;
    if (environment(RETRO_ENVIRONMENT_GET_VARIABLE_UPDATE, &updated) && updated) {
        apply_options(read_options(g_machine.faults()));
        apply_cpu_ms(read_cpu_ms(g_cpu_ms));
    }

    if (g_input_poll != nullptr) g_input_poll();
    std::array<chaos::PadWord, chaos::kPorts> pads{};
    if (g_input_state != nullptr) {
        // One query per button rather than RETRO_DEVICE_ID_JOYPAD_MASK: the oldest and most
        // common way cores read pads, so the host's per-button path is exercised.
        for (unsigned port = 0; port < chaos::kPorts; ++port) {
            for (unsigned id = 0; id < 16; ++id) {
                if (g_input_state(port, RETRO_DEVICE_JOYPAD, 0, id) != 0) {
                    pads[port] = static_cast<chaos::PadWord>(pads[port] | 1U << id);
                }
            }
        }
    }

    if (g_machine.crash_due()) {
        // Say which frame before dying so the log agrees with what the tools should report.
        logger()(RETRO_LOG_ERROR, "chaos: fault crash at frame %u\n",
                 static_cast<unsigned>(g_machine.frame()));
        std::fflush(stderr);
    }
    g_machine.run_frame(pads);
    spend_cpu(g_cpu_ms);

    if (g_video != nullptr) {
        g_video(g_machine.video().data(), chaos::kWidth, chaos::kHeight,
                chaos::kWidth * sizeof(std::uint16_t));
    }
    const std::span<const std::int16_t> audio = g_machine.audio();
    const std::size_t frames = audio.size() / 2;
    if (g_audio_batch != nullptr) {
        // A host may take fewer frames than offered; a zero return means it will take no more.
        std::size_t sent = 0;
        while (sent < frames) {
            const std::size_t taken = g_audio_batch(audio.data() + 2 * sent, frames - sent);
            if (taken == 0) break;
            sent += taken;
        }
    } else if (g_audio_sample != nullptr) {
        for (std::size_t i = 0; i < frames; ++i) g_audio_sample(audio[2 * i], audio[2 * i + 1]);
    }
}

RETRO_API size_t retro_serialize_size(void) {
    return g_machine.state_size();
}

RETRO_API bool retro_serialize(void* data, size_t size) {
    if (data == nullptr) return false;
    return g_machine.serialize(std::span<std::uint8_t>(static_cast<std::uint8_t*>(data), size));
}

RETRO_API bool retro_unserialize(const void* data, size_t size) {
    if (data == nullptr) return false;
    return g_machine.unserialize(
        std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(data), size));
}

RETRO_API void retro_cheat_reset(void) {}
RETRO_API void retro_cheat_set(unsigned index, bool enabled, const char* code) {
    (void)index;
    (void)enabled;
    (void)code;
}

RETRO_API bool retro_load_game(const struct retro_game_info* game) {
    (void)game;  // content is optional and, if given, unused
    retro_pixel_format format = RETRO_PIXEL_FORMAT_RGB565;
    if (!environment(RETRO_ENVIRONMENT_SET_PIXEL_FORMAT, &format)) {
        logger()(RETRO_LOG_ERROR, "chaos: host does not accept RGB565\n");
        return false;
    }

    // Defaults first: options from a previous game must not leak into this one.
    chaos::FaultConfig config = read_options(chaos::FaultConfig{});
    config.flip_frame = read_flip_frame();
    g_machine.set_faults(config);
    logger()(RETRO_LOG_INFO, "chaos: fault %s from frame %u\n", chaos::fault_name(config.fault),
             static_cast<unsigned>(config.frame));
    if (config.flip_frame) {
        logger()(RETRO_LOG_INFO, "chaos: %s: frame %u flips the SCRATCH byte at 0x%zx\n",
                 chaos::kFlipEnv, static_cast<unsigned>(*config.flip_frame),
                 chaos::kScratch.start + chaos::kFlipOffset);
    }
    g_cpu_ms = 0;
    apply_cpu_ms(read_cpu_ms(0));
    g_machine.power_on();

    if (g_machine.faults().fault == chaos::Fault::kVarsize) {
        // Only declared at load (the API allows one declaration), so switching to varsize at
        // run time changes the size without the quirk: a deliberately unannounced case.
        std::uint64_t quirks = RETRO_SERIALIZATION_QUIRK_CORE_VARIABLE_SIZE;
        if (!environment(RETRO_ENVIRONMENT_SET_SERIALIZATION_QUIRKS, &quirks) ||
            (quirks & RETRO_SERIALIZATION_QUIRK_CORE_VARIABLE_SIZE) == 0) {
            logger()(RETRO_LOG_WARN, "chaos: host did not accept CORE_VARIABLE_SIZE\n");
        }
    }
    publish_memory_map();
    publish_input_descriptors();
    return true;
}

RETRO_API bool retro_load_game_special(unsigned type, const struct retro_game_info* info,
                                       size_t num) {
    (void)type;
    (void)info;
    (void)num;
    return false;
}

RETRO_API void retro_unload_game(void) {
    g_machine.power_on();
}

RETRO_API unsigned retro_get_region(void) {
    return RETRO_REGION_NTSC;
}

RETRO_API void* retro_get_memory_data(unsigned id) {
    return id == RETRO_MEMORY_SYSTEM_RAM ? g_machine.memory().data() : nullptr;
}

RETRO_API size_t retro_get_memory_size(unsigned id) {
    return id == RETRO_MEMORY_SYSTEM_RAM ? g_machine.memory().size() : 0;
}
