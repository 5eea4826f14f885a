// The frontend side of retro_environment: every command the cores we care about use
// (FBNeo, MAME 2003-Plus, nestopia, mednafen_pce_fast, gambatte, mgba), and a log
// line, once per command, for each one we do not handle.
#pragma once

#include <libretro.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "frontend/host/core_options.h"
#include "frontend/host/io.h"

namespace framelock::frontend {

struct EnvironmentConfig {
    std::string system_dir;  // BIOS files (neogeo.zip, syscard3.pce) live here
    std::string save_dir;    // where the core may keep its own files
    std::string core_path;   // GET_LIBRETRO_PATH
    std::string core_assets_dir;
    std::string username = "framelock";
    retro_language language = RETRO_LANGUAGE_ENGLISH;
    unsigned core_options_version = 2;  // what GET_CORE_OPTIONS_VERSION answers (0..2)
    unsigned max_users = 8;
    retro_savestate_context savestate_context = RETRO_SAVESTATE_CONTEXT_NORMAL;
};

// A memory region a core declared with SET_MEMORY_MAPS, with its own copy of the name.
struct MemoryDescriptor {
    std::string name;
    std::uint64_t flags = 0;
    std::uint8_t* ptr = nullptr;  // already offset
    std::uint64_t start = 0;
    std::size_t length = 0;
};

struct ControllerType {
    std::string description;
    unsigned id = 0;
};

class Environment {
  public:
    explicit Environment(EnvironmentConfig config) : m_config(std::move(config)) {}
    ~Environment();
    Environment(const Environment&) = delete;
    Environment& operator=(const Environment&) = delete;
    // The core's log lines from now on carry this core's name (the log callback has no
    // user pointer).
    void make_logging_current() const;

    // retro_environment_t body. `cmd` is the full command value: several commands share a
    // number and differ only by RETRO_ENVIRONMENT_EXPERIMENTAL.
    bool handle(unsigned cmd, void* data);

    void set_savestate_context(retro_savestate_context context) {
        m_config.savestate_context = context;
    }
    // Called by the host before each retro_run.
    void set_audio_video_enable(bool video, bool audio) {
        m_av_enable = (video ? 1 : 0) | (audio ? 2 : 0);
    }
    void call_frame_time_callback();

    CoreOptions& options() { return m_options; }
    const CoreOptions& options() const { return m_options; }
    const EnvironmentConfig& config() const { return m_config; }

    PixelFormat pixel_format() const { return m_pixel_format; }
    bool support_no_game() const { return m_support_no_game; }
    bool shutdown_requested() const { return m_shutdown; }
    std::uint64_t serialization_quirks() const { return m_serialization_quirks; }
    const std::vector<MemoryDescriptor>& memory_descriptors() const { return m_memory; }
    const std::vector<std::vector<ControllerType>>& controller_types() const {
        return m_controllers;
    }
    std::size_t input_descriptor_count() const { return m_input_descriptor_count; }
    unsigned rotation() const { return m_rotation; }
    bool hardware_render_requested() const { return m_hw_render_requested; }
    const std::string& last_message() const { return m_last_message; }
    const std::set<unsigned>& unhandled_commands() const { return m_unhandled; }

    // SET_SYSTEM_AV_INFO / SET_GEOMETRY change these; the host seeds them after load.
    retro_system_av_info& av_info() { return m_av_info; }
    const retro_system_av_info& av_info() const { return m_av_info; }
    bool take_av_info_changed() {
        const bool changed = m_av_info_changed;
        m_av_info_changed = false;
        return changed;
    }

    // Name of the core, for log prefixes.
    void set_core_name(std::string name) { m_core_name = std::move(name); }
    const std::string& core_name() const { return m_core_name; }

  private:
    bool unhandled(unsigned cmd);
    // SET_CORE_OPTIONS, _INTL, _V2 and _V2_INTL.
    bool declare_core_options(unsigned cmd, const void* data);

    EnvironmentConfig m_config;
    CoreOptions m_options;
    std::string m_core_name = "core";
    PixelFormat m_pixel_format = PixelFormat::k0RGB1555;  // libretro's default
    retro_system_av_info m_av_info{};
    bool m_av_info_changed = false;
    bool m_support_no_game = false;
    bool m_shutdown = false;
    bool m_hw_render_requested = false;
    std::uint64_t m_serialization_quirks = 0;
    std::vector<MemoryDescriptor> m_memory;
    std::vector<std::vector<ControllerType>> m_controllers;
    std::size_t m_input_descriptor_count = 0;
    unsigned m_rotation = 0;
    int m_av_enable = 3;
    retro_frame_time_callback m_frame_time{};
    std::string m_last_message;
    std::set<unsigned> m_unhandled;
};

}  // namespace framelock::frontend
