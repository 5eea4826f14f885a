#include "frontend/host/retro_emulator.h"

#include <algorithm>

#include "common/log.h"
#include "frontend/files/atomic_file.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {
namespace fs = std::filesystem;

// libretro callbacks carry no user pointer. Every entry into a core goes through an
// ActiveScope that points these trampolines at the instance being driven, so two
// instances (of private core copies) can live in one process.
struct CallbackRouter {
    static thread_local RetroEmulator* active;

    static bool environment(unsigned cmd, void* data) {
        return active && active->m_env.handle(cmd, data);
    }

    static void video_refresh(const void* data, unsigned width, unsigned height, size_t pitch) {
        RetroEmulator* self = active;
        if (!self || !self->m_present || !self->m_video) return;
        // A core on RETRO_HW_FRAME_BUFFER_VALID would pass a sentinel; we refuse HW render.
        self->m_video->present({data, width, height, pitch, self->m_env.pixel_format()});
    }

    static void audio_sample(int16_t left, int16_t right) {
        RetroEmulator* self = active;
        if (!self || !self->m_present || !self->m_audio) return;
        const int16_t frame[2] = {left, right};
        self->m_audio->play(frame, 1);
    }

    static size_t audio_sample_batch(const int16_t* data, size_t frames) {
        RetroEmulator* self = active;
        if (self && self->m_present && self->m_audio) self->m_audio->play(data, frames);
        return frames;
    }

    static void input_poll() {}

    static int16_t input_state(unsigned port, unsigned device, unsigned index, unsigned id) {
        RetroEmulator* self = active;
        if (!self || port >= netplay::kMaxPlayers || index != 0) return 0;
        if ((device & RETRO_DEVICE_MASK) != RETRO_DEVICE_JOYPAD) return 0;
        const netplay::InputWord word = self->m_inputs.pads[port];
        if (id == RETRO_DEVICE_ID_JOYPAD_MASK) return static_cast<int16_t>(word);
        return id < 16 ? static_cast<int16_t>((word >> id) & 1) : 0;
    }
};
thread_local RetroEmulator* CallbackRouter::active = nullptr;

namespace {

class ActiveScope {
  public:
    explicit ActiveScope(RetroEmulator* self) : m_previous(CallbackRouter::active) {
        CallbackRouter::active = self;
    }
    ~ActiveScope() { CallbackRouter::active = m_previous; }

  private:
    RetroEmulator* m_previous;
};

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    return text;
}

bool extension_allowed(const std::string& valid_extensions, const fs::path& content) {
    if (valid_extensions.empty()) return true;
    const std::string ext = lower(content.extension().string());
    if (ext.size() < 2) return false;
    std::string list = "|" + lower(valid_extensions) + "|";
    return list.find("|" + ext.substr(1) + "|") != std::string::npos;
}

}  // namespace

RetroEmulator::RetroEmulator(HostConfig config, std::unique_ptr<LibretroCore> core,
                             EnvironmentConfig env)
    : m_config(std::move(config)), m_core(std::move(core)), m_env(std::move(env)) {}

Result<std::unique_ptr<RetroEmulator>> RetroEmulator::create(const HostConfig& config) {
    if (config.ports < 1 || config.ports > netplay::kMaxPlayers) {
        return make_error(ErrorCode::kUsage,
                          "ports must be 1..8, got " + std::to_string(config.ports));
    }
    if (config.write_sram && !config.save_dir.empty()) {
        if (Status s = ensure_writable_directory(config.save_dir, "save directory"); !s) {
            return make_error(
                s.error().code,
                s.error().message + " (choose another with --save-dir, or --no-sram)");
        }
    }
    auto core = LibretroCore::open(config.core_path, {config.private_core_copy});
    if (!core) return core.error();

    // Cores treat a NULL directory as fatal; with none configured they get the content's
    // directory (or the working directory), as in other frontends.
    const std::string fallback_dir = config.content_path.empty()
                                         ? fs::current_path().string()
                                         : fs::absolute(config.content_path).parent_path().string();
    EnvironmentConfig env;
    env.system_dir = config.system_dir.empty() ? fallback_dir : config.system_dir;
    env.save_dir = config.save_dir.empty() ? env.system_dir : config.save_dir;
    env.core_path = fs::absolute(config.core_path).string();
    env.core_assets_dir = env.system_dir;
    env.username = config.username;
    env.core_options_version = config.core_options_version;
    env.savestate_context = config.savestate_context;

    std::unique_ptr<RetroEmulator> self(
        new RetroEmulator(config, std::move(core).value(), std::move(env)));
    self->m_env.set_core_name(self->m_core->info().library_name);
    std::map<std::string, std::string> overrides;
    if (auto it = config.per_core_options.find(self->m_core->info().library_name);
        it != config.per_core_options.end()) {
        overrides = it->second;
    }
    for (const auto& [key, value] : config.option_overrides) overrides[key] = value;
    self->m_env.options().set_overrides(std::move(overrides));
    if (Status s = self->start(); !s) return s.error();
    return self;
}

