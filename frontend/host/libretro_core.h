// A libretro core loaded with dlopen: every retro_* entry point resolved at load.
#pragma once

#include <libretro.h>

#include <memory>
#include <string>

#include "netplay/base/result.h"

namespace framelock::frontend {

// The 25 functions of the libretro API (v1), resolved from the core.
struct CoreApi {
    void (*set_environment)(retro_environment_t);
    void (*set_video_refresh)(retro_video_refresh_t);
    void (*set_audio_sample)(retro_audio_sample_t);
    void (*set_audio_sample_batch)(retro_audio_sample_batch_t);
    void (*set_input_poll)(retro_input_poll_t);
    void (*set_input_state)(retro_input_state_t);
    void (*init)();
    void (*deinit)();
    unsigned (*api_version)();
    void (*get_system_info)(retro_system_info*);
    void (*get_system_av_info)(retro_system_av_info*);
    void (*set_controller_port_device)(unsigned port, unsigned device);
    void (*reset)();
    void (*run)();
    size_t (*serialize_size)();
    bool (*serialize)(void* data, size_t size);
    bool (*unserialize)(const void* data, size_t size);
    void (*cheat_reset)();
    void (*cheat_set)(unsigned index, bool enabled, const char* code);
    bool (*load_game)(const retro_game_info*);
    bool (*load_game_special)(unsigned type, const retro_game_info*, size_t num);
    void (*unload_game)();
    unsigned (*get_region)();
    void* (*get_memory_data)(unsigned id);
    size_t (*get_memory_size)(unsigned id);
};

// Copy of retro_system_info whose strings outlive the core's own storage.
struct CoreInfo {
    std::string library_name;
    std::string library_version;
    std::string valid_extensions;  // "nes|fds|unf", may be empty
    bool need_fullpath = false;
    bool block_extract = false;
};

class LibretroCore {
  public:
    struct OpenOptions {
        // dlopen a private copy of the .so so two instances in one process do not
        // share the core's globals (dlopen of one path twice returns one handle).
        bool private_copy = false;
    };

    // Loads the core, resolves every symbol and checks the API version. Errors name
    // the file and, for a missing symbol, the symbol.
    static Result<std::unique_ptr<LibretroCore>> open(const std::string& path, OpenOptions options);
    static Result<std::unique_ptr<LibretroCore>> open(const std::string& path) {
        return open(path, OpenOptions{});
    }

    ~LibretroCore();
    LibretroCore(const LibretroCore&) = delete;
    LibretroCore& operator=(const LibretroCore&) = delete;

    const CoreApi& api() const { return m_api; }
    const CoreInfo& info() const { return m_info; }
    const std::string& path() const { return m_path; }

  private:
    LibretroCore() = default;

    void* m_handle = nullptr;
    std::string m_path;          // as given by the caller
    std::string m_private_path;  // the private copy, removed on close
    CoreApi m_api{};
    CoreInfo m_info;
};

}  // namespace framelock::frontend
