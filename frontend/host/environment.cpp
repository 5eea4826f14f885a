#include "frontend/host/environment.h"

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "common/log.h"

namespace framelock::frontend {
namespace {

// The log interface has no user pointer: the host names the active core here.
thread_local const Environment* t_logging_environment = nullptr;

void core_log(enum retro_log_level level, const char* format, ...) {
    char text[2048];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    std::string line(text);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    const std::string& name =
        t_logging_environment ? t_logging_environment->core_name() : std::string("core");
    switch (level) {
        case RETRO_LOG_DEBUG:
            log_debug("[{}] {}", name, line);
            break;
        case RETRO_LOG_INFO:
            log_debug("[{}] {}", name, line);
            break;  // cores are chatty
        case RETRO_LOG_WARN:
            log_warn("[{}] {}", name, line);
            break;
        default:
            log_error("[{}] {}", name, line);
            break;
    }
}

// Performance counters for cores that profile themselves; no effect on emulation.
retro_time_t perf_get_time_usec() {
    using namespace std::chrono;
    return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}
retro_perf_tick_t perf_get_counter() {
    using namespace std::chrono;
    return static_cast<retro_perf_tick_t>(
        duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count());
}
uint64_t perf_get_cpu_features() {
    return 0;
}
void perf_log() {}
void perf_register(retro_perf_counter* counter) {
    counter->registered = true;
}
void perf_start(retro_perf_counter* counter) {
    ++counter->call_cnt;
    counter->start = perf_get_counter();
}
void perf_stop(retro_perf_counter* counter) {
    counter->total += perf_get_counter() - counter->start;
}

bool rumble_set_state(unsigned, retro_rumble_effect, uint16_t) {
    return false;
}

const char* nonnull(const std::string& s) {
    return s.empty() ? nullptr : s.c_str();
}

}  // namespace

bool Environment::unhandled(unsigned cmd) {
    if (m_unhandled.insert(cmd).second) {
        log_debug("[{}] environment command {} ({}experimental {}) not handled", m_core_name, cmd,
                  (cmd & RETRO_ENVIRONMENT_EXPERIMENTAL) ? "" : "non-", cmd & 0xffff);
    }
    return false;
}

bool Environment::declare_core_options(unsigned cmd, const void* data) {
    // Each form needs the core options version that brought it (GET_CORE_OPTIONS_VERSION);
    // refused, the core falls back to an older form.
    const bool v2 = cmd == RETRO_ENVIRONMENT_SET_CORE_OPTIONS_V2 ||
                    cmd == RETRO_ENVIRONMENT_SET_CORE_OPTIONS_V2_INTL;
    if (m_config.core_options_version < (v2 ? 2u : 1u)) return false;
    // The _INTL forms' US definitions carry every key and value; translations only relabel them.
    if (cmd == RETRO_ENVIRONMENT_SET_CORE_OPTIONS)
        m_options.declare_v1(static_cast<const retro_core_option_definition*>(data));
    else if (cmd == RETRO_ENVIRONMENT_SET_CORE_OPTIONS_INTL)
        m_options.declare_v1(static_cast<const retro_core_options_intl*>(data)->us);
    else if (cmd == RETRO_ENVIRONMENT_SET_CORE_OPTIONS_V2)
        m_options.declare_v2(static_cast<const retro_core_options_v2*>(data));
    else
        m_options.declare_v2(static_cast<const retro_core_options_v2_intl*>(data)->us);
    return true;
}

void Environment::call_frame_time_callback() {
    // Always the nominal frame time: a core must not see the wall clock through this.
    if (m_frame_time.callback) m_frame_time.callback(m_frame_time.reference);
}

Environment::~Environment() {
    // A core may log after its host is gone (another instance's retro_deinit): never through
    // a dangling pointer.
    if (t_logging_environment == this) t_logging_environment = nullptr;
}

void Environment::make_logging_current() const {
    t_logging_environment = this;
}

bool Environment::handle(unsigned cmd, void* data) {
    t_logging_environment = this;
    switch (cmd) {
        // --- paths and identity ---
        case RETRO_ENVIRONMENT_GET_SYSTEM_DIRECTORY:
            *static_cast<const char**>(data) = nonnull(m_config.system_dir);
            return true;
        case RETRO_ENVIRONMENT_GET_SAVE_DIRECTORY:
            *static_cast<const char**>(data) = nonnull(m_config.save_dir);
            return true;
        case RETRO_ENVIRONMENT_GET_CORE_ASSETS_DIRECTORY:
            *static_cast<const char**>(data) = nonnull(m_config.core_assets_dir);
            return true;
        case RETRO_ENVIRONMENT_GET_LIBRETRO_PATH:
            *static_cast<const char**>(data) = nonnull(m_config.core_path);
            return true;
        case RETRO_ENVIRONMENT_GET_USERNAME:
            *static_cast<const char**>(data) = m_config.username.c_str();
            return true;
        case RETRO_ENVIRONMENT_GET_LANGUAGE:
            *static_cast<unsigned*>(data) = m_config.language;
            return true;

        // --- logging, messages, lifecycle ---
        case RETRO_ENVIRONMENT_GET_LOG_INTERFACE:
            static_cast<retro_log_callback*>(data)->log = core_log;
            return true;
        case RETRO_ENVIRONMENT_GET_PERF_INTERFACE: {
            auto* perf = static_cast<retro_perf_callback*>(data);
            perf->get_time_usec = perf_get_time_usec;
            perf->get_cpu_features = perf_get_cpu_features;
            perf->get_perf_counter = perf_get_counter;
            perf->perf_register = perf_register;
            perf->perf_start = perf_start;
            perf->perf_stop = perf_stop;
            perf->perf_log = perf_log;
            return true;
        }
        case RETRO_ENVIRONMENT_SET_MESSAGE:
        case RETRO_ENVIRONMENT_SET_MESSAGE_EXT: {
            // Of either kind only the text is used: kept for last_message() and logged.
            const char* text = !data ? nullptr
                               : cmd == RETRO_ENVIRONMENT_SET_MESSAGE
                                   ? static_cast<const retro_message*>(data)->msg
                                   : static_cast<const retro_message_ext*>(data)->msg;
            if (text) {
                m_last_message = text;
                log_info("[{}] {}", m_core_name, m_last_message);
            }
            return true;
        }
        case RETRO_ENVIRONMENT_GET_MESSAGE_INTERFACE_VERSION:
            *static_cast<unsigned*>(data) = 1;
            return true;
        case RETRO_ENVIRONMENT_SHUTDOWN:
            m_shutdown = true;
            return true;
        case RETRO_ENVIRONMENT_SET_PERFORMANCE_LEVEL:
        case RETRO_ENVIRONMENT_SET_SUPPORT_ACHIEVEMENTS:
        case RETRO_ENVIRONMENT_SET_MINIMUM_AUDIO_LATENCY:
        case RETRO_ENVIRONMENT_SET_SUBSYSTEM_INFO:
        case RETRO_ENVIRONMENT_SET_PROC_ADDRESS_CALLBACK:
        case RETRO_ENVIRONMENT_SET_KEYBOARD_CALLBACK:
        case RETRO_ENVIRONMENT_SET_DISK_CONTROL_INTERFACE:
        case RETRO_ENVIRONMENT_SET_DISK_CONTROL_EXT_INTERFACE:
            return true;  // accepted; nothing in framelock needs them yet
        case RETRO_ENVIRONMENT_SET_SUPPORT_NO_GAME:
            m_support_no_game = *static_cast<const bool*>(data);
            return true;

        // --- video ---
        case RETRO_ENVIRONMENT_SET_PIXEL_FORMAT: {
            switch (*static_cast<const retro_pixel_format*>(data)) {
                case RETRO_PIXEL_FORMAT_0RGB1555:
                    m_pixel_format = PixelFormat::k0RGB1555;
                    return true;
                case RETRO_PIXEL_FORMAT_XRGB8888:
                    m_pixel_format = PixelFormat::kXRGB8888;
                    return true;
                case RETRO_PIXEL_FORMAT_RGB565:
                    m_pixel_format = PixelFormat::kRGB565;
                    return true;
                default:
                    return false;
            }
        }
        case RETRO_ENVIRONMENT_SET_ROTATION:
            m_rotation = *static_cast<const unsigned*>(data) % 4;
            return true;
        case RETRO_ENVIRONMENT_GET_OVERSCAN:
            *static_cast<bool*>(data) =
                true;  // show the whole picture; cropping is the window's job
            return true;
        case RETRO_ENVIRONMENT_GET_CAN_DUPE:
            *static_cast<bool*>(data) = true;
            return true;
        case RETRO_ENVIRONMENT_SET_GEOMETRY: {
            const auto* geometry = static_cast<const retro_game_geometry*>(data);
            m_av_info.geometry.base_width = geometry->base_width;
            m_av_info.geometry.base_height = geometry->base_height;
            m_av_info.geometry.aspect_ratio = geometry->aspect_ratio;
            m_av_info_changed = true;
            return true;
        }
        case RETRO_ENVIRONMENT_SET_SYSTEM_AV_INFO:
            m_av_info = *static_cast<const retro_system_av_info*>(data);
            m_av_info_changed = true;
            return true;
        case RETRO_ENVIRONMENT_SET_HW_RENDER:
            m_hw_render_requested = true;
            log_warn(
                "[{}] asks for hardware rendering; framelock hosts software-rendered cores only",
                m_core_name);
            return false;
        case RETRO_ENVIRONMENT_GET_AUDIO_VIDEO_ENABLE:
            if (data) *static_cast<int*>(data) = m_av_enable;
            return true;
        case RETRO_ENVIRONMENT_GET_TARGET_REFRESH_RATE:
            *static_cast<float*>(data) =
                static_cast<float>(m_av_info.timing.fps > 0 ? m_av_info.timing.fps : 60.0);
            return true;
        case RETRO_ENVIRONMENT_GET_FASTFORWARDING:
            *static_cast<bool*>(data) = false;
            return true;

        // --- input ---
        case RETRO_ENVIRONMENT_SET_INPUT_DESCRIPTORS: {
            m_input_descriptor_count = 0;
            for (auto* d = static_cast<const retro_input_descriptor*>(data); d && d->description;
                 ++d) {
                ++m_input_descriptor_count;
            }
            return true;
        }
        case RETRO_ENVIRONMENT_SET_CONTROLLER_INFO: {
            m_controllers.clear();
            for (auto* info = static_cast<const retro_controller_info*>(data); info && info->types;
                 ++info) {
                std::vector<ControllerType> types;
                for (unsigned i = 0; i < info->num_types; ++i) {
                    types.push_back(
                        {info->types[i].desc ? info->types[i].desc : "", info->types[i].id});
                }
                m_controllers.push_back(std::move(types));
            }
            return true;
        }
        case RETRO_ENVIRONMENT_GET_INPUT_BITMASKS:
            return true;
        case RETRO_ENVIRONMENT_GET_INPUT_DEVICE_CAPABILITIES:
            *static_cast<uint64_t*>(data) =
                (1u << RETRO_DEVICE_JOYPAD) | (1u << RETRO_DEVICE_ANALOG);
            return true;
        case RETRO_ENVIRONMENT_GET_INPUT_MAX_USERS:
            *static_cast<unsigned*>(data) = m_config.max_users;
            return true;
        case RETRO_ENVIRONMENT_GET_RUMBLE_INTERFACE:
            static_cast<retro_rumble_interface*>(data)->set_rumble_state = rumble_set_state;
            return true;

        // --- core options ---
        case RETRO_ENVIRONMENT_GET_CORE_OPTIONS_VERSION:
            *static_cast<unsigned*>(data) = m_config.core_options_version;
            return true;
        case RETRO_ENVIRONMENT_SET_VARIABLES:
            m_options.declare_v0(static_cast<const retro_variable*>(data));
            return true;
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS:
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS_INTL:
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS_V2:
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS_V2_INTL:
            return declare_core_options(cmd, data);
        case RETRO_ENVIRONMENT_GET_VARIABLE: {
            auto* variable = static_cast<retro_variable*>(data);
            if (!variable || !variable->key) return false;
            variable->value = m_options.get(variable->key);
            return variable->value != nullptr;
        }
        case RETRO_ENVIRONMENT_SET_VARIABLE: {
            const auto* variable = static_cast<const retro_variable*>(data);
            if (!variable) return true;  // a NULL query asks whether SET_VARIABLE is supported
            return variable->key && variable->value &&
                   m_options.set(variable->key, variable->value);
        }
        case RETRO_ENVIRONMENT_GET_VARIABLE_UPDATE:
            *static_cast<bool*>(data) = m_options.take_updated();
            return true;
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS_DISPLAY: {
            const auto* display = static_cast<const retro_core_option_display*>(data);
            if (display && display->key) m_options.set_visible(display->key, display->visible);
            return true;
        }
        case RETRO_ENVIRONMENT_SET_CORE_OPTIONS_UPDATE_DISPLAY_CALLBACK:
            return true;

        // --- timing, state, memory ---
        case RETRO_ENVIRONMENT_SET_FRAME_TIME_CALLBACK:
            m_frame_time = *static_cast<const retro_frame_time_callback*>(data);
            return true;
        case RETRO_ENVIRONMENT_SET_SERIALIZATION_QUIRKS: {
            // We support every quirk up to PLATFORM_DEPENDENT: sizes are re-read on each
            // save, and states are never shared across platforms by mistake (handshake).
            constexpr uint64_t kSupported = RETRO_SERIALIZATION_QUIRK_INCOMPLETE |
                                            RETRO_SERIALIZATION_QUIRK_MUST_INITIALIZE |
                                            RETRO_SERIALIZATION_QUIRK_CORE_VARIABLE_SIZE |
                                            RETRO_SERIALIZATION_QUIRK_FRONT_VARIABLE_SIZE |
                                            RETRO_SERIALIZATION_QUIRK_SINGLE_SESSION |
                                            RETRO_SERIALIZATION_QUIRK_ENDIAN_DEPENDENT |
                                            RETRO_SERIALIZATION_QUIRK_PLATFORM_DEPENDENT;
            auto* quirks = static_cast<uint64_t*>(data);
            *quirks &= kSupported;
            m_serialization_quirks = *quirks;
            return true;
        }
        case RETRO_ENVIRONMENT_GET_SAVESTATE_CONTEXT:
            if (data) *static_cast<int*>(data) = m_config.savestate_context;
            return true;
        case RETRO_ENVIRONMENT_SET_MEMORY_MAPS: {
            m_memory.clear();
            const auto* map = static_cast<const retro_memory_map*>(data);
            for (unsigned i = 0; map && i < map->num_descriptors; ++i) {
                const retro_memory_descriptor& d = map->descriptors[i];
                if (!d.ptr || d.len == 0) continue;
                MemoryDescriptor region;
                region.flags = d.flags;
                region.ptr = static_cast<std::uint8_t*>(d.ptr) + d.offset;
                region.start = d.start;
                region.length = d.len;
                char fallback[32];
                std::snprintf(fallback, sizeof fallback, "%06llx",
                              static_cast<unsigned long long>(d.start));
                region.name = (d.addrspace && *d.addrspace) ? d.addrspace : fallback;
                m_memory.push_back(std::move(region));
            }
            return true;
        }
        default:
            return unhandled(cmd);
    }
}

}  // namespace framelock::frontend