Status RetroEmulator::start() {
    const CoreApi& api = m_core->api();
    ActiveScope scope(this);
    api.set_environment(&CallbackRouter::environment);
    api.set_video_refresh(&CallbackRouter::video_refresh);
    api.set_audio_sample(&CallbackRouter::audio_sample);
    api.set_audio_sample_batch(&CallbackRouter::audio_sample_batch);
    api.set_input_poll(&CallbackRouter::input_poll);
    api.set_input_state(&CallbackRouter::input_state);
    api.init();
    m_initialized = true;

    if (Status s = load_content(); !s) return s;
    m_game_loaded = true;

    for (const auto& key : m_env.options().unknown_overrides()) {
        log_warn("option '{}' is not an option of core {}; ignored", key,
                 m_core->info().library_name);
    }
    if (m_env.hardware_render_requested()) {
        return make_error(ErrorCode::kContent,
                          "core " + m_core->info().library_name +
                              " needs hardware rendering, which framelock does not provide");
    }

    retro_system_av_info av{};
    api.get_system_av_info(&av);
    m_env.av_info() = av;
    if (!(av.timing.fps > 0)) {
        return make_error(ErrorCode::kContent,
                          "core reports an invalid frame rate " + std::to_string(av.timing.fps));
    }
    // Connect a RetroPad to each port, but only to ports the core described in
    // SET_CONTROLLER_INFO when it did: some cores index fixed arrays with the port number
    // unchecked (mednafen_pce_fast reads ports 0-4 and describes two), and some deliver no
    // input until told (nestopia).
    const auto& described = m_env.controller_types();
    const unsigned connect =
        described.empty()
            ? m_config.ports
            : std::min<unsigned>(m_config.ports, static_cast<unsigned>(described.size()));
    for (unsigned port = 0; port < connect; ++port)
        api.set_controller_port_device(port, RETRO_DEVICE_JOYPAD);

    load_sram();
    return {};
}

Status RetroEmulator::load_content() {
    const CoreApi& api = m_core->api();
    const CoreInfo& info = m_core->info();
    if (m_config.content_path.empty()) {
        if (!m_env.support_no_game()) {
            return make_error(ErrorCode::kContent,
                              "core " + info.library_name + " needs content (" +
                                  (info.valid_extensions.empty() ? std::string("any file")
                                                                 : info.valid_extensions) +
                                  "): pass --content FILE");
        }
        if (!api.load_game(nullptr)) {
            return make_error(ErrorCode::kContent,
                              "core " + info.library_name + " refused to start without content");
        }
        return {};
    }

    const fs::path path = m_config.content_path;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        return make_error(ErrorCode::kContent, "content file not found: '" + path.string() + "'");
    }
    if (!extension_allowed(info.valid_extensions, path)) {
        log_warn("core {} lists extensions '{}'; '{}' may not be accepted", info.library_name,
                 info.valid_extensions, path.filename().string());
    }
    // The content hash identifies the game in the netplay handshake, so it is computed
    // even when the core only wants the path.
    auto bytes = read_file(path);
    if (!bytes) return make_error(ErrorCode::kContent, bytes.error().message);
    m_content = std::move(bytes).value();
    m_content_hash = netplay::hash_bytes(m_content);
    m_content_full_path = fs::absolute(path).string();

    retro_game_info game{};
    game.path = m_content_full_path.c_str();
    if (!info.need_fullpath) {
        game.data = m_content.data();
        game.size = m_content.size();
    }
    if (!api.load_game(&game)) {
        return make_error(ErrorCode::kContent,
                          "core " + info.library_name + " " + info.library_version +
                              " refused content '" + path.string() +
                              "' (wrong system, bad dump, or missing BIOS in the system "
                              "directory '" +
                              m_config.system_dir + "')");
    }
    if (info.need_fullpath) m_content.clear();  // the core reads the file itself
    return {};
}

std::span<std::uint8_t> RetroEmulator::sram() {
    const CoreApi& api = m_core->api();
    ActiveScope scope(this);
    auto* data = static_cast<std::uint8_t*>(api.get_memory_data(RETRO_MEMORY_SAVE_RAM));
    const std::size_t size = api.get_memory_size(RETRO_MEMORY_SAVE_RAM);
    if (!data || size == 0) return {};
    return {data, size};
}

