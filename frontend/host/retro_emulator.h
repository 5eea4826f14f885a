// A libretro core hosted in this process, driven one frame at a time: the frontend's
// implementation of netplay::Emulator.
#pragma once

#include <libretro.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/host/environment.h"
#include "frontend/host/io.h"
#include "frontend/host/libretro_core.h"
#include "netplay/base/result.h"
#include "netplay/interfaces/emulator.h"

namespace framelock::frontend {

struct HostConfig {
    std::string core_path;
    std::string content_path;  // empty: start the core without content (if it supports that)
    std::string system_dir;
    std::string save_dir;
    // Core option overrides: per core (by library_name, from the config file), then the
    // command line's, which win.
    std::map<std::string, std::map<std::string, std::string>> per_core_options;
    std::map<std::string, std::string> option_overrides;
    unsigned core_options_version = 2;
    unsigned ports = 2;  // controller ports given a RetroPad (1..8)
    bool load_sram = true;
    bool write_sram = true;  // off during netplay unless the user asks
    std::uint32_t sram_autosave_frames =
        600;  // check for changed SRAM this often (0: only on exit)
    std::string username = "framelock";
    bool private_core_copy = false;
    retro_savestate_context savestate_context = RETRO_SAVESTATE_CONTEXT_NORMAL;
};

class RetroEmulator final : public netplay::Emulator {
  public:
    // Loads the core and the content and readies the first frame. Errors say what failed
    // with which file and what to do about it.
    static Result<std::unique_ptr<RetroEmulator>> create(const HostConfig& config);
    ~RetroEmulator() override;  // writes SRAM back (if allowed), unloads, deinits

    RetroEmulator(const RetroEmulator&) = delete;
    RetroEmulator& operator=(const RetroEmulator&) = delete;

    // netplay::Emulator
    void run_frame(const netplay::InputFrame& inputs, bool present) override;
    std::uint64_t frame_count() const override { return m_frame; }
    bool save_state(std::vector<std::uint8_t>& out) override;
    bool load_state(std::span<const std::uint8_t> state) override;
    std::uint64_t state_hash() override;
    void rewind_to(std::uint64_t next_frame) override { m_frame = next_frame; }
    // What GET_SAVESTATE_CONTEXT answers from now on (rollback netplay, say).
    void set_savestate_context(retro_savestate_context context) {
        m_env.set_savestate_context(context);
    }
    std::vector<netplay::MemoryRegion> memory_regions() override;
    double frames_per_second() const override;

    // Sinks are borrowed; nullptr discards. Called only for presented frames.
    void set_video_sink(VideoSink* sink) { m_video = sink; }
    void set_audio_sink(AudioSink* sink) { m_audio = sink; }
    VideoSink* video_sink() const { return m_video; }

    const CoreInfo& core_info() const { return m_core->info(); }
    unsigned ports() const { return m_config.ports; }
    const retro_system_av_info& av_info() { return m_env.av_info(); }
    const CoreOptions& options() const { return m_env.options(); }
    const Environment& environment() const { return m_env; }
    PixelFormat pixel_format() const { return m_env.pixel_format(); }
    bool shutdown_requested() const { return m_env.shutdown_requested(); }
    std::uint64_t content_hash() const { return m_content_hash; }
    const std::filesystem::path& sram_path() const { return m_sram_path; }

    // Writes SRAM now if it changed since the last write (and writing is allowed).
    Status flush_sram();
    void set_sram_writes(bool allowed) { m_config.write_sram = allowed; }

  private:
    explicit RetroEmulator(HostConfig config, std::unique_ptr<LibretroCore> core,
                           EnvironmentConfig env);

    Status start();
    Status load_content();
    void load_sram();
    std::span<std::uint8_t> sram();

    friend struct CallbackRouter;

    HostConfig m_config;
    std::unique_ptr<LibretroCore> m_core;
    Environment m_env;
    bool m_initialized = false;
    bool m_game_loaded = false;

    std::vector<std::uint8_t> m_content;  // kept alive for cores without need_fullpath
    std::string m_content_full_path;
    std::uint64_t m_content_hash = 0;

    std::filesystem::path m_sram_path;
    std::uint64_t m_sram_written_hash = 0;

    netplay::InputFrame m_inputs;
    bool m_present = true;
    std::uint64_t m_frame = 0;
    VideoSink* m_video = nullptr;
    AudioSink* m_audio = nullptr;
    std::vector<std::uint8_t> m_state_scratch;
};

}  // namespace framelock::frontend
