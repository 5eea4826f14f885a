#include "frontend/host/libretro_core.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace framelock::frontend {
namespace {

namespace fs = std::filesystem;

// Table of symbol names and where each resolved pointer goes; keeps open() a loop.
struct SymbolSlot {
    const char* name;
    void** slot;
};

template <class F>
void** as_slot(F*& fn) {
    return reinterpret_cast<void**>(&fn);
}

std::string private_copy_path(const std::string& path) {
    static std::atomic<unsigned> counter{0};
    const fs::path dir = fs::temp_directory_path() / "framelock-cores";
    return (dir / (std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
                   fs::path(path).filename().string()))
        .string();
}

}  // namespace

Result<std::unique_ptr<LibretroCore>> LibretroCore::open(const std::string& path,
                                                         OpenOptions options) {
    std::error_code ec;
    if (path.empty()) return make_error(ErrorCode::kCoreLoad, "no core given: pass --core PATH");
    if (!fs::exists(path, ec)) {
        return make_error(ErrorCode::kCoreLoad,
                          "core file not found: '" + path + "' (give the path of a *_libretro.so)");
    }
    if (!fs::is_regular_file(path, ec)) {
        return make_error(ErrorCode::kCoreLoad, "core path is not a file: '" + path + "'");
    }

    std::unique_ptr<LibretroCore> core(new LibretroCore());
    core->m_path = path;
    std::string load_path = path;
    if (options.private_copy) {
        core->m_private_path = private_copy_path(path);
        fs::create_directories(fs::path(core->m_private_path).parent_path(), ec);
        fs::copy_file(path, core->m_private_path, fs::copy_options::overwrite_existing, ec);
        if (ec) {
            return make_error(ErrorCode::kCoreLoad, "cannot make a private copy of core '" + path +
                                                        "' at '" + core->m_private_path +
                                                        "': " + ec.message());
        }
        load_path = core->m_private_path;
    }

    // RTLD_LOCAL: one core's symbols must never satisfy another's. RTLD_NOW: a core
    // with unresolved imports fails here, with dlerror's message, not mid-game.
    // RTLD_NODELETE: the code stays mapped after dlclose, because cores register atexit
    // handlers and thread-local destructors that would otherwise jump into unmapped
    // memory at exit, and so that sanitizer reports can still name the core.
    core->m_handle = ::dlopen(load_path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!core->m_handle) {
        const char* why = ::dlerror();
        return make_error(ErrorCode::kCoreLoad,
                          "'" + path + "' is not a loadable shared library: " +
                              std::string(why ? why : "unknown dlopen error"));
    }

    CoreApi& a = core->m_api;
    const SymbolSlot symbols[] = {
        {"retro_set_environment", as_slot(a.set_environment)},
        {"retro_set_video_refresh", as_slot(a.set_video_refresh)},
        {"retro_set_audio_sample", as_slot(a.set_audio_sample)},
        {"retro_set_audio_sample_batch", as_slot(a.set_audio_sample_batch)},
        {"retro_set_input_poll", as_slot(a.set_input_poll)},
        {"retro_set_input_state", as_slot(a.set_input_state)},
        {"retro_init", as_slot(a.init)},
        {"retro_deinit", as_slot(a.deinit)},
        {"retro_api_version", as_slot(a.api_version)},
        {"retro_get_system_info", as_slot(a.get_system_info)},
        {"retro_get_system_av_info", as_slot(a.get_system_av_info)},
        {"retro_set_controller_port_device", as_slot(a.set_controller_port_device)},
        {"retro_reset", as_slot(a.reset)},
        {"retro_run", as_slot(a.run)},
        {"retro_serialize_size", as_slot(a.serialize_size)},
        {"retro_serialize", as_slot(a.serialize)},
        {"retro_unserialize", as_slot(a.unserialize)},
        {"retro_cheat_reset", as_slot(a.cheat_reset)},
        {"retro_cheat_set", as_slot(a.cheat_set)},
        {"retro_load_game", as_slot(a.load_game)},
        {"retro_load_game_special", as_slot(a.load_game_special)},
        {"retro_unload_game", as_slot(a.unload_game)},
        {"retro_get_region", as_slot(a.get_region)},
        {"retro_get_memory_data", as_slot(a.get_memory_data)},
        {"retro_get_memory_size", as_slot(a.get_memory_size)},
    };
    for (const auto& symbol : symbols) {
        *symbol.slot = ::dlsym(core->m_handle, symbol.name);
        if (!*symbol.slot) {
            return make_error(
                ErrorCode::kCoreLoad,
                "'" + path + "' is not a libretro core: symbol " + symbol.name + " is missing");
        }
    }

    const unsigned version = a.api_version();
    if (version != RETRO_API_VERSION) {
        return make_error(ErrorCode::kCoreLoad,
                          "core '" + path + "' implements libretro API version " +
                              std::to_string(version) + ", framelock implements version " +
                              std::to_string(RETRO_API_VERSION));
    }

    retro_system_info info{};
    a.get_system_info(&info);
    core->m_info.library_name = info.library_name ? info.library_name : "";
    core->m_info.library_version = info.library_version ? info.library_version : "";
    core->m_info.valid_extensions = info.valid_extensions ? info.valid_extensions : "";
    core->m_info.need_fullpath = info.need_fullpath;
    core->m_info.block_extract = info.block_extract;
    if (core->m_info.library_name.empty()) {
        return make_error(ErrorCode::kCoreLoad,
                          "core '" + path + "' reports an empty library_name");
    }
    return core;
}

LibretroCore::~LibretroCore() {
    if (m_handle) ::dlclose(m_handle);
    if (!m_private_path.empty()) {
        std::error_code ec;
        std::filesystem::remove(m_private_path, ec);
    }
}

}  // namespace framelock::frontend