void RetroEmulator::load_sram() {
    const std::string stem = m_config.content_path.empty()
                                 ? m_core->info().library_name
                                 : fs::path(m_config.content_path).stem().string();
    if (!m_config.save_dir.empty()) m_sram_path = fs::path(m_config.save_dir) / (stem + ".srm");
    auto memory = sram();
    if (memory.empty()) return;
    if (m_config.load_sram && !m_sram_path.empty() && fs::exists(m_sram_path)) {
        auto bytes = read_file(m_sram_path);
        if (!bytes) {
            log_warn("{}; the game starts with fresh save RAM", bytes.error().message);
        } else {
            if (bytes.value().size() != memory.size()) {
                log_warn(
                    "save file '{}' holds {} bytes, the core's save RAM is {}; loading what fits",
                    m_sram_path.string(), bytes.value().size(), memory.size());
            }
            std::copy_n(bytes.value().begin(), std::min(bytes.value().size(), memory.size()),
                        memory.begin());
            log_info("loaded save RAM from {}", m_sram_path.string());
        }
    }
    m_sram_written_hash = netplay::hash_bytes(memory);
}

Status RetroEmulator::flush_sram() {
    if (!m_config.write_sram || m_sram_path.empty()) return {};
    auto memory = sram();
    if (memory.empty()) return {};
    const std::uint64_t hash = netplay::hash_bytes(memory);
    if (hash == m_sram_written_hash) return {};
    if (Status s = write_file_atomic(m_sram_path, memory); !s) return s;
    m_sram_written_hash = hash;
    log_debug("wrote save RAM to {}", m_sram_path.string());
    return {};
}

RetroEmulator::~RetroEmulator() {
    if (!m_core) return;
    if (m_game_loaded) {
        if (Status s = flush_sram(); !s) log_error("save RAM not written: {}", s.error().message);
    }
    ActiveScope scope(this);
    m_env.make_logging_current();
    if (m_game_loaded) m_core->api().unload_game();
    if (m_initialized) m_core->api().deinit();
}

void RetroEmulator::run_frame(const netplay::InputFrame& inputs, bool present) {
    ActiveScope scope(this);
    m_inputs = inputs;
    m_present = present;
    m_env.set_audio_video_enable(present, present);
    m_env.call_frame_time_callback();
    m_core->api().run();
    ++m_frame;
    if (m_config.sram_autosave_frames && m_frame % m_config.sram_autosave_frames == 0) {
        if (Status s = flush_sram(); !s) log_error("save RAM not written: {}", s.error().message);
    }
}

bool RetroEmulator::save_state(std::vector<std::uint8_t>& out) {
    ActiveScope scope(this);
    // Re-read the size every time: some cores' states grow (CORE_VARIABLE_SIZE).
    const std::size_t size = m_core->api().serialize_size();
    if (size == 0) return false;
    out.resize(size);
    return m_core->api().serialize(out.data(), out.size());
}

bool RetroEmulator::load_state(std::span<const std::uint8_t> state) {
    ActiveScope scope(this);
    if (state.empty()) return false;
    return m_core->api().unserialize(state.data(), state.size());
}

std::uint64_t RetroEmulator::state_hash() {
    if (!save_state(m_state_scratch)) return 0;
    return netplay::hash_bytes(m_state_scratch);
}

std::vector<netplay::MemoryRegion> RetroEmulator::memory_regions() {
    std::vector<netplay::MemoryRegion> regions;
    for (const auto& d : m_env.memory_descriptors()) {
        if (d.flags & RETRO_MEMDESC_CONST) continue;  // ROM cannot diverge
        // Cores map one buffer at several mirrors; list each buffer once.
        const bool duplicate =
            std::any_of(regions.begin(), regions.end(), [&](const netplay::MemoryRegion& r) {
                return r.bytes.data() == d.ptr && r.bytes.size() == d.length;
            });
        if (!duplicate) regions.push_back({d.name, d.start, {d.ptr, d.length}});
    }
    if (!regions.empty()) return regions;
    static constexpr struct {
        unsigned id;
        const char* name;
    } kStandard[] = {{RETRO_MEMORY_SYSTEM_RAM, "SYSTEM_RAM"},
                     {RETRO_MEMORY_SAVE_RAM, "SAVE_RAM"},
                     {RETRO_MEMORY_VIDEO_RAM, "VIDEO_RAM"},
                     {RETRO_MEMORY_RTC, "RTC"}};
    ActiveScope scope(this);
    for (const auto& standard : kStandard) {
        auto* data = static_cast<const std::uint8_t*>(m_core->api().get_memory_data(standard.id));
        const std::size_t size = m_core->api().get_memory_size(standard.id);
        if (data && size) regions.push_back({standard.name, 0, {data, size}});
    }
    return regions;
}

double RetroEmulator::frames_per_second() const {
    return m_env.av_info().timing.fps;
}

}  // namespace framelock::frontend
